/**
 * Opens a session over a wire: the one place its parts are put together, each built once, in order.
 *
 * 1. The session's scope (a child of the caller's; closing it joins every fiber), its fibers and its readiness.
 * 2. The link to the wire and the request path over it (the pending table, traced when telemetry is on).
 * 3. The parts that use the request path: the inbound side, the eras, the shutdown, the handshake.
 * 4. The wire, opened with a receiver whose every target now exists; the link is connected to it.
 * 5. The fibers (deadlines, inbound, logs, the wire's end, the handshake) and the calls and features.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientHandlers from "../ClientHandlers.ts"
import * as JsonRpc from "../internal/JsonRpc.ts"
import * as JsonSchemaCheck from "../internal/JsonSchemaCheck.ts"
import * as ListCache from "../internal/ListCache.ts"
import * as PendingTable from "../internal/PendingTable.ts"
import * as Redactor from "../internal/Redactor.ts"
import { NotReady } from "../McpError.ts"
import type { ServerSession } from "../Protocol.ts"
import type { TaskSupport } from "../Tasks.ts"
import * as Tool from "../Tool.ts"
import * as TypedCall from "../TypedCall.ts"
import type { StdioTransport } from "../wire/Stdio.ts"
import type * as Transport from "../wire/Transport.ts"
import * as Calls from "./Calls.ts"
import type { Config } from "./Config.ts"
import * as Counters from "./Counters.ts"
import * as ElicitationCompletions from "./ElicitationCompletions.ts"
import * as Era from "./Era.ts"
import * as Features from "./Features.ts"
import * as Handshake from "./Handshake.ts"
import * as Inbound from "./Inbound.ts"
import * as Link from "./Link.ts"
import * as Listen from "./Listen.ts"
import * as Mrtr from "./Mrtr.ts"
import * as OutputSchemas from "./OutputSchemas.ts"
import * as Readiness from "./Readiness.ts"
import * as Scrub from "./Scrub.ts"
import * as ServerRequest from "./ServerRequest.ts"
import type { CallOptions, Session, ToolList } from "./Session.ts"
import * as Shutdown from "./Shutdown.ts"
import * as TaskRouter from "./TaskRouter.ts"
import * as Tasks from "./Tasks.ts"
import * as TaskWatch from "./TaskWatch.ts"
import * as Tracing from "./Tracing.ts"
import * as UrlElicitationRetry from "./UrlElicitationRetry.ts"

/**
 * How to open the wire: `prepare` runs first, in the session's scope (stdio spawns the server there, so it starts
 * while the session is set up), then `open` builds the wire over its value with the session's receiver.
 */
export interface Wire<T extends Link.Wire, P, E, R, D extends Partial<Session>> {
  readonly prepare: Effect.Effect<P, E, Scope.Scope | R>
  readonly open: (receiver: Transport.Receiver, prepared: P) => Effect.Effect<T, E, Scope.Scope | R>
  /** What only a process has (stdio: its pid, stderr tail, exit and counters); absent for a remote server. */
  readonly process?: ((wire: T) => StdioTransport) | undefined
  /** Members the wire states more precisely (stdio: `transport: "stdio"`, a `pid` always known). */
  readonly members: (wire: T) => D
}

/** Opens a session over `wire`; the handshake starts in the background. */
export const open: <T extends Link.Wire, P, E, R, D extends Partial<Session>>(
  config: Config,
  wire: Wire<T, P, E, R, D>
) => Effect.Effect<Session & D, E, Scope.Scope | R> = Effect.fnUntraced(function*<
  T extends Link.Wire,
  P,
  E,
  R,
  D extends Partial<Session>
>(config: Config, wire: Wire<T, P, E, R, D>) {
  // 1. The session's scope, fibers, readiness and log lines.
  const { server } = config
  const parent = yield* Scope.Scope
  const scope = yield* Scope.fork(parent)
  const prepared = yield* Scope.provide(wire.prepare, scope).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
  const clock = yield* Clock.Clock
  const now = () => clock.currentTimeMillisUnsafe()
  const run = yield* FiberSet.runtime(yield* Scope.provide(FiberSet.make(), scope))()
  const readiness = yield* Readiness.make
  const logs = yield* Queue.sliding<readonly [level: "warning" | "debug", text: string]>(64)
  const more = config.moreSecrets
  const redactor = more === undefined ? Redactor.make(config.secrets) : Redactor.dynamic(config.secrets, more)
  const scrub = redactor.text
  const diagnose = (text: string) => Queue.offerUnsafe(logs, ["warning", scrub(text)])
  const note = (text: string) => Queue.offerUnsafe(logs, ["debug", text])

  // 2. The request path (in a span per request when telemetry is on).
  const link = Link.make()
  const tracing = yield* Tracing.make({ server, url: config.url, link, clock })
  const pending = PendingTable.make({
    server,
    maxInFlight: config.maxInFlight,
    clock,
    outlet: tracing.outlet(link.outlet),
    refusal: () => Readiness.refusal(readiness.get()) ?? link.refusal()
  })
  const send = tracing.request(pending)

  // 3. The parts over it.
  /** The capabilities declared (the handlers provided add theirs), and what answers a server's requests. */
  const capabilities = ClientHandlers.capabilities(config.handlers ?? {}, config.capabilities)
  const client = { clientInfo: config.clientInfo, capabilities, logLevel: config.logLevel }
  const completions = ElicitationCompletions.make()
  const answerer = config.handlers === undefined ? undefined : ServerRequest.make(config.handlers, server, completions)
  const listener = Listen.make({
    server,
    send: Era.listenRequest(
      pending.request,
      client,
      link.isHttp,
      () => Readiness.session(readiness.get())?.protocolVersion
    )
  })
  // Lists kept for their `ttlMs` (2026-07-28); a list_changed drops its list before it is published.
  const lists = ListCache.group(link.authorizationContext)
  const taskRouter = TaskRouter.make()
  const inbound = yield* Inbound.make({
    settings: config,
    clock,
    redactor,
    pending,
    lists,
    listener,
    tasks: taskRouter,
    completions,
    send: link.send,
    diagnose,
    note,
    serve: answerer === undefined ? undefined : { answer: answerer, run }
  })
  const eraParts: Era.Parts = {
    server,
    send,
    pending: pending.request,
    client,
    http: link.isHttp,
    listener,
    toolHeaders: new Map(),
    // Input requests (2026-07-28) are answered by the same handlers as the legacy era's server requests.
    answer: config.answerInput ?? answerer,
    maxRounds: config.maxInputRounds ?? Mrtr.DEFAULT_MAX_ROUNDS,
    now,
    scrub,
    scrubValue: redactor.value
  }
  const shutdown = Shutdown.make({ server, readiness, pending, link, scope })
  const handshake = yield* Handshake.make({
    settings: config,
    capabilities,
    send,
    link,
    readiness,
    eraParts,
    scrub,
    pending,
    diagnose,
    run,
    failed: (reason) => Effect.asVoid(Effect.forkIn(shutdown.close(reason), parent))
  })

  // 4. The wire.
  let oversize = 0
  const receiver: Transport.Receiver = {
    message: tracing.receiving(inbound.receive),
    failRequest: (id, error) => {
      if (error._tag === "MessageTooLarge") {
        oversize++
      }
      pending.settle(id, Exit.fail(Scrub.failure(redactor, error)))
    },
    isPending: (id) => pending.get(id) !== undefined,
    pendingMethod: (id) => pending.get(id)?.method,
    timeLeft: (id) => {
      const entry = pending.get(id)
      return entry === undefined ? undefined : entry.deadline - now()
    },
    authorizing: (id) => pending.hold(id),
    sent: (id) => pending.restart(id),
    ended: (ended) => shutdown.signal(ended.reason, ended.error),
    sessionLost: handshake.lost,
    diagnose,
    excerpt: redactor.excerpt
  }
  const live = yield* Scope.provide(wire.open(receiver, prepared), scope).pipe(
    Effect.onError(() => Scope.close(scope, Exit.void))
  )
  link.connect(live)
  const process = wire.process?.(live)

  // 5. The fibers, then what callers use.
  yield* tracing.record(scope, readiness)
  const deadlines = run(pending.runDeadlines)
  run(inbound.run)
  run(
    Queue.take(logs).pipe(
      Effect.flatMap(([level, text]) => level === "warning" ? Effect.logWarning(text) : Effect.logDebug(text)),
      Effect.forever,
      Effect.annotateLogs({ mcpServer: server, ...link.annotations() })
    )
  )
  run(
    live.ended.pipe(
      Effect.flatMap((ended) => Effect.forkIn(shutdown.close(scrub(ended.reason), "close", ended.error), parent))
    )
  )
  handshake.start()
  const roots = config.handlers?.roots
  if (roots !== undefined) {
    const changed = JsonRpc.notificationFrame("notifications/roots/list_changed", undefined)
    run(Stream.runForEach(roots.changes, () =>
      Effect.sync(() => {
        if (readiness.get()._tag === "Ready") {
          link.send({ _tag: "Notification", method: "notifications/roots/list_changed", text: changed })
        }
      })))
  }
  yield* Effect.addFinalizer(() => shutdown.close("its scope was closed"))

  /** Each tool's `execution.taskSupport` from the last listing (`undefined` until the first). */
  let taskSupport: Map<string, TaskSupport> | undefined
  /** The `-32042` retry, on every request path (`Calls.request`, and `Tasks`' unbounded `tasks/result`). */
  const urlElicitations = UrlElicitationRetry.make({ server, elicitation: config.handlers?.elicitation, completions })
  const calls = Calls.make({
    era: handshake.era,
    server,
    requestTimeoutMs: config.requestTimeoutMs,
    maxPages: config.maxPages,
    readiness: readiness.get,
    refusal: link.refusal,
    scrub,
    toolsCache: lists.cache<ToolList>(),
    now,
    onListed: (tools) => {
      taskSupport = new Map(tools.map((tool) => [tool.name, Tool.taskSupport(tool)]))
    },
    outputSchemas: OutputSchemas.make({
      server,
      enabled: config.validateStructuredContent !== false,
      compiler: JsonSchemaCheck.make(),
      scrub
    }),
    urlElicitations
  })
  const whenReady = <A, E2, R2 = never>(
    operation: string,
    options: CallOptions | undefined,
    use: (session: ServerSession, era: Era.Era) => Effect.Effect<A, E2, R2>
  ) => calls.whenReady(() => new NotReady({ server, operation }), options, use)
  const features = Features.make({
    server,
    maxPages: config.maxPages,
    scrub,
    whenReady,
    request: calls.request,
    notifications: inbound.notifications,
    logMessages: inbound.logMessages,
    lists: { cache: lists.cache, now }
  })

  const tasks = Tasks.make({
    server,
    scrub,
    requestTimeoutMs: config.requestTimeoutMs,
    now,
    whenReady: calls.whenReady,
    request: calls.request,
    urlElicitations,
    era: handshake.era,
    router: taskRouter,
    notifications: inbound.notifications,
    ended: shutdown.awaitTerminated,
    endedWhy: () => (Readiness.refusal(readiness.get()) ?? link.refusal())?.message,
    remote: () => live.kind !== "stdio",
    polling: config.taskPolling ?? { floorMs: TaskWatch.DEFAULT_FLOOR_MS, cap: TaskWatch.DEFAULT_CAP },
    background: (effect) => {
      run(effect)
    },
    decodeResult: calls.decodeResult,
    support: (tool) => taskSupport === undefined ? undefined : taskSupport.get(tool) ?? "forbidden",
    listTools: calls.listTools(),
    maxPages: config.maxPages
  })

  const stats = Counters.make({
    inbound,
    process,
    oversize: () => oversize,
    pending,
    handshake,
    lists,
    readiness,
    deadlines
  })

  return {
    ...features,
    ...tasks.methods,
    name: server,
    get transport() {
      return live.kind
    },
    url: config.url,
    pid: process?.pid,
    serverStream: link.serverStream,
    isAlive: () => Readiness.isAlive(readiness.get()) && link.refusal() === undefined,
    isReady: () => readiness.get()._tag === "Ready" && link.refusal() === undefined,
    readiness: readiness.get,
    readinessChanges: readiness.changes,
    awaitReady: readiness.awaitReady,
    session: () => Option.fromUndefinedOr(Readiness.session(readiness.get())),
    listTools: calls.listTools,
    callTool: TypedCall.withSchema(server, tasks.callTool),
    callToolStream: (name, args, options) =>
      Features.callToolStream((withProgress) => tasks.callTool(name, args, withProgress), options),
    ping: (options) => Effect.asVoid(calls.request("ping", undefined, options)),
    request: (method, params, options) => whenReady(method, options, () => calls.request(method, params, options)),
    notifications: inbound.notifications,
    listen: (filter, options) =>
      whenReady("listen", options, (_session, era) => era.listen(filter, calls.timeoutOf(options))),
    stderrTail: () => process?.stderrTail() ?? [],
    exitInfo: () => Option.fromUndefinedOr(process?.exitInfo()),
    awaitExit: process?.awaitExit ?? Effect.never,
    awaitTerminated: shutdown.awaitTerminated,
    lastError: () => Readiness.lastError(readiness.get()),
    close: shutdown.close("close was called"),
    forceClose: shutdown.close("forceClose was called", "force"),
    stats,
    ...wire.members(live)
  }
})

/** Opens a session over a wire that `make` builds at once, with no process: an in-memory wire (tests). */
export const over = <T extends Link.Wire, E, R>(
  config: Config,
  make: (receiver: Transport.Receiver) => Effect.Effect<T, E, Scope.Scope | R>
): Effect.Effect<Session, E, Scope.Scope | R> =>
  open(config, { prepare: Effect.void, open: (receiver) => make(receiver), members: () => ({}) })
