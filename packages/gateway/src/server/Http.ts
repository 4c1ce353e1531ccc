/**
 * The gateway over Streamable HTTP: one endpoint (`/mcp`, and `/mcp/<profile>`) for both eras, plus `/healthz`,
 * `/readyz` and the status page's routes (`status/StatusRoutes.ts`), served by Effect's `HttpServer` (the application
 * brings the platform's, e.g. `NodeHttpServer`).
 *
 * - **Every request** first passes the checks in front: `Host` must name a loopback host (or an allowed one),
 *   `Origin`, when sent, a loopback origin (or an allowed one) — DNS rebinding —, then the bearer token when tokens
 *   are configured (constant-time compare); the status page's routes take the page's cookie instead. Bodies over
 *   `maxMessageBytes` are refused (413).
 * - **2025 era**: `initialize` opens a session (`Mcp-Session-Id`; at most `maxSessions`, the least recently used idle
 *   one closed to make room), `GET` opens its stream (what belongs to no request: list changes, resource updates,
 *   log entries, and requests to the host when the call's stream is gone), `DELETE` ends it; an unknown session is 404.
 * - **2026-07-28**: each request stands alone; its envelope and standard headers are checked first (400 with the
 *   era's error codes), `subscriptions/listen` is a stream.
 * - **Answers**: a request is answered with one JSON body, unless something related to it (progress, a log entry, a
 *   request to the host) comes before its result; then the answer is an SSE stream that ends with the result (in
 *   the 2025 era primed and numbered, SEP-1699).
 *
 * @internal
 */
import { Wire } from "@mcp-fleet/transport"
import * as ByteSize from "effect/ByteSize"
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as PrometheusMetrics from "effect/observability/PrometheusMetrics"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Relay } from "../internal/relay.ts"
import type * as SessionSeal from "../SessionSeal.ts"
import * as StatusRoutes from "../status/StatusRoutes.ts"
import type { Engine } from "./Engine.ts"
import { LEGACY_VERSIONS } from "./Engine.ts"
import type { Host } from "./Host.ts"
import * as HostModule from "./Host.ts"
import * as Incoming from "./Incoming.ts"
import * as Modern from "./Modern.ts"
import * as Replay from "./Replay.ts"
import * as Rpc from "./Rpc.ts"
import * as Sealed from "./Sealed.ts"

/** One 2025-era session (on this replica: with sealed ids, the same session may be served by others too). */
interface Session {
  /** The key in the table: the `Mcp-Session-Id` itself, or with sealed ids the session's `sid`. */
  readonly id: string
  readonly host: Host
  /** Its SSE streams, kept for `Last-Event-ID` (`Replay`). */
  readonly streams: Replay.Streams
  /** Its `GET` stream (what belongs to no request), once one was opened. */
  standalone: Replay.Resumable | undefined
  lastUsed: number
  /** With sealed ids: the id last opened for this session, and what it held. */
  opened: { readonly id: string; readonly opened: SessionSeal.Opened } | undefined
}

/** What a request's answer is made of: messages tied to it, then its response. */
interface Item {
  readonly final: boolean
  readonly message: Record<string, unknown>
  readonly error: Rpc.RpcError | undefined
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])
const encoder = new TextEncoder()

/** One SSE event of a message. */
const event = (message: Record<string, unknown>) =>
  encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`)

/** What a session keeps for resumption: its last 16 streams, the last 256 events of each. */
const REPLAY_LIMITS = { maxStreams: 16, maxEvents: 256 }

/**
 * How long a 2025-era request whose result has not come (nor anything related to it) is answered with nothing: then
 * its answer becomes a primed SSE stream, so that a long call can be resumed (`Last-Event-ID`: on this replica from
 * its `Replay`, on another one answered at once when this one has died). A quicker result is one JSON body.
 */
const PRIME_AFTER_MS = 1_000

const SSE_HEADERS = { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" }

/** The host name of a `Host` header (port dropped), lower-cased. */
const hostName = (value: string): string => {
  const host = value.trim().toLowerCase()
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1)
  const colon = host.indexOf(":")
  return colon === -1 ? host : host.slice(0, colon)
}

/** Compares two strings in time that does not depend on where they differ. */
const constantTimeEqual = (a: string, b: string): boolean => {
  let difference = a.length ^ b.length
  const length = Math.max(a.length, b.length)
  for (let i = 0; i < length; i++) difference |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return difference === 0
}

/** The HTTP status of a 2026-07-28 error answer (the era's rejections are 4xx; a handler's error is 200). */
const modernStatus = (error: Rpc.RpcError | undefined): number => {
  if (error === undefined) return 200
  switch (error.code) {
    case Rpc.METHOD_NOT_FOUND:
      return 404
    case Rpc.HEADER_MISMATCH:
    case Rpc.MISSING_CAPABILITY:
    case Rpc.UNSUPPORTED_VERSION:
    case Rpc.PARSE_ERROR:
    case Rpc.INVALID_REQUEST:
      return 400
    default:
      return 200
  }
}

const jsonResponse = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(JSON.stringify(body), { status, headers, contentType: "application/json" })

const errorResponse = (status: number, id: string | number | null, error: Rpc.RpcError) =>
  jsonResponse(Rpc.errorMessage(id, error), status)

/**
 * The HTTP application of the gateway: the handler of every request. `scope` owns the fibers that serve requests
 * (they may outlive the HTTP exchange that started them: a 2025-era call whose client went away still finishes).
 */
export const make = Effect.fnUntraced(function*(
  engine: Engine,
  seal?: SessionSeal.SessionSeal["Service"],
  relay?: Relay["Service"]
) {
  const outer = yield* Scope.Scope
  // Requests are served in a scope of their own, made now: it closes after the drain (finalizers run last in,
  // first out, and the drain is added later, by `McpGateway.layerHttp`), so closing the gateway waits for the calls
  // in flight instead of interrupting them first.
  const scope = yield* Scope.fork(outer, "parallel")
  yield* Scope.addFinalizerExit(outer, (exit) => Scope.close(scope, exit))
  const options = engine.options
  const sessions = new Map<string, Session>()
  engine.countSessions(() => sessions.size)
  let draining = false
  /** The fibers serving requests, until their answer is queued (the shutdown waits for them). */
  const answering = new Set<Fiber.Fiber<unknown, unknown>>()
  /** The event ids of this replica's SSE streams: they name it (a tag new at each start) and the request. */
  const ids = Sealed.eventIds(crypto.randomUUID().slice(0, 8))

  // ---------------------------------------------------------------------------------------------------------------
  // Sessions.

  const closeSession = (session: Session) =>
    Effect.gen(function*() {
      sessions.delete(session.id)
      session.streams.endAll()
      yield* engine.detach(session.host)
    })

  /** Idle: no GET stream attached, nothing in flight. */
  const idle = (session: Session) => session.standalone?.attached() !== true && session.host.inFlight.size === 0

  /** Room for one more session (the least recently used idle one closed); `false` when every slot is busy. */
  const makeRoom = Effect.fnUntraced(function*() {
    if (sessions.size < options.maxSessions) return true
    let oldest: Session | undefined
    for (const session of sessions.values()) {
      if (idle(session) && (oldest === undefined || session.lastUsed < oldest.lastUsed)) oldest = session
    }
    if (oldest === undefined) return false
    yield* closeSession(oldest)
    return true
  })

  /** Registers a session of `host` under `id` (its `Replay` streams empty: a session rebuilt here starts afresh). */
  const register = Effect.fnUntraced(function*(id: string, host: Host, opened: Session["opened"]) {
    const session: Session = {
      id,
      host,
      streams: Replay.make(REPLAY_LIMITS),
      standalone: undefined,
      lastUsed: yield* Clock.currentTimeMillis,
      opened
    }
    // The requests asked of the host name this replica, so that an answer reaching another one is relayed here.
    host.askPrefix = `fleet-${ids.replica}-`
    // Kept for a resuming GET even while none is attached; delivered now only when one is.
    host.push = (message) => {
      const standalone = session.standalone
      if (standalone === undefined) return false
      standalone.send(message)
      return standalone.attached()
    }
    sessions.set(id, session)
    return session
  })

  /** A new session, or `undefined` when every slot is busy. */
  const openSession = Effect.fnUntraced(function*(profile: string | undefined) {
    if (!(yield* makeRoom())) return undefined
    const id = crypto.randomUUID()
    return yield* register(
      id,
      HostModule.make({ id, era: "legacy", transport: "http", profile, protocolVersion: LEGACY_VERSIONS[0]! }),
      undefined
    )
  })

  /**
   * The session a request's `Mcp-Session-Id` names: `Unknown` (404) when there is none, `Full` (503) when a sealed
   * id must be served by a new local session and every slot is busy. With sealed ids, an id this replica has no
   * session for is opened and its host built from it (the session was opened on another replica, or this one forgot
   * it); a log level sealed into a newer id of the same session is applied.
   */
  const sessionFor = (id: string): Effect.Effect<Session | "Unknown" | "Full"> =>
    Effect.gen(function*() {
      if (seal === undefined) return sessions.get(id) ?? "Unknown"
      const opened = yield* Effect.option(seal.open(id))
      if (Option.isNone(opened)) return "Unknown"
      const local = sessions.get(opened.value.sid)
      if (local !== undefined) {
        if (local.opened?.id !== id) {
          local.opened = { id, opened: opened.value }
          local.host.logLevel = opened.value.state.logLevel
        }
        return local
      }
      if (!(yield* makeRoom())) return "Full"
      const session = yield* register(opened.value.sid, Sealed.hostOf(opened.value), { id, opened: opened.value })
      yield* engine.attach(session.host)
      return session
    })

  // ---------------------------------------------------------------------------------------------------------------
  // Answers to requests asked of a host: settled here, or relayed to the replica that asked (its tag is in the id).

  const ASKED_BY = /^fleet-([A-Za-z0-9_-]+)-\d+$/

  const answered = (session: Session, id: string | number, outcome: { result: unknown } | { error: Rpc.RpcError }) =>
    Effect.suspend(() => {
      if (engine.response(session.host, id, outcome)) return Effect.void
      const asker = typeof id === "string" ? ASKED_BY.exec(id)?.[1] : undefined
      if (relay === undefined || session.opened === undefined || asker === undefined || asker === ids.replica) {
        return Effect.void
      }
      return relay.publish({
        to: asker,
        sid: session.opened.opened.sid,
        id,
        outcome: "result" in outcome
          ? { result: outcome.result }
          : { error: { code: outcome.error.code, message: outcome.error.message, data: outcome.error.data } }
      })
    })

  if (relay !== undefined) {
    const next = yield* relay.subscribe.pipe(Scope.provide(scope))
    yield* Effect.gen(function*() {
      while (true) {
        const answer = Sealed.relayedAnswer(yield* next, ids.replica)
        const session = answer === undefined ? undefined : sessions.get(answer.sid)
        if (answer !== undefined && session !== undefined) engine.response(session.host, answer.id, answer.outcome)
      }
    }).pipe(Effect.forkIn(scope))
  }

  /** The answer for a request naming a session that `sessionFor` did not find. */
  const noSession = (found: "Unknown" | "Full", id: string | number | null) => {
    if (found === "Unknown") return errorResponse(404, id, Rpc.error(-32001, "Session not found"))
    engine.metrics.refused("sessions")
    return errorResponse(503, id, Rpc.error(Rpc.OVERLOADED, "Too many sessions are open; retry later."))
  }

  // Sessions unused for `sessionIdleMs` (no stream, nothing in flight) are closed.
  const sweepEvery = Math.max(1_000, Math.min(options.sessionIdleMs, 60_000))
  yield* Effect.gen(function*() {
    while (true) {
      yield* Effect.sleep(sweepEvery)
      const now = yield* Clock.currentTimeMillis
      for (const session of [...sessions.values()]) {
        if (idle(session) && now - session.lastUsed >= options.sessionIdleMs) yield* closeSession(session)
      }
    }
  }).pipe(Effect.forkIn(scope))

  // ---------------------------------------------------------------------------------------------------------------
  // Answers.

  /**
   * Serves one request and answers it: JSON when its result comes first, else an SSE stream (related messages, then
   * the result). `cancelOnClose`: the request is cancelled when the client goes away (2026-07-28).
   */
  const answer = (
    host: Host,
    id: string | number,
    method: string,
    params: unknown,
    streams: boolean,
    cancelOnClose: boolean,
    headers: Record<string, string>,
    replays?: Replay.Streams
  ) =>
    Effect.gen(function*() {
      if (host.inFlight.has(id)) {
        return errorResponse(400, id, Rpc.error(Rpc.INVALID_REQUEST, `Request id ${id} is already in use`))
      }
      if (host.inFlight.size >= options.maxInFlightPerHost) {
        engine.metrics.refused("in_flight")
        return errorResponse(429, id, Rpc.error(Rpc.OVERLOADED, "Too many requests in flight; retry later."))
      }
      const items = yield* Queue.unbounded<Item, Cause.Done>()
      const related = (message: Record<string, unknown>) =>
        streams ? Queue.offerUnsafe(items, { final: false, message, error: undefined }) : host.push(message)
      const exchange = Incoming.exchange(host, id, method, params, related)
      const fiber = yield* engine.request(exchange, params).pipe(
        Effect.exit,
        Effect.flatMap((exit) => Incoming.answer(id, exit)),
        Effect.flatMap(({ error, message }) => Queue.offer(items, { final: true, message, error })),
        // Cancelled (the host's notifications/cancelled, its session closed): no answer, and its stream ends.
        Effect.ensuring(Effect.sync(() => {
          host.inFlight.delete(id)
          Queue.endUnsafe(items)
        })),
        Effect.forkIn(scope)
      )
      host.inFlight.set(id, fiber)
      answering.add(fiber)
      fiber.addObserver(() => answering.delete(fiber))
      const cancel = cancelOnClose ? Fiber.interrupt(fiber) : Effect.void
      const untilFinal = Stream.fromQueue(items).pipe(Stream.takeUntil((item) => item.final))
      // A result that comes first is one JSON body; an SSE stream only once something related comes before it. A
      // primed stream for every 2025-era call cost 40 % more CPU per call (BENCHMARKS.md, issue 29). A 2025-era call
      // still running after PRIME_AFTER_MS gets its primed stream then, so that it can be resumed.
      const resumable = replays !== undefined && streams
      const take = Effect.option(Queue.take(items))
      const taken = yield* (resumable ? Effect.timeoutOption(take, PRIME_AFTER_MS) : Effect.asSome(take)).pipe(
        Effect.onInterrupt(() => cancel)
      )
      if (Option.isSome(taken) && Option.isNone(taken.value)) return HttpServerResponse.empty({ status: 202, headers })
      const first = Option.isSome(taken) ? taken.value : Option.none()
      const status = (error: Rpc.RpcError | undefined) => host.era === "modern" ? modernStatus(error) : 200
      if (Option.isSome(first) && first.value.final) {
        return jsonResponse(first.value.message, status(first.value.error), headers)
      }
      const all = Option.isSome(first) ? Stream.concat(Stream.succeed(first.value), untilFinal) : untilFinal
      if (replays !== undefined) {
        // 2025 era: the stream is primed (an event id and the retry delay, SEP-1699), its events numbered and kept:
        // the answer is written down even if the client went away, for the GET that resumes the stream. Its event
        // ids name this replica and the request, so that another replica can answer it if this one dies (`Sealed`).
        const resumable = replays.open(ids.stream({ id, call: method === "tools/call" }).prefix)
        const pump = yield* all.pipe(
          Stream.runForEach((item) => Effect.sync(() => resumable.send(item.message))),
          Effect.ensuring(Effect.sync(resumable.end)),
          Effect.forkIn(scope)
        )
        // The shutdown waits for it too: the answer reaches the stream before the session closes.
        answering.add(pump)
        pump.addObserver(() => answering.delete(pump))
        return HttpServerResponse.stream(resumable.body(undefined), {
          contentType: "text/event-stream",
          headers: { ...SSE_HEADERS, ...headers }
        })
      }
      return HttpServerResponse.stream(
        all.pipe(
          Stream.map((item) => event(item.message)),
          Stream.ensuring(cancel)
        ),
        { contentType: "text/event-stream", headers: { ...SSE_HEADERS, ...headers } }
      )
    })

  /** A stream of messages pushed to `queue` until the client goes away; `onClose` runs then. */
  const streamOf = (queue: Queue.Queue<Record<string, unknown>>, onClose: Effect.Effect<void>) =>
    HttpServerResponse.stream(Stream.fromQueue(queue).pipe(Stream.map(event), Stream.ensuring(onClose)), {
      contentType: "text/event-stream",
      headers: SSE_HEADERS
    })

  // ---------------------------------------------------------------------------------------------------------------
  // Sealed sessions: initialize and logging/setLevel are served to the end before they are answered, since their
  // answer carries the (new) sealed id: one JSON body (nothing related comes on their own stream).

  const initializeSealed = (
    seal: SessionSeal.SessionSeal["Service"],
    id: string | number,
    params: unknown,
    profile: string | undefined
  ) =>
    Effect.gen(function*() {
      // The handshake runs on a host of its own; the session is made from what it negotiated, once sealed.
      const handshake = HostModule.make({
        id: "initialize",
        era: "legacy",
        transport: "http",
        profile,
        protocolVersion: LEGACY_VERSIONS[0]!
      })
      const exit = yield* Effect.exit(
        engine.request(Incoming.exchange(handshake, id, "initialize", params, () => false), params)
      )
      const answered = yield* Incoming.answer(id, exit)
      if (answered.error !== undefined) return jsonResponse(answered.message, 200)
      const sealed = yield* Sealed.stateOf(handshake).pipe(Effect.flatMap(seal.seal), Effect.result)
      if (Result.isFailure(sealed)) {
        return errorResponse(400, id, Rpc.error(Rpc.INVALID_REQUEST, sealed.failure.message))
      }
      const opened = yield* seal.open(sealed.success).pipe(Effect.orDie) // just sealed with the current key
      if (!(yield* makeRoom())) return noSession("Full", id)
      // Attached at once: `notifications/initialized` may reach another replica (any replica attaches the session
      // it rebuilds), and a host opens its GET stream only once initialized anyway.
      const session = yield* register(opened.sid, Sealed.hostOf(opened), { id: sealed.success, opened })
      yield* engine.attach(session.host)
      return jsonResponse(answered.message, 200, { "mcp-session-id": sealed.success })
    })

  const setLevelSealed = (
    seal: SessionSeal.SessionSeal["Service"],
    session: Session,
    id: string | number,
    params: unknown
  ) =>
    Effect.gen(function*() {
      const host = session.host
      const exit = yield* Effect.exit(
        engine.request(Incoming.exchange(host, id, "logging/setLevel", params, host.push), params)
      )
      const answered = yield* Incoming.answer(id, exit)
      const before = session.opened
      if (answered.error !== undefined || before === undefined) return jsonResponse(answered.message, 200)
      // The level is sealed into a new id (same session, same expiry): hosts that take it keep it on every replica.
      const resealed = yield* Sealed.stateOf(host).pipe(
        Effect.flatMap((state) => seal.reseal(before.opened, state)),
        Effect.option
      )
      if (Option.isNone(resealed)) return jsonResponse(answered.message, 200)
      const opened = yield* Effect.option(seal.open(resealed.value))
      if (Option.isSome(opened)) session.opened = { id: resealed.value, opened: opened.value }
      return jsonResponse(answered.message, 200, { "mcp-session-id": resealed.value })
    })

  // ---------------------------------------------------------------------------------------------------------------
  // The checks in front.

  const refuse = (request: HttpServerRequest.HttpServerRequest): HttpServerResponse.HttpServerResponse | undefined => {
    const host = request.headers["host"]
    if (host !== undefined && !LOOPBACK.has(hostName(host)) && !options.allowedHosts.includes(hostName(host))) {
      return HttpServerResponse.text("Forbidden: the Host header does not name this server", { status: 403 })
    }
    const origin = request.headers["origin"]
    if (origin !== undefined && !options.allowedOrigins.includes(origin)) {
      const parsed = URL.canParse(origin) ? new URL(origin) : undefined
      if (parsed === undefined || !LOOPBACK.has(parsed.hostname.toLowerCase())) {
        return HttpServerResponse.text("Forbidden: the Origin is not allowed", { status: 403 })
      }
    }
    return undefined
  }

  /** The configured token the request presents (`Authorization: Bearer …`), if any; every one is compared. */
  const bearer = (request: HttpServerRequest.HttpServerRequest): Redacted.Redacted<string> | undefined => {
    const authorization = request.headers["authorization"] ?? ""
    const presented = authorization.startsWith("Bearer ") ? authorization.slice(7).trim() : ""
    let matched: Redacted.Redacted<string> | undefined
    for (const token of options.tokens) {
      if (constantTimeEqual(presented, Redacted.value(token))) matched ??= token
    }
    return matched
  }

  const status = options.statusPage ? yield* StatusRoutes.make(engine, options.tokens) : undefined

  // ---------------------------------------------------------------------------------------------------------------
  // The endpoint.

  const post = (request: HttpServerRequest.HttpServerRequest, profile: string | undefined) =>
    Effect.gen(function*() {
      const contentType = request.headers["content-type"] ?? ""
      if (!contentType.toLowerCase().includes("application/json")) {
        return HttpServerResponse.text("Unsupported Media Type: send application/json", { status: 415 })
      }
      const accept = (request.headers["accept"] ?? "").toLowerCase()
      const streams = accept === "" || accept.includes("text/event-stream") || accept.includes("*/*")
      const body = yield* request.text.pipe(
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.fromInputUnsafe(options.maxMessageBytes)),
        Effect.option
      )
      if (Option.isNone(body)) {
        engine.metrics.refused("size")
        return errorResponse(
          413,
          null,
          Rpc.error(Rpc.INVALID_REQUEST, `The body is over the gateway's limit of ${options.maxMessageBytes} bytes`)
        )
      }
      const message = Wire.classify(body.value)
      if (message._tag === "NotJson") return errorResponse(400, null, Incoming.malformed(message.reason, true))
      if (message._tag === "Invalid") {
        return errorResponse(400, message.id ?? null, Incoming.malformed(message.reason, false))
      }
      const header = (name: string) => request.headers[name]
      const sessionId = header("mcp-session-id")
      const versionHeader = header("mcp-protocol-version")?.trim()

      if (message._tag === "Request" || message._tag === "Notification") {
        const claimed = Modern.claimedVersion(message.params)
        const modern = claimed !== undefined ||
          (sessionId === undefined && versionHeader !== undefined && Modern.isModernVersion(versionHeader))
        if (modern) {
          const id = message._tag === "Request" ? message.id : null
          if (claimed !== undefined && versionHeader !== undefined && versionHeader !== claimed) {
            return errorResponse(
              400,
              id,
              Rpc.error(
                Rpc.HEADER_MISMATCH,
                `Bad Request: the request headers and body disagree: MCP-Protocol-Version is ${versionHeader}, the body says ${claimed}`,
                { mismatch: { header: versionHeader, body: claimed } }
              )
            )
          }
          if (claimed === undefined && versionHeader !== undefined && !Modern.SUPPORTED.includes(versionHeader)) {
            return errorResponse(400, id, Modern.unsupported(versionHeader))
          }
          const envelope = Modern.envelope(message.params)
          if (envelope instanceof Rpc.RpcError) return errorResponse(400, id, envelope)
          const host = Incoming.modernHost(envelope, { transport: "http", profile })
          const inputSchema = message.method === "tools/call"
            ? engine.toolInputSchema(host, Rpc.isRecord(message.params) ? message.params["name"] : undefined)
            : undefined
          const mismatch = Modern.checkHeaders(
            header,
            message.method,
            message.params,
            envelope.protocolVersion,
            inputSchema
          )
          if (mismatch !== undefined) return errorResponse(400, id, mismatch)
          if (message._tag === "Notification") {
            yield* engine.notification(host, message.method, message.params)
            return HttpServerResponse.empty({ status: 202 })
          }
          if (draining) {
            engine.metrics.refused("shutting_down")
            return errorResponse(503, message.id, Rpc.error(Rpc.OVERLOADED, "The gateway is shutting down."))
          }
          if (message.method === "subscriptions/listen") {
            const queue = yield* Queue.unbounded<Record<string, unknown>>()
            const exchange = Incoming.exchange(host, message.id, message.method, message.params, (m) =>
              Queue.offerUnsafe(queue, m))
            const fiber = yield* engine.listen(exchange, message.params, (m) =>
              Queue.offerUnsafe(queue, m)).pipe(
                Effect.catch((error) =>
                  Queue.offer(queue, Rpc.errorMessage(message.id, error))
                ),
                Effect.forkIn(scope)
              )
            return streamOf(queue, Fiber.interrupt(fiber))
          }
          return yield* answer(host, message.id, message.method, message.params, streams, true, {})
        }
      }

      // The 2025 era.
      if (versionHeader !== undefined && !LEGACY_VERSIONS.includes(versionHeader)) {
        return errorResponse(
          400,
          message._tag === "Request" ? message.id : null,
          Rpc.error(Rpc.INVALID_REQUEST, `Unsupported MCP-Protocol-Version: ${versionHeader}`)
        )
      }
      if (message._tag === "Request" && message.method === "initialize") {
        if (sessionId !== undefined) {
          return errorResponse(400, message.id, Rpc.error(Rpc.INVALID_REQUEST, "This session is already initialized"))
        }
        if (draining) {
          engine.metrics.refused("shutting_down")
          return errorResponse(503, message.id, Rpc.error(Rpc.OVERLOADED, "The gateway is shutting down."))
        }
        if (seal !== undefined) {
          return yield* initializeSealed(seal, message.id, message.params, profile)
        }
        const session = yield* openSession(profile)
        if (session === undefined) {
          engine.metrics.refused("sessions")
          return errorResponse(503, message.id, Rpc.error(Rpc.OVERLOADED, "Too many sessions are open; retry later."))
        }
        return yield* answer(session.host, message.id, message.method, message.params, streams, false, {
          "mcp-session-id": session.id
        }, session.streams)
      }
      if (sessionId === undefined) {
        return errorResponse(
          400,
          message._tag === "Request" ? message.id : null,
          Rpc.error(Rpc.INVALID_REQUEST, "Bad Request: no Mcp-Session-Id (send initialize first)")
        )
      }
      const session = yield* sessionFor(sessionId)
      if (typeof session === "string") {
        return noSession(session, message._tag === "Request" ? message.id : null)
      }
      session.lastUsed = yield* Clock.currentTimeMillis
      const host = session.host
      switch (message._tag) {
        case "Request":
          if (seal !== undefined && session.opened !== undefined && message.method === "logging/setLevel") {
            return yield* setLevelSealed(seal, session, message.id, message.params)
          }
          return yield* answer(host, message.id, message.method, message.params, streams, false, {}, session.streams)
        case "Notification":
          yield* engine.notification(host, message.method, message.params)
          if (message.method === "notifications/initialized") {
            yield* engine.attach(host)
          }
          return HttpServerResponse.empty({ status: 202 })
        case "Result":
          yield* answered(session, message.id, { result: message.result })
          return HttpServerResponse.empty({ status: 202 })
        case "Error":
          if (message.id !== null) {
            yield* answered(session, message.id, {
              error: Rpc.error(message.code, message.message, message.hasData ? message.data : undefined)
            })
          }
          return HttpServerResponse.empty({ status: 202 })
      }
    })

  const get = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      const sessionId = request.headers["mcp-session-id"]
      if (sessionId === undefined) {
        return HttpServerResponse.text("Bad Request: GET opens a session's stream; send Mcp-Session-Id", {
          status: 405,
          headers: { allow: "POST, DELETE" }
        })
      }
      const session = yield* sessionFor(sessionId)
      if (typeof session === "string") return noSession(session, null)
      session.lastUsed = yield* Clock.currentTimeMillis
      const touch = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => (session.lastUsed = now)))
      const sse = (body: Stream.Stream<Uint8Array>) =>
        HttpServerResponse.stream(body.pipe(Stream.ensuring(touch)), {
          contentType: "text/event-stream",
          headers: SSE_HEADERS
        })
      // A resumption (SEP-1699): the events after the one named, then the rest of that stream (a POST's answer, or
      // the session's GET stream).
      const lastEventId = request.headers["last-event-id"]
      const resumed = lastEventId === undefined ? undefined : session.streams.find(lastEventId)
      if (resumed !== undefined) return sse(resumed.stream.body(resumed.after))
      // A request's stream of another replica resumed here (the replica that held it is gone): answered at once, on
      // a stream named for that request again (resumable here, or answered again by another replica).
      const lost = Sealed.resumedElsewhere(ids, lastEventId)
      if (lost !== undefined) {
        const answer = session.streams.open(ids.stream(lost.request).prefix)
        answer.send(lost.message)
        answer.end()
        return sse(answer.body(undefined))
      }
      if (session.standalone?.attached() === true) {
        return HttpServerResponse.text("Conflict: this session's stream is already open", { status: 409 })
      }
      // A new GET stream (what the previous one held and was not resumed is not replayed on it).
      session.standalone?.end()
      session.standalone = session.streams.open(ids.stream(undefined).prefix)
      return sse(session.standalone.body(undefined))
    })

  const del = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      const sessionId = request.headers["mcp-session-id"]
      if (sessionId === undefined) {
        return HttpServerResponse.text("Method Not Allowed without Mcp-Session-Id", {
          status: 405,
          headers: { allow: "POST" }
        })
      }
      const session = yield* sessionFor(sessionId)
      if (typeof session === "string") return noSession(session, null)
      yield* closeSession(session)
      return HttpServerResponse.empty({ status: 200 })
    })

  /** The handler of every HTTP request. */
  const handle: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = request.url.split("?")[0] ?? "/"
      const refused = refuse(request)
      if (refused !== undefined) return refused
      const token = bearer(request)
      // The status page (`status/StatusRoutes.ts`): its own paths, signed in by the token or the page's cookie.
      const page = status?.handle(request, path, token)
      if (page !== undefined) return yield* page
      if (options.tokens.length > 0 && token === undefined) {
        return HttpServerResponse.text("Unauthorized", {
          status: 401,
          headers: { "www-authenticate": "Bearer realm=\"mcp-fleet\"" }
        })
      }
      if (path === "/healthz") return HttpServerResponse.text("ok\n")
      if (path === "/metrics" && options.metrics) {
        return HttpServerResponse.text(yield* PrometheusMetrics.format(), {
          contentType: "text/plain; version=0.0.4; charset=utf-8"
        })
      }
      if (path === "/readyz") {
        return engine.ready() && !draining
          ? HttpServerResponse.text(`${engine.status()}\n`)
          : HttpServerResponse.text(`${engine.status()}\n`, { status: 503 })
      }
      const match = /^\/mcp(?:\/([^/]+))?\/?$/.exec(path)
      if (match === null) return HttpServerResponse.text("Not Found", { status: 404 })
      const profile = match[1] === undefined ? undefined : decodeURIComponent(match[1])
      if (profile !== undefined && !engine.hasProfile(profile)) {
        return HttpServerResponse.text(`Not Found: no profile ${profile}`, { status: 404 })
      }
      switch (request.method) {
        case "POST":
          return yield* post(request, profile)
        case "GET":
          return yield* get(request)
        case "DELETE":
          return yield* del(request)
        default:
          return HttpServerResponse.empty({ status: 405, headers: { allow: "GET, POST, DELETE" } })
      }
    })

  /** Stop taking new work; then the engine drains. Sessions are closed. */
  const shutdown = Effect.gen(function*() {
    draining = true
    yield* engine.drain
    // A call that finished upstream is still being answered: its answer is queued before its session is closed.
    yield* Effect.ignore(Effect.timeout(Fiber.awaitAll([...answering]), options.drainMs))
    yield* Effect.forEach([...sessions.values()], closeSession, { discard: true })
  })

  /** Ends the status page's event streams (they would hold the server's graceful close). */
  const closeStreams = status?.close ?? Effect.void

  return { handle, shutdown, closeStreams, sessions: () => sessions.size }
})
