/**
 * What differs between MCP's two eras, held in one value per era: `legacy` (every revision up to 2025-11-25) and
 * `modern` (2026-07-28). The session chooses one with `of` each time a handshake succeeds (the era probe's answer)
 * and asks it, never the protocol version, how to act:
 *
 * - **requests:** legacy sends them as they are; modern adds the era's `_meta`, its HTTP headers (`Mcp-Method`,
 *   `Mcp-Name`, `Mcp-Param-*`), answers `input_required` rounds and re-issues a request whose stream broke
 *   (`ModernRequest`);
 * - **list endings:** legacy ends a list on an absent or `""` `nextCursor` (several real stacks send `""` on the
 *   last page); modern only on an absent one (`""` is an opaque cursor like any other);
 * - **tool headers:** over modern HTTP, a listed tool whose `x-mcp-header` annotations break a rule is skipped, and
 *   the designated parameters of the others are kept for their calls;
 * - **listen and subscriptions:** modern opens `subscriptions/listen` and subscribes to resources through it;
 *   legacy has no listen (its list changes arrive unsolicited) and subscribes with `resources/subscribe`;
 * - **tasks:** legacy asks for a task in `tools/call` and reads it back with `tasks/get` and `tasks/result`
 *   (`LegacyTasks`); modern declares the tasks extension on every request, lets the server decide, and reads the
 *   result inline from `tasks/get` (`ModernTasks`).
 *
 * Nothing outside this module compares eras or protocol versions.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { RequestOptions } from "../internal/PendingTable.ts"
import type { ProtocolError, RequestError } from "../McpError.ts"
import type { Era as EraName, ServerSession } from "../Protocol.ts"
import { MODERN_PROTOCOL_VERSION } from "../Protocol.ts"
import * as Subscriptions from "../Subscriptions.ts"
import type { DiscoveredTool } from "../Tool.ts"
import * as ModernHeaders from "../wire/http/ModernHeaders.ts"
import type { Conduct } from "../wire/Transport.ts"
import * as LegacyTasks from "./LegacyTasks.ts"
import type * as Listen from "./Listen.ts"
import * as Meta from "./Meta.ts"
import * as ModernRequest from "./ModernRequest.ts"
import * as ModernTasks from "./ModernTasks.ts"
import type * as Mrtr from "./Mrtr.ts"
import type { TaskProtocol } from "./TaskProtocol.ts"

/** One request's settings, as the calls give them. */
export type Settings = Pick<RequestOptions, "timeoutMs" | "cancellable" | "progress"> & {
  /** 2026-07-28: `return` hands an `input_required` result back as it came (a gateway relays it); default `answer`. */
  readonly inputRequired?: "answer" | "return" | undefined
}

/** A check `tools/list` applies to each listed tool (the reason it is skipped), and what follows a whole list. */
export interface ToolCheck {
  readonly check: (tool: DiscoveredTool) => string | undefined
  readonly done: () => void
}

/** One era's behaviour, bound to a session. */
export interface Era {
  /** The era's name, as the era cache keeps it. */
  readonly name: EraName
  /** How the era uses the wire (told to it with the negotiated version). */
  readonly conduct: Conduct
  /** Sends one request the era's way. */
  readonly request: (method: string, params: unknown, settings: Settings) => Effect.Effect<unknown, RequestError>
  /** Whether a page whose `nextCursor` is `next` is the last one. */
  readonly endsList: (next: string | undefined) => next is undefined | ""
  /** The check of a `tools/list`, or `undefined`: every decoded tool is kept. */
  readonly toolCheck: () => ToolCheck | undefined
  /** Opens `subscriptions/listen` in the current scope, or fails with why the era has none. */
  readonly listen: (
    filter: Subscriptions.Filter,
    ackTimeoutMs: number
  ) => Effect.Effect<Subscriptions.Listening, Subscriptions.ListenFailed, Scope.Scope>
  /** Subscribes to (`on`) or unsubscribes from a resource through the listen, or `undefined`: a request does it. */
  readonly subscription: (uri: string, on: boolean) => Effect.Effect<void, ProtocolError> | undefined
  /** How the era runs tasks. */
  readonly tasks: TaskProtocol
}

/** What the eras need of their session. */
export interface Parts {
  readonly server: string
  /** The session's plain request path (the pending table; traced when telemetry is on). */
  readonly send: (method: string, params: unknown, options: RequestOptions) => Effect.Effect<unknown, RequestError>
  /** The pending table's own request path (modern requests go straight to it). */
  readonly pending: (method: string, params: unknown, options: RequestOptions) => Effect.Effect<unknown, RequestError>
  /** What every modern request's `_meta` says about the client. */
  readonly client: Meta.ClientMeta
  /** Whether requests go over HTTP (then modern ones carry the era's headers). */
  readonly http: () => boolean
  /** The session's one listener (its resource subscriptions outlive a renewed session). */
  readonly listener: Listen.Listener
  /** The designated header parameters of each tool of the last modern HTTP listing, by name. */
  readonly toolHeaders: Map<string, ReadonlyArray<ModernHeaders.HeaderParameter>>
  /** Answers a modern server's input requests (`input_required`). */
  readonly answer: Mrtr.Answer | undefined
  readonly maxRounds: number
  /** The session's clock, in milliseconds (a call's deadline across re-issues). */
  readonly now: () => number
  /** The session's redactor: server text (`text`) and values (`value`) with the secrets replaced. */
  readonly scrub: (text: string) => string
  readonly scrubValue: (value: unknown) => unknown
}

/**
 * How the legacy era uses the wire: streams are resumed, requests are cancelled with `notifications/cancelled`.
 *
 * @internal
 */
export const legacyConduct: Conduct = { resumesStreams: true, cancelsByAbort: false }

/** How the modern era uses the wire: no resumption (a broken request is re-issued), cancellation by abort. */
const modernConduct: Conduct = { resumesStreams: false, cancelsByAbort: true }

const legacyEnd = (next: string | undefined): next is undefined | "" => next === undefined || next === ""
const modernEnd = (next: string | undefined): next is undefined => next === undefined

/**
 * The legacy era (up to 2025-11-25) at `protocolVersion`.
 *
 * @internal
 */
export const legacy = (parts: Parts, protocolVersion: string): Era => ({
  name: "legacy",
  conduct: legacyConduct,
  request: parts.send,
  endsList: legacyEnd,
  toolCheck: () => undefined,
  listen: () =>
    Effect.fail(
      new Subscriptions.ListenFailed({
        server: parts.server,
        reason: "legacy",
        detail: `it speaks ${protocolVersion}, whose list changes arrive unsolicited`
      })
    ),
  subscription: () => undefined,
  tasks: LegacyTasks.make(parts)
})

/**
 * The modern era (2026-07-28) at `protocolVersion`.
 *
 * @internal
 */
export const modern = (parts: Parts, protocolVersion: string): Era => {
  // Every request declares the tasks extension: the server may answer a tools/call with a task, which is followed.
  const client = { ...parts.client, capabilities: ModernTasks.declare(parts.client.capabilities) }
  const send = ModernRequest.make({
    server: parts.server,
    client,
    get http() {
      return parts.http()
    },
    toolHeaders: (tool) => parts.toolHeaders.get(tool),
    answer: parts.answer,
    maxRounds: parts.maxRounds,
    send: parts.pending,
    now: parts.now
  })
  return {
    name: "modern",
    conduct: modernConduct,
    request: (method, params, settings) => send(protocolVersion, method, params, settings),
    endsList: modernEnd,
    // Over modern HTTP, a tool whose x-mcp-header annotations break a rule cannot be called: it is skipped.
    toolCheck: () => {
      if (!parts.http()) return undefined
      const headers = new Map<string, ReadonlyArray<ModernHeaders.HeaderParameter>>()
      return {
        check: (tool) => {
          const read = ModernHeaders.annotations(tool.inputSchema)
          if (read._tag === "Invalid") return read.rule
          headers.set(tool.name, read.parameters)
          return undefined
        },
        done: () => {
          parts.toolHeaders.clear()
          for (const [name, parameters] of headers) parts.toolHeaders.set(name, parameters)
        }
      }
    },
    listen: (filter, ackTimeoutMs) => parts.listener.open(filter, ackTimeoutMs),
    subscription: (uri, on) => parts.listener.subscription(uri, on),
    tasks: ModernTasks.make({
      server: parts.server,
      protocolVersion,
      capabilities: client.capabilities,
      answer: parts.answer,
      scrub: parts.scrub,
      scrubValue: parts.scrubValue
    })
  }
}

/**
 * The era the handshake chose for `session`.
 *
 * @internal
 */
export const of = (session: ServerSession, parts: Parts): Era =>
  session.era === "modern" ? modern(parts, session.protocolVersion) : legacy(parts, session.protocolVersion)

/**
 * How the listener sends `subscriptions/listen`: with the era's `_meta` and headers at the session's version, but
 * not `ModernRequest`'s re-issue of a broken stream (a dropped listen is its caller's to re-open, who re-lists once
 * the new one is acknowledged), and without a deadline (it stays open until its scope closes or it ends).
 *
 * @internal
 */
export const listenRequest = (
  pending: Parts["pending"],
  client: Meta.ClientMeta,
  http: () => boolean,
  protocolVersion: () => string | undefined
) =>
(params: unknown, onId: (id: number) => void): Effect.Effect<unknown, RequestError> => {
  const version = protocolVersion() ?? MODERN_PROTOCOL_VERSION
  const declared = { ...client, capabilities: ModernTasks.declare(client.capabilities) }
  const merged = Meta.merge(params, Meta.request(version, declared))
  const headers = http() ? ModernHeaders.forRequest("subscriptions/listen", merged, version, undefined) : undefined
  return pending("subscriptions/listen", merged, { timeoutMs: Infinity, cancellable: true, headers, onId })
}
