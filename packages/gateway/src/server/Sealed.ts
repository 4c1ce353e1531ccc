/**
 * 2025-era HTTP sessions across replicas: what the HTTP front seals into a session's `Mcp-Session-Id`
 * (`SessionSeal`), the host a replica rebuilds from an id it did not issue, and the event ids that let any replica
 * answer a call whose stream was cut on another.
 *
 * - **State**: the negotiated version, the capabilities, `clientInfo`, the profile and the log level of the host
 *   ({@link stateOf}); a replica that meets an id it has no session for opens it and builds the host from it
 *   ({@link hostOf}), initialized (the id exists only once `initialize` was answered).
 * - **Event ids** ({@link EventIds}): `<replica>.<stream>.<kind>-<n>`, where `kind` is `g` for a session's `GET`
 *   stream and, for a request's stream, `c` (a `tools/call`) or `r` (any other request) followed by the request's
 *   JSON-RPC id (base64url of its JSON; left out past 256 characters). They are the ids of the session's `Replay`
 *   streams: a host whose stream was cut resumes it with `GET` + `Last-Event-ID`, and the replica that holds it
 *   replays it; when that reaches a replica that does not hold the stream (the one that did has died),
 *   {@link resumedElsewhere} gives the answer: the request's id is in the event id, so the host gets an answer at once
 *   instead of waiting out its deadline.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { SessionStateInvalid } from "../GatewayError.ts"
import * as SessionSeal from "../SessionSeal.ts"
import type { Host } from "./Host.ts"
import * as HostModule from "./Host.ts"
import * as Rpc from "./Rpc.ts"

const decodeState = Schema.decodeUnknownEffect(SessionSeal.SessionState)
const decodeId = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Union([Schema.String, Schema.Finite])))

/** What a 2025-era host's session carries in its sealed id. */
export const stateOf = (host: Host): Effect.Effect<SessionSeal.SessionState, SessionStateInvalid> =>
  decodeState({
    protocolVersion: host.protocolVersion,
    capabilities: host.capabilities,
    ...(host.clientInfo === undefined ? {} : { clientInfo: host.clientInfo }),
    ...(host.profile === undefined ? {} : { profile: host.profile }),
    ...(host.logLevel === undefined ? {} : { logLevel: host.logLevel })
  }).pipe(Effect.mapError(() => new SessionStateInvalid({ issue: "the host's capabilities are not JSON" })))

/** The host of an opened id, on a replica that had no session for it: initialized, as it was sealed. */
export const hostOf = (opened: SessionSeal.Opened): Host => {
  const host = HostModule.make({
    id: opened.sid,
    era: "legacy",
    transport: "http",
    profile: opened.state.profile,
    protocolVersion: opened.state.protocolVersion
  })
  const info = opened.state.clientInfo
  if (info !== undefined) host.clientInfo = { name: info.name, version: info.version }
  host.capabilities = opened.state.capabilities
  host.logLevel = opened.state.logLevel
  host.initialized = true
  return host
}

/** The longest encoded request id carried in an event id. */
const MAX_ID_CHARS = 256

/** What a `Last-Event-ID` names. */
export type Named =
  | { readonly _tag: "Get"; readonly replica: string; readonly stream: number }
  | {
    readonly _tag: "Request"
    readonly replica: string
    readonly stream: number
    readonly call: boolean
    /** `undefined` when the id was too long to carry. */
    readonly id: string | number | undefined
  }

const EVENT_ID = /^([A-Za-z0-9_-]{1,16})\.(\d{1,15})\.(g|[cr][A-Za-z0-9_-]*)-\d{1,15}$/

/** The request a stream answers, as its event ids name it. */
export interface Request {
  readonly id: string | number
  /** A `tools/call` (its loss is an `isError` result), or another request (a JSON-RPC error). */
  readonly call: boolean
}

/** The event ids of one replica's streams. */
export interface EventIds {
  readonly replica: string
  /** A new stream's id prefix: a session's `GET` stream, or the stream of a request (`call`: a `tools/call`). */
  readonly stream: (request: Request | undefined) => {
    readonly number: number
    readonly prefix: string
  }
  /** What a `Last-Event-ID` names, or `undefined` when it is not one of ours. */
  readonly parse: (eventId: string) => Named | undefined
}

/** The event ids of the replica `replica` (a short random tag). */
export const eventIds = (replica: string): EventIds => {
  let streams = 0
  return {
    replica,
    stream: (request) => {
      const number = ++streams
      if (request === undefined) return { number, prefix: `${replica}.${number}.g` }
      const encoded = Base64Url.encode(new TextEncoder().encode(JSON.stringify(request.id)))
      const kind = request.call ? "c" : "r"
      return { number, prefix: `${replica}.${number}.${kind}${encoded.length > MAX_ID_CHARS ? "" : encoded}` }
    },
    parse: (eventId) => {
      const match = EVENT_ID.exec(eventId.trim())
      if (match === null) return undefined
      const replicaOf = match[1]!
      const stream = Number(match[2])
      const kind = match[3]!
      if (kind === "g") return { _tag: "Get", replica: replicaOf, stream }
      const encoded = kind.slice(1)
      const decoded = encoded === "" ? undefined : Base64Url.decode(encoded)
      const id = decoded !== undefined && Result.isSuccess(decoded)
        ? Option.getOrUndefined(decodeId(new TextDecoder().decode(decoded.success)))
        : undefined
      return { _tag: "Request", replica: replicaOf, stream, call: kind.startsWith("c"), id }
    }
  }
}

/** What the model reads when the replica serving its call went away. */
export const LOST_TEXT =
  "The gateway replica serving this call went away before it answered (its stream was cut), so " +
  "the call may or may not have run upstream. Nothing was retried; call again if it is safe to."

/**
 * The answer to a request whose stream was cut on another replica: a tool call gets an `isError` result (the model
 * reads why, as it does when an upstream dies mid-call), any other request a JSON-RPC error.
 */
export const lost = (named: Extract<Named, { readonly _tag: "Request" }>): Record<string, unknown> | undefined => {
  if (named.id === undefined) return undefined
  return named.call
    ? Rpc.resultMessage(named.id, { content: [{ type: "text", text: LOST_TEXT }], isError: true })
    : Rpc.errorMessage(named.id, Rpc.error(Rpc.INTERNAL_ERROR, LOST_TEXT, { reason: "replica-lost" }))
}

/**
 * The answer to give on a `GET` whose `Last-Event-ID` names a request's stream of another replica (one that died, or
 * this one before a restart: its tag is new at each start), with the request it answers (its stream is named for it
 * again); or `undefined` when the header names no such stream (no header, a `GET` stream's id, an id that is not
 * ours, one of this replica's own streams: resuming those is left to the stream's own replica, its `Replay`).
 */
export const resumedElsewhere = (
  ids: EventIds,
  lastEventId: string | undefined
): { readonly request: Request; readonly message: Record<string, unknown> } | undefined => {
  if (lastEventId === undefined) return undefined
  const named = ids.parse(lastEventId)
  if (named === undefined || named._tag !== "Request" || named.replica === ids.replica) return undefined
  const message = lost(named)
  return message === undefined || named.id === undefined
    ? undefined
    : { request: { id: named.id, call: named.call }, message }
}

/** A relayed answer meant for `replica`, decoded: the session, the request's id and the outcome; else `undefined`. */
export const relayedAnswer = (
  message: unknown,
  replica: string
):
  | {
    readonly sid: string
    readonly id: string | number
    readonly outcome: { readonly result: unknown } | { readonly error: Rpc.RpcError }
  }
  | undefined =>
{
  if (!Rpc.isRecord(message) || message["to"] !== replica || typeof message["sid"] !== "string") return undefined
  const id = message["id"]
  const outcome = message["outcome"]
  if ((typeof id !== "string" && typeof id !== "number") || !Rpc.isRecord(outcome)) return undefined
  if ("result" in outcome) return { sid: message["sid"], id, outcome: { result: outcome["result"] } }
  const error = outcome["error"]
  if (!Rpc.isRecord(error) || typeof error["code"] !== "number" || typeof error["message"] !== "string") {
    return undefined
  }
  return { sid: message["sid"], id, outcome: { error: Rpc.error(error["code"], error["message"], error["data"]) } }
}
