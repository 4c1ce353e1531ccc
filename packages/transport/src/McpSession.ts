/**
 * One MCP session over any transport: what every transport shares.
 *
 * The session owns request ids and the pending table (deadlines, `notifications/cancelled`), the handshake and
 * readiness, `ErrIndexBuilding`, the cursor loop, tool decoding, the notification stream and the counters. The
 * transport below it only moves messages (`transport/Transport.ts`).
 *
 * Readiness is one value (`Readiness`), moved in one place. An HTTP server that forgets the session makes the
 * session fail what is in flight with the retryable `SessionExpired` and initialize again once: calls made while
 * it does wait for it, and calls made after it work.
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
import * as Mrtr from "./internal/Mrtr.ts"
import * as PendingTable from "./internal/PendingTable.ts"
import * as Publisher from "./internal/Publisher.ts"
import * as Redactor from "./internal/Redactor.ts"
import * as RequestSpan from "./internal/RequestSpan.ts"
import * as Scrub from "./internal/Scrub.ts"
import * as ServerRequest from "./internal/ServerRequest.ts"
import * as SessionMetric from "./internal/SessionMetric.ts"
import type { CallOptions, Stats, ToolList as ListedTools } from "./McpClient.ts"
import type { PageCapExceeded, ProcessExited, RepeatedCursor } from "./McpError.ts"
import type { ErrIndexBuilding, UnsupportedProtocolVersion } from "./McpError.ts"
import { ClientClosed, NotReady } from "./McpError.ts"
import { LATEST_PROTOCOL_VERSION } from "./Protocol.ts"
import type { CallToolResult, ProtocolChoice, ServerNotification, ServerSession } from "./Protocol.ts"
import type { FeatureOptions } from "./session/Context.ts"
import * as Era from "./session/Era.ts"
import * as Features from "./session/Features.ts"
import * as Logging from "./session/Logging.ts"
import * as Progress from "./session/Progress.ts"
import * as Readiness_ from "./session/Readiness.ts"
import type * as Subscriptions from "./Subscriptions.ts"
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
 * Where the session is (see `session/Readiness.ts`).
 *
 * @since 0.2.0
 * @category models
 */
export type Readiness = Readiness_.Readiness

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
    /**
     * The one place readiness moves (`Readiness.next`): a waiting `done` is completed with the outcome, and a change
     * of state is published. `false`: the event did not apply, nothing changed.
     */
    const move = (event: Readiness_.Event): boolean => {
      const previous = state
      const moved = Readiness_.next(previous, event)
      if (moved === undefined) return false
      state = moved
      if (moved._tag !== previous._tag) PubSub.publishUnsafe(changes, moved)
      const outcome = Readiness_.settles(previous, moved)
      if (outcome !== undefined && (previous._tag === "Starting" || previous._tag === "Renewing")) {
        Deferred.doneUnsafe(previous.done, outcome)
      }
      return true
    }
    let transport: Transport.Transport | undefined
    let sendRequest = (
      id: number,
      method: string,
      text: string,
      headers: Readonly<Record<string, string>> | undefined
    ): void => transport?.send({ _tag: "Request", id, method, text, headers })
    let closing: Deferred.Deferred<void> | undefined
    let handshakeFiber: Fiber.Fiber<void> | undefined
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
      refusal: () => Readiness_.refusal(state) ?? transport?.refusal?.()
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
      scrubValue: redactor.value
    })

    const publisher = Publisher.make(notifications, config.notificationBuffer)

    // Lists kept for their `ttlMs` (2026-07-28); a list_changed drops its list before it is published.
    const lists = ListCache.group()
    const listCache = lists.cache<ListedTools>()
    const diagnose = (text: string) => Queue.offerUnsafe(logs, ["warning", scrub(text)])
    /** The capabilities declared (the handlers provided add theirs), and what answers a server's requests. */
    const capabilities = ClientHandlers.capabilities(config.handlers ?? {}, config.capabilities)
    // What every modern request's `_meta` says about the client (subscriptions/listen's included).
    const clientMeta = { clientInfo: config.clientInfo, capabilities, logLevel: config.logLevel }
    const answerer = config.handlers === undefined ? undefined : ServerRequest.make(config.handlers, server)
    const listener = Listen.make({
      server,
      send: Era.listenRequest(pending.request, clientMeta, () => isHttp(), () => current()?.protocolVersion)
    })
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
      scrub,
      scrubValue: redactor.value,
      serve: answerer === undefined ? undefined : { answer: answerer, run }
    })

    const eraCache = yield* EraCache
    const isHttp = () => transport?.kind === "http"
    const eraParts: Era.Parts = {
      server,
      send,
      pending: pending.request,
      client: clientMeta,
      http: isHttp,
      listener,
      toolHeaders: new Map(),
      // Input requests (2026-07-28) are answered by the same handlers as the legacy era's server requests.
      answer: config.answerInput ?? answerer,
      maxRounds: config.maxInputRounds ?? Mrtr.DEFAULT_MAX_ROUNDS
    }
    /** The era the last handshake chose (`Era.of`); before the first, requests (`ping`) go as they are. */
    let era: Era.Era = Era.legacy(eraParts, LATEST_PROTOCOL_VERSION)
    const handshake = EraProbe.run(send, {
      server,
      clientInfo: config.clientInfo,
      capabilities,
      timeoutMs: config.initializeTimeoutMs,
      protocol: config.protocol ?? "auto",
      probeTimeoutMs: Math.min(config.probeTimeoutMs ?? EraProbe.DEFAULT_PROBE_TIMEOUT_MS, config.initializeTimeoutMs),
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
    }).pipe(
      Effect.matchEffect({
        onSuccess: (session) =>
          Effect.sync(() => {
            // The era, chosen once per handshake: it says how requests go and lists end from now on.
            era = Era.of(session, eraParts)
            transport?.established(session.protocolVersion)
            if (config.eraKey !== undefined) eraCache.set(config.eraKey, era.name)
            const instructions = session.instructions === undefined ? undefined : scrub(session.instructions)
            move({ _tag: "Initialized", session: { ...session, instructions } })
          }),
        onFailure: (raw) =>
          Effect.suspend(() => {
            const error = Scrub.initializeFailure(scrub, raw)
            // A failed handshake (first or renewed) is terminal: the session ends, with `Failed` kept as why. One
            // move, so whoever sees `awaitReady` fail also sees `isAlive()` false.
            if (!move({ _tag: "InitializeFailed", error })) return Effect.void
            return Effect.asVoid(Effect.forkIn(shutdown(`its initialize failed (${error._tag})`), parent))
          })
      })
    )

    const receiver: Transport.Receiver = {
      message: ByteCounter.receiving(bytes, dispatch),
      failRequest: (id, error) => {
        if (error._tag === "MessageTooLarge") oversize++
        pending.settle(id, Exit.fail(Scrub.failure(scrub, error)))
      },
      isPending: (id) => pending.get(id) !== undefined,
      pendingMethod: (id) => pending.get(id)?.method,
      authorizing: (id) => pending.hold(id),
      sent: (id) => pending.restart(id),
      ended: (ended) => signal(ended.reason, ended.error),
      sessionLost: () => {
        sessionsLost++
        if (!move({ _tag: "SessionLost", done: Deferred.makeUnsafe() })) return
        pending.failAll((entry) => new SessionExpired({ server, method: entry.method }))
        diagnose("the server ended the session; initializing a new one")
        handshakeFiber = run(handshake)
      },
      diagnose
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
      const error = cause ?? new ClientClosed({ server, reason })
      if (!move({ _tag: "Refused", error })) return
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
          move({ _tag: "Joined" })
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
    run(live.ended.pipe(Effect.flatMap((ended) => Effect.forkIn(shutdown(ended.reason, "close", ended.error), parent))))
    handshakeFiber = run(handshake)
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

    const current = (): ServerSession | undefined => Readiness_.session(state)

    const calls = Calls.make({
      era: () => era,
      server,
      requestTimeoutMs: config.requestTimeoutMs,
      maxPages: config.maxPages,
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
      lists: { cache: lists.cache, now: () => clock.currentTimeMillisUnsafe() }
    })

    const listen = (filter: Subscriptions.Filter, options?: CallOptions) =>
      calls.whenReady(
        () => new NotReady({ server, operation: "listen" }),
        options,
        (_session, era) => era.listen(filter, calls.timeoutOf(options))
      )

    const session: McpSession = {
      ...features,
      name: server,
      get transport() {
        return live.kind
      },
      url: config.url,
      isAlive: () => Readiness_.isAlive(state) && live.refusal?.() === undefined,
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
          reader: Readiness_.isJoined(state),
          writer: Readiness_.isJoined(state),
          stderr: Readiness_.isJoined(state),
          exit: Readiness_.isJoined(state),
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
