/**
 * One MCP session over any transport: what every transport shares.
 *
 * The session owns request ids and the pending table (deadlines, `notifications/cancelled`), the handshake and
 * readiness, `ErrIndexBuilding`, the cursor loop, tool decoding, the notification stream and the counters. The
 * transport below it only moves messages (`transport/Transport.ts`).
 *
 * Readiness is one value (`Readiness`), moved in one place. An HTTP server that forgets the session makes the
 * session fail what is in flight with the retryable `SessionExpired` and initialize again once: calls made while
 * it does wait for it, and calls made after it work. A renewed session lost again before a request succeeded on it
 * is renewed on a backoff, then the session fails with `SessionsForgotten` (`SessionRenewal`).
 *
 * Its fibers run in a child scope of the caller's: closing is "signal, then close the scope".
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import type * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientHandlers from "./ClientHandlers.ts"
import { SessionExpired } from "./HttpError.ts"
import * as ByteCounter from "./internal/ByteCounter.ts"
import * as Calls from "./internal/Calls.ts"
import * as Dispatch from "./internal/Dispatch.ts"
import { EraCache } from "./internal/EraCache.ts"
import * as EraProbe from "./internal/EraProbe.ts"
import * as JsonRpc from "./internal/JsonRpc.ts"
import * as ListCache from "./internal/ListCache.ts"
import * as Listen from "./internal/Listen.ts"
import * as Meta from "./internal/Meta.ts"
import * as ModernRequest from "./internal/ModernRequest.ts"
import * as Mrtr from "./internal/Mrtr.ts"
import * as PendingTable from "./internal/PendingTable.ts"
import * as Publisher from "./internal/Publisher.ts"
import * as Redactor from "./internal/Redactor.ts"
import * as RequestSpan from "./internal/RequestSpan.ts"
import * as Scrub from "./internal/Scrub.ts"
import * as ServerRequest from "./internal/ServerRequest.ts"
import * as SessionMetric from "./internal/SessionMetric.ts"
import * as SessionRenewal from "./internal/SessionRenewal.ts"
import type { CallOptions, Stats, ToolList as ListedTools } from "./McpClient.ts"
import type { PageCapExceeded, ProcessExited, RepeatedCursor } from "./McpError.ts"
import type { ErrIndexBuilding, UnsupportedProtocolVersion } from "./McpError.ts"
import { ClientClosed, NotReady } from "./McpError.ts"
import { MODERN_PROTOCOL_VERSION } from "./Protocol.ts"
import type { CallToolResult, ProtocolChoice, ServerNotification, ServerSession } from "./Protocol.ts"
import type { FeatureOptions } from "./session/Context.ts"
import * as Features from "./session/Features.ts"
import * as Logging from "./session/Logging.ts"
import * as Progress from "./session/Progress.ts"
import * as Subscriptions from "./Subscriptions.ts"
import { McpTelemetry } from "./Telemetry.ts"
import * as ModernHeaders from "./transport/http/ModernHeaders.ts"
import type * as Transport from "./transport/Transport.ts"
import * as TypedCall from "./TypedCall.ts"

/**
 * What a request can fail with over any transport.
 *
 * @since 0.2.0
 * @category errors
 */
export type RequestError = PendingTable.RequestError

/**
 * Errors of the handshake, seen by `awaitReady`.
 *
 * @since 0.2.0
 * @category errors
 */
export type InitializeError = RequestError | UnsupportedProtocolVersion

/**
 * @since 0.2.0
 * @category errors
 */
export type ListToolsError = InitializeError | NotReady | PageCapExceeded | RepeatedCursor

/**
 * @since 0.2.0
 * @category errors
 */
export type CallToolError = InitializeError | ErrIndexBuilding

/**
 * Where the session is. `Renewing`: the server forgot the session and the handshake runs again.
 *
 * @since 0.2.0
 * @category models
 */
export type Readiness =
  | { readonly _tag: "Starting"; readonly done: Deferred.Deferred<ServerSession, InitializeError> }
  | { readonly _tag: "Ready"; readonly session: ServerSession }
  | {
    readonly _tag: "Renewing"
    readonly session: ServerSession
    readonly done: Deferred.Deferred<ServerSession, InitializeError>
  }
  | { readonly _tag: "Failed"; readonly error: InitializeError }
  | { readonly _tag: "Closed"; readonly error: ClientClosed | ProcessExited }

/**
 * The session's settings, resolved.
 *
 * @since 0.2.0
 * @category options
 */
export interface Config {
  readonly server: string
  readonly requestTimeoutMs: number
  /** Deadline of `initialize` (`Infinity`: none). */
  readonly initializeTimeoutMs: number
  readonly clientInfo: { readonly name: string; readonly version: string; readonly title?: string }
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly maxInFlight: number
  readonly maxPages: number
  readonly notificationBuffer: number
  readonly notificationReplay: number
  /** Secret values (credentials) removed from whatever server text goes into errors and logs. */
  readonly secrets: ReadonlyArray<string>
  /** The server's URL, redacted, for remote servers. */
  readonly url?: string | undefined
  /** How the era is chosen (`auto`: `server/discover` first, `initialize` as the fallback). Default `auto`. */
  readonly protocol?: ProtocolChoice | undefined
  /** Deadline of the `server/discover` probe under `auto`. Default 5 seconds. */
  readonly probeTimeoutMs?: number | undefined
  /** The key under which the era is cached for the program's life (a remote endpoint); none: no cache. */
  readonly eraKey?: string | undefined
  /** The log level sent as `_meta["io.modelcontextprotocol/logLevel"]` on modern requests, when set. */
  readonly logLevel?: string | undefined
  /** Answers a modern server's input requests (`input_required`) from the client's handlers. */
  readonly answerInput?: Mrtr.Answer | undefined
  /** Most `input_required` rounds per call. Default 8. */
  readonly maxInputRounds?: number | undefined
  /** What answers the server's requests; their presence adds to the declared `capabilities`. */
  readonly handlers?: ClientHandlers.ClientHandlers | undefined
  /** How many `notifications/message` entries become log entries (default `Logging.DEFAULT_RATE_LIMIT`). */
  readonly logRateLimit?: Logging.RateLimit | undefined
  /**
   * The delays between renewals of HTTP sessions the server lost before a request succeeded on them; when it ends,
   * the session fails with `SessionsForgotten`. Default `SessionRenewal.DEFAULT_SCHEDULE` (250 ms, 500 ms, 1 s).
   */
  readonly sessionRenewal?: Schedule.Schedule<unknown, unknown> | undefined
}

/**
 * A session's counters: the client's `Stats` plus how often the server lost the session.
 *
 * @since 0.2.0
 * @category models
 */
export interface SessionStats extends Stats {
  readonly sessionsLost: number
  readonly listCache: ListCache.Stats
}

/**
 * A live session.
 *
 * @since 0.2.0
 * @category models
 */
export interface McpSession extends Features.Features {
  readonly name: string
  /** The transport in use (after auto-detection: the one detected). */
  readonly transport: Transport.Kind
  /** The server's URL with its credentials redacted; `undefined` for stdio. */
  readonly url: string | undefined
  /**
   * Why the server's own stream (Streamable HTTP's GET) is not open, once the transport stopped opening it (the
   * server offers none, refused it, or it kept closing without a message): the server's unprompted messages do not
   * arrive then. `undefined` while it is open or being opened, and for stdio.
   */
  readonly serverStream: () => string | undefined
  /** Not closed and not ended. */
  readonly isAlive: () => boolean
  readonly isReady: () => boolean
  readonly readiness: () => Readiness
  /**
   * The latest readiness, then every change. A session loss shows as `Renewing` then `Ready`: a reconnection, not a
   * crash.
   */
  readonly readinessChanges: Stream.Stream<Readiness>
  readonly awaitReady: Effect.Effect<ServerSession, InitializeError>
  readonly session: () => Option.Option<ServerSession>
  readonly listTools: (options?: CallOptions) => Effect.Effect<ListedTools, ListToolsError>
  /** Calls a tool; `onProgress` gets each progress report, all of them before the result; `schema` decodes it. */
  readonly callTool: TypedCall.CallTool<CallToolError>
  /** `callTool` as a stream: each progress report, then the result. */
  readonly callToolStream: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: FeatureOptions
  ) => Stream.Stream<Progress.CallEvent<CallToolResult>, CallToolError>
  readonly ping: (options?: CallOptions) => Effect.Effect<void, RequestError>
  /** Any request, raw; readiness-gated as every method but `ping` is (`NotReady` before initialize is answered). */
  readonly request: (
    method: string,
    params?: unknown,
    options?: FeatureOptions
  ) => Effect.Effect<unknown, RequestError | NotReady | InitializeError>
  readonly notifications: Stream.Stream<ServerNotification>
  /** Opens `subscriptions/listen` for the life of the scope (modern era only); see `Subscriptions`. */
  readonly listen: (
    filter: Subscriptions.Filter,
    options?: CallOptions
  ) => Effect.Effect<Subscriptions.Listening, Subscriptions.ListenFailed | InitializeError | NotReady, Scope.Scope>
  readonly awaitTerminated: Effect.Effect<void>
  /** Fails what is pending, ends the transport (bounded) and joins every fiber. Idempotent. */
  readonly close: Effect.Effect<void>
  /** As `close`, but the transport is ended at once (`Transport.kill`: stdio SIGKILLs the process group). */
  readonly forceClose: Effect.Effect<void>
  readonly stats: () => SessionStats
}

/**
 * Opens a session over the transport `open` builds, and starts the handshake in the background.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = <R, E = never>(
  config: Config,
  open: (receiver: Transport.Receiver) => Effect.Effect<Transport.Transport, E, Scope.Scope | R>
): Effect.Effect<McpSession, E, Scope.Scope | R> =>
  Effect.map(makeOver(config, Effect.void, (receiver) => open(receiver)), (opened) => opened.session)

/**
 * As `make`, and also returns the transport `open` built, for a client that adds what only that transport has
 * (stdio: the pid, the stderr tail, the exit).
 *
 * `prepare` runs first, in the session's scope, before the session is built; its value goes to `open`. Stdio spawns
 * the server there, so the process starts while the session is set up (its release then runs after every fiber
 * of the session has been joined).
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeOver = <T extends Transport.Transport, R, P, E = never>(
  config: Config,
  prepare: Effect.Effect<P, E, Scope.Scope | R>,
  open: (receiver: Transport.Receiver, prepared: P) => Effect.Effect<T, E, Scope.Scope | R>
): Effect.Effect<{ readonly session: McpSession; readonly transport: T }, E, Scope.Scope | R> =>
  Effect.gen(function*() {
    const { server } = config
    const parent = yield* Scope.Scope
    const scope = yield* Scope.fork(parent)
    const prepared = yield* Scope.provide(prepare, scope).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
    const clock = yield* Clock.Clock
    const fibers = yield* Scope.provide(FiberSet.make(), scope)
    const run = yield* FiberSet.runtime(fibers)()
    const notifications = yield* PubSub.sliding<ServerNotification>({
      capacity: config.notificationBuffer,
      replay: Math.min(config.notificationReplay, config.notificationBuffer)
    })
    const changes = yield* PubSub.sliding<Readiness>({ capacity: 16, replay: 1 })
    const logs = yield* Queue.sliding<readonly [level: "warning" | "debug", text: string]>(64)
    const redactor = Redactor.make(config.secrets)
    const scrub = redactor.text
    const counters = Dispatch.counters()
    let oversize = 0
    let sessionsLost = 0
    let state: Readiness = { _tag: "Starting", done: Deferred.makeUnsafe() }
    PubSub.publishUnsafe(changes, state)
    let transport: Transport.Transport | undefined
    let sendRequest = (
      id: number,
      method: string,
      text: string,
      headers: Readonly<Record<string, string>> | undefined
    ): void => transport?.send({ _tag: "Request", id, method, text, headers })
    let closing: Deferred.Deferred<void> | undefined
    let refused: ClientClosed | ProcessExited | undefined
    let ending = false
    let handshakeFiber: Fiber.Fiber<void> | undefined
    /** The child scope is closed: every fiber of the session and of its transport has been joined. */
    let scopeClosed = false
    const terminated = Deferred.makeUnsafe<void>()

    // Read once: untraced (the default), requests go to the pending table directly and no byte is counted.
    const telemetry = yield* McpTelemetry
    const bytes = telemetry.enabled ? ByteCounter.make(server, yield* Effect.context<never>()) : undefined
    const pending = PendingTable.make({
      server,
      maxInFlight: config.maxInFlight,
      clock,
      outlet: ByteCounter.outlet(bytes, {
        request: (id, method, text, headers) => sendRequest(id, method, text, headers),
        send: (frame) => transport?.send(frame),
        abandon: (id) => transport?.abandon(id)
      }),
      refusal: () => refused ?? transport?.refusal?.()
    })
    let established: string | undefined
    const send = !telemetry.enabled ? pending.request : RequestSpan.traced(pending.request, {
      server,
      transport: () => transport?.kind ?? "http",
      protocolVersion: () => established,
      sessionId: () => transport?.sessionId?.(),
      url: config.url,
      settings: telemetry,
      clock
    })

    const progress = Progress.router(pending, scrub)
    const serverLog = yield* Logging.make({
      server,
      clock,
      rate: config.logRateLimit ?? Logging.DEFAULT_RATE_LIMIT,
      scrub,
      scrubValue: redactor.value,
      excerpt: redactor.excerpt
    })

    const publisher = Publisher.make(notifications, config.notificationBuffer)

    // subscriptions/listen has no deadline: it stays open until its scope closes (the cancellation) or it ends.
    const listener = Listen.make({
      server,
      // The era's `_meta` and headers, but not ModernRequest's re-issue of a broken stream: a dropped listen is
      // the listener's caller's to re-open (it re-lists once the new one is acknowledged).
      send: (params, onId) => {
        const version = current()?.protocolVersion ?? MODERN_PROTOCOL_VERSION
        const merged = Meta.merge(params, Meta.request(version, clientMeta))
        const headers = isHttp()
          ? ModernHeaders.forRequest("subscriptions/listen", merged, version, undefined)
          : undefined
        return pending.request("subscriptions/listen", merged, {
          timeoutMs: Infinity,
          cancellable: true,
          headers,
          onId
        })
      }
    })
    // Lists kept for their `ttlMs` (2026-07-28); a list_changed drops its list before it is published.
    const lists = ListCache.group(Effect.suspend(() => transport?.authorizationContext ?? Effect.succeed(0)))
    const listCache = lists.cache<ListedTools>()
    const diagnose = (text: string) => Queue.offerUnsafe(logs, ["warning", scrub(text)])
    /** The capabilities declared (the handlers provided add theirs), and what answers a server's requests. */
    const capabilities = ClientHandlers.capabilities(config.handlers ?? {}, config.capabilities)
    // What every modern request's `_meta` says about the client (subscriptions/listen's included).
    const clientMeta = { clientInfo: config.clientInfo, capabilities, logLevel: config.logLevel }
    const answerer = config.handlers === undefined ? undefined : ServerRequest.make(config.handlers, server)
    const dispatch = Dispatch.make({
      server,
      pending,
      counters,
      publish: (notification) => {
        if (notification.method === "notifications/progress") progress.route(notification.params)
        else if (notification.method === "notifications/message") serverLog.route(notification.params)
        // The caches first: an acknowledgement resumes the listen's opener, whose next lists must be kept.
        lists.observe(notification.method)
        listener.observe(notification)
        publisher.publish(notification)
      },
      send: (frame) => transport?.send(frame),
      diagnose,
      note: (text) => Queue.offerUnsafe(logs, ["debug", text]),
      redactor,
      serve: answerer === undefined ? undefined : { answer: answerer, run }
    })

    /** The one place readiness moves; a waiting `done` is completed with the outcome. */
    const transitionTo = (next: Readiness) => {
      const previous = state
      state = next
      PubSub.publishUnsafe(changes, next)
      if (previous._tag !== "Starting" && previous._tag !== "Renewing") return
      if (next._tag === "Ready") Deferred.doneUnsafe(previous.done, Exit.succeed(next.session))
      else if (next._tag === "Failed" || next._tag === "Closed") {
        Deferred.doneUnsafe(previous.done, Exit.fail(next.error))
      }
    }

    const eraCache = yield* EraCache
    const isHttp = () => transport?.kind === "http"
    const renewal = SessionRenewal.make(server, config.sessionRenewal ?? SessionRenewal.DEFAULT_SCHEDULE)
    /** The handshake, after `before` (a renewal's wait, which may give up with `SessionsForgotten`). */
    const handshake = (before: Effect.Effect<void, InitializeError>) =>
      Effect.andThen(
        before,
        EraProbe.run(send, {
          server,
          clientInfo: config.clientInfo,
          capabilities,
          timeoutMs: config.initializeTimeoutMs,
          protocol: config.protocol ?? "auto",
          probeTimeoutMs: Math.min(
            config.probeTimeoutMs ?? EraProbe.DEFAULT_PROBE_TIMEOUT_MS,
            config.initializeTimeoutMs
          ),
          cached: config.eraKey === undefined ? undefined : eraCache.get(config.eraKey),
          headers: (method, version) =>
            isHttp() ? ModernHeaders.forRequest(method, undefined, version, undefined) : undefined,
          logLevel: config.logLevel
        }, (session) => {
          transport?.established(session.protocolVersion)
          established = session.protocolVersion
          transport?.send({
            _tag: "Notification",
            method: "notifications/initialized",
            text: "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
          })
        })
      ).pipe(
        Effect.matchEffect({
          onSuccess: (session) =>
            Effect.sync(() => {
              if (session.era === "modern") transport?.established(session.protocolVersion)
              if (config.eraKey !== undefined) eraCache.set(config.eraKey, session.era ?? "legacy")
              if (state._tag === "Closed") return
              const instructions = session.instructions === undefined ? undefined : scrub(session.instructions)
              transitionTo({ _tag: "Ready", session: { ...session, instructions } })
            }),
          onFailure: (raw) =>
            Effect.suspend(() => {
              if (state._tag === "Closed") return Effect.void
              const error = Scrub.initializeFailure(scrub, raw)
              // A failed handshake (first or renewed) is terminal: the session ends, with `Failed` kept as why. It is
              // marked ending before readiness settles, so whoever sees `awaitReady` fail also sees `isAlive()` false.
              ending = true
              transitionTo({ _tag: "Failed", error })
              return Effect.asVoid(Effect.forkIn(shutdown(`its initialize failed (${error._tag})`), parent))
            })
        })
      )

    const receiver: Transport.Receiver = {
      message: ByteCounter.receiving(bytes, dispatch),
      failRequest: (id, error) => {
        if (error._tag === "MessageTooLarge") oversize++
        pending.settle(id, Exit.fail(Scrub.failure(redactor, error)))
      },
      isPending: (id) => pending.get(id) !== undefined,
      pendingMethod: (id) => pending.get(id)?.method,
      timeLeft: (id) => {
        const entry = pending.get(id)
        return entry === undefined ? undefined : entry.deadline - clock.currentTimeMillisUnsafe()
      },
      authorizing: (id) => pending.hold(id),
      sent: (id) => pending.restart(id),
      ended: (ended) => signal(ended.reason, ended.error),
      sessionLost: (confirmed) => {
        sessionsLost++
        if (state._tag !== "Ready") return
        transitionTo({ _tag: "Renewing", session: state.session, done: Deferred.makeUnsafe() })
        pending.failAll((entry) => new SessionExpired({ server, method: entry.method }))
        diagnose("the server ended the session; initializing a new one")
        handshakeFiber = run(handshake(renewal.before(confirmed)))
      },
      diagnose,
      excerpt: redactor.excerpt
    }

    const live = yield* Scope.provide(open(receiver, prepared), scope).pipe(
      Effect.onError(() => Scope.close(scope, Exit.void))
    )
    transport = live
    const write = live.write
    if (write !== undefined) sendRequest = (_id, _method, text) => write(text)
    if (telemetry.enabled) {
      yield* Scope.addFinalizer(
        scope,
        SessionMetric.record(clock, clock.currentTimeMillisUnsafe(), () => ({
          transport: live.kind,
          protocolVersion: established,
          // Ended in an error: a failed handshake, or the process gone (`ProcessExited`); not a close.
          errorType: state._tag === "Failed" || state._tag === "Closed" && state.error._tag !== "ClientClosed"
            ? state.error._tag
            : undefined
        }))
      )
    }

    /**
     * Signal (no new request, nothing left waiting, readiness settled, `awaitTerminated` done), then end the
     * transport (`force`: at once) and close the scope, which joins every fiber of the session and its transport.
     */
    const signal = (reason: string, cause?: ClientClosed | ProcessExited) => {
      if (refused !== undefined) return
      const error = cause ?? new ClientClosed({ server, reason })
      refused = error
      if (state._tag !== "Closed" && state._tag !== "Failed") transitionTo({ _tag: "Closed", error })
      pending.failAll(() => error)
      Deferred.doneUnsafe(terminated, Exit.void)
    }

    const shutdown = (
      reason: string,
      mode: "close" | "force" = "close",
      cause?: ClientClosed | ProcessExited
    ): Effect.Effect<void> =>
      Effect.uninterruptible(Effect.suspend(() => {
        if (closing !== undefined) return Deferred.await(closing)
        const done = Deferred.makeUnsafe<void>()
        closing = done
        signal(reason, cause)
        return Effect.gen(function*() {
          yield* mode === "force" && live.kill !== undefined ? live.kill : live.close
          yield* Scope.close(scope, Exit.void)
          scopeClosed = true
          yield* Effect.logDebug(`MCP client closed (${reason})`)
        }).pipe(
          Effect.annotateLogs({ mcpServer: server, ...live.annotations }),
          Effect.ensuring(Effect.sync(() => Deferred.doneUnsafe(done, Exit.void)))
        )
      }))

    const deadlineFiber = run(pending.runDeadlines)
    run(publisher.run)
    run(
      Queue.take(logs).pipe(
        Effect.flatMap(([level, text]) => level === "warning" ? Effect.logWarning(text) : Effect.logDebug(text)),
        Effect.forever,
        Effect.annotateLogs({ mcpServer: server, ...(live.annotations ?? { transport: live.kind }) })
      )
    )
    run(serverLog.run)
    run(
      live.ended.pipe(
        Effect.flatMap((ended) => Effect.forkIn(shutdown(scrub(ended.reason), "close", ended.error), parent))
      )
    )
    handshakeFiber = run(handshake(Effect.void))
    const roots = config.handlers?.roots
    if (roots !== undefined) {
      const changed = JsonRpc.notificationFrame("notifications/roots/list_changed", undefined)
      run(Stream.runForEach(roots.changes, () =>
        Effect.sync(() => {
          if (state._tag === "Ready") {
            transport?.send({ _tag: "Notification", method: "notifications/roots/list_changed", text: changed })
          }
        })))
    }
    yield* Effect.addFinalizer(() => shutdown("its scope was closed"))

    const current = (): ServerSession | undefined =>
      state._tag === "Ready" || state._tag === "Renewing" ? state.session : undefined

    /** The designated header parameters of each tool of the last modern HTTP listing. */
    const toolHeaders = new Map<string, ReadonlyArray<ModernHeaders.HeaderParameter>>()
    const modern = ModernRequest.make({
      server,
      client: clientMeta,
      get http() {
        return isHttp()
      },
      toolHeaders: (tool) => toolHeaders.get(tool),
      // Input requests (2026-07-28) are answered by the same handlers as the legacy era's server requests.
      answer: config.answerInput ?? answerer,
      maxRounds: config.maxInputRounds ?? Mrtr.DEFAULT_MAX_ROUNDS,
      send: pending.request,
      now: () => clock.currentTimeMillisUnsafe()
    })

    const calls = Calls.make({
      // A modern session's requests carry the era's _meta and headers, and may ask for input.
      route: (method, params, settings) => {
        const session = current()
        return session?.era === "modern" ? modern(session.protocolVersion, method, params, settings) : undefined
      },
      // Over modern HTTP, a tool whose x-mcp-header annotations break a rule cannot be called: it is skipped.
      toolCheck: (session) => {
        if (session.era !== "modern" || !isHttp()) return undefined
        const headers = new Map<string, ReadonlyArray<ModernHeaders.HeaderParameter>>()
        return {
          check: (tool) => {
            const read = ModernHeaders.annotations(tool.inputSchema)
            if (read._tag === "Invalid") return read.rule
            headers.set(tool.name, read.parameters)
            return undefined
          },
          done: () => {
            toolHeaders.clear()
            for (const [name, parameters] of headers) toolHeaders.set(name, parameters)
          }
        }
      },
      server,
      requestTimeoutMs: config.requestTimeoutMs,
      maxPages: config.maxPages,
      // Traced, the calls go through the request spans; untraced, straight to the pending table.
      pending: send === pending.request ? pending : { ...pending, request: send },
      readiness: () => state,
      refusal: () => live.refusal?.(),
      scrub,
      toolsCache: listCache,
      now: () => clock.currentTimeMillisUnsafe()
    })
    const { request } = calls

    const features = Features.make({
      server,
      maxPages: config.maxPages,
      scrub,
      whenReady: (operation, options, use) => calls.whenReady(() => new NotReady({ server, operation }), options, use),
      request,
      notifications: Stream.fromPubSub(notifications),
      logMessages: serverLog.messages,
      subscription: listener.subscription,
      lists: { cache: lists.cache, now: () => clock.currentTimeMillisUnsafe() }
    })

    const listen = (filter: Subscriptions.Filter, options?: CallOptions) =>
      calls.whenReady(() => new NotReady({ server, operation: "listen" }), options, Effect.succeed).pipe(
        Effect.flatMap((session) =>
          session.era !== "modern"
            ? Effect.fail(
              new Subscriptions.ListenFailed({
                server,
                reason: "legacy",
                detail: `it speaks ${session.protocolVersion}, whose list changes arrive unsolicited`
              })
            )
            : listener.open(filter, calls.timeoutOf(options))
        )
      )

    const session: McpSession = {
      ...features,
      name: server,
      get transport() {
        return live.kind
      },
      url: config.url,
      serverStream: () => live.serverStream?.(),
      isAlive: () => !ending && closing === undefined && live.refusal?.() === undefined,
      isReady: () => state._tag === "Ready" && live.refusal?.() === undefined,
      readiness: () => state,
      readinessChanges: Stream.fromPubSub(changes),
      awaitReady: Effect.suspend(() => {
        switch (state._tag) {
          case "Ready":
            return Effect.succeed(state.session)
          case "Starting":
          case "Renewing":
            return Deferred.await(state.done)
          case "Failed":
          case "Closed":
            return Effect.fail(state.error)
        }
      }),
      session: () => Option.fromUndefinedOr(current()),
      listTools: calls.listTools,
      callTool: TypedCall.withSchema(server, calls.callTool),
      callToolStream: (name, args, options) =>
        Features.callToolStream((withProgress) => calls.callTool(name, args, withProgress), options),
      ping: (options) => Effect.asVoid(request("ping", undefined, options)),
      request: (method, params, options) =>
        calls.whenReady(
          () => new NotReady({ server, operation: method }),
          options,
          () => request(method, params, options)
        ),
      notifications: Stream.fromPubSub(notifications),
      listen,
      awaitTerminated: Deferred.await(terminated),
      close: shutdown("close was called"),
      forceClose: shutdown("forceClose was called", "force"),
      stats: () => ({
        ...counters,
        listCache: lists.stats(),
        handlers: { ...counters.handlers },
        oversize,
        invalidUtf8: 0,
        requests: { ...pending.counts },
        pending: pending.size(),
        stderrBytes: 0,
        // The transport's own fibers (exchanges, streams) live in the session's child scope, joined when it closes.
        fibersDone: {
          reader: scopeClosed,
          writer: scopeClosed,
          stderr: scopeClosed,
          exit: scopeClosed,
          initialize: handshakeFiber === undefined || handshakeFiber.pollUnsafe() !== undefined,
          deadlines: deadlineFiber.pollUnsafe() !== undefined
        },
        sessionsLost,
        ...progress.counters,
        ...serverLog.counters
      })
    }
    return { session, transport: live }
  })
