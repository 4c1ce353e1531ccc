/**
 * One MCP server, over stdio or over HTTP, as a scoped Effect resource.
 *
 * `make({ command })` spawns the server over stdio; `make({ url })` connects to a remote one (Streamable HTTP or
 * legacy HTTP+SSE, see `RemoteClient`). Either returns the client at once; `initialize` runs in a background fiber
 * owned by the client's scope. For stdio, closing the scope shuts the server down gracefully (fail pending calls → end
 * stdin → grace → SIGTERM → grace → SIGKILL, to the whole process group) and joins every fiber of the
 * client before it returns.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { McpClient } from "@mcp-fleet/transport"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient.make({ command: "node", args: ["server.js"] })
 *   yield* client.awaitReady
 *   const { tools } = yield* client.listTools()
 *   return yield* client.callTool(tools[0]!.name, {})
 * }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
 * ```
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { BaseEnvironment } from "./BaseEnvironment.ts"
import type { HandlerStats } from "./ClientHandlers.ts"
import type { InvalidUrl } from "./HttpError.ts"
import * as ChildEnvironment from "./internal/ChildEnvironment.ts"
import * as Connection from "./internal/Connection.ts"
import type { Stats as ListCacheStats } from "./internal/ListCache.ts"
import * as Pagination from "./internal/Pagination.ts"
import * as Redactor from "./internal/Redactor.ts"
import { schemaDetail } from "./internal/SchemaDetail.ts"
import { StderrTail } from "./internal/StderrTail.ts"
import { collector as toolCollector } from "./internal/ToolList.ts"
import { decodeCallResult, decodeInitialize, decodePage } from "./internal/WireDecoders.ts"
import type { McpClientOptions } from "./McpClientOptions.ts"
import * as Options from "./McpClientOptions.ts"
import type { CallToolError, InitializeError, ListToolsError, RequestError } from "./McpError.ts"
import {
  ClientClosed,
  ErrIndexBuilding,
  NotReady,
  PageCapExceeded,
  ProtocolError,
  RepeatedCursor,
  SpawnError,
  UnsupportedProtocolVersion
} from "./McpError.ts"
import type * as McpSession from "./McpSession.ts"
import type { ServerNotification, ServerSession } from "./Protocol.ts"
import type { CallToolResult } from "./Protocol.ts"
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "./Protocol.ts"
import type { RemoteOptions } from "./RemoteClient.ts"
import * as RemoteClient from "./RemoteClient.ts"
import * as Subscriptions from "./Subscriptions.ts"
import type { DiscoveredTool } from "./Tool.ts"
import type * as Transport from "./transport/Transport.ts"

/**
 * How a server's process ended.
 *
 * @since 0.1.0
 * @category models
 */
export type ExitInfo = Connection.ExitInfo

/**
 * Per-call options.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** This call's own deadline; the effective one is the smaller of this and the client's `requestTimeout`. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * The tools of a server (every page), with the `instructions` it sent in `initialize`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolList {
  readonly tools: ReadonlyArray<DiscoveredTool>
  readonly instructions: string | undefined
  /**
   * Listed tools left out, and said here rather than hidden: one that did not decode as an MCP `Tool`, or one whose
   * name an earlier listed tool already has (the first is kept). `index` counts every listed tool, across pages.
   */
  readonly skipped: ReadonlyArray<
    { readonly index: number; readonly name: string | undefined; readonly reason: string }
  >
  readonly pages: number
}

/**
 * Counters of what the client's reader skipped or refused, and of its traffic.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  readonly notJson: number
  readonly invalid: number
  readonly unknownId: number
  readonly oversize: number
  readonly invalidUtf8: number
  readonly serverRequests: number
  readonly notifications: number
  /** Server requests given to handlers, by outcome (a session's clients; absent on the stdio reader until it moves). */
  readonly handlers?: HandlerStats | undefined
  /** Requests sent so far, by method (`initialize`, `tools/list`, `tools/call`…). */
  readonly requests: Readonly<Record<string, number>>
  readonly pending: number
  readonly stderrBytes: number
  /**
   * Lists answered from the 2026-07-28 cache (`ttlMs`) and fetched from the server, and whether each list method's
   * last answer came from the cache. Present on session-based clients (remote ones).
   */
  readonly listCache?: ListCacheStats | undefined
  /**
   * Which of the client's own fibers have finished. All of them are once `forceClose` or the scope's close has
   * returned: shutdown joins every one (a check for tests and leak hunts).
   */
  readonly fibersDone: {
    readonly reader: boolean
    readonly writer: boolean
    readonly stderr: boolean
    readonly exit: boolean
    readonly initialize: boolean
    readonly deadlines: boolean
  }
}

/**
 * A client of one MCP server.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpClient {
  /** The label used in logs and errors. */
  readonly name: string
  /** The wire: `stdio` (a child process), `http` (Streamable HTTP) or `sse` (legacy HTTP+SSE, also after auto-detection). */
  readonly transport: Transport.Kind
  /** A remote server's URL with any credentials in it replaced by `***`; `undefined` for stdio. */
  readonly url: string | undefined
  /** The child's process id; `undefined` for a remote server. */
  readonly pid: number | undefined
  /** A pure read of two flags: the process has not exited and the connection is not closed. */
  readonly isAlive: () => boolean
  /** Whether `initialize` has succeeded (non-blocking). */
  readonly isReady: () => boolean
  /** Waits for `initialize` to finish; fails with its error. Bounded only by the caller's own timeout. */
  readonly awaitReady: Effect.Effect<ServerSession, InitializeError>
  /** The server's session (info, capabilities, protocol version, instructions) once ready. */
  readonly session: () => Option.Option<ServerSession>
  /**
   * Every tool of the server, following `nextCursor` until it is absent (at most `maxPages` pages); in the legacy
   * protocol era (≤ 2025-11-25) `nextCursor: ""` ends the list too.
   */
  readonly listTools: (options?: CallOptions) => Effect.Effect<ToolList, ListToolsError>
  /** Calls a tool. Before the server is ready it fails with `ErrIndexBuilding`. */
  readonly callTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: CallOptions
  ) => Effect.Effect<CallToolResult, CallToolError>
  /** Sends `ping` (allowed before `initialize` has been answered). */
  readonly ping: (options?: CallOptions) => Effect.Effect<void, RequestError>
  /** Sends any request through the same path as every other method, and returns its raw `result`. */
  readonly request: (method: string, params?: unknown, options?: CallOptions) => Effect.Effect<unknown, RequestError>
  /**
   * Server notifications (list_changed, progress, log messages…): first the latest `notificationReplay` ones
   * the server sent before the stream was run, then every new one. Slow consumers lose the oldest.
   */
  readonly notifications: Stream.Stream<ServerNotification>
  /**
   * Opens `subscriptions/listen` (2026-07-28) for the life of the current scope: resolves once the server
   * acknowledged it, with the subset it honours; its notifications arrive on `notifications`. Closing the scope
   * cancels it. A legacy-era server fails it with `ListenFailed` reason `legacy`.
   */
  readonly listen: (
    filter: Subscriptions.Filter,
    options?: CallOptions
  ) => Effect.Effect<Subscriptions.Listening, Subscriptions.ListenFailed | InitializeError | NotReady, Scope.Scope>
  /** The last lines the server wrote to stderr, oldest first (always empty for a remote server). */
  readonly stderrTail: () => ReadonlyArray<string>
  /** How the process ended, once it has (always none for a remote server). */
  readonly exitInfo: () => Option.Option<ExitInfo>
  /** Completes when the process has exited (never, for a remote server: it has no process; use `awaitTerminated`). */
  readonly awaitExit: Effect.Effect<ExitInfo>
  /** Completes when the client stops being usable (process exited, session or stream ended, client closed). */
  readonly awaitTerminated: Effect.Effect<void>
  /**
   * Why the client is not usable, once it is not: its `initialize` failure, else the end of its connection (for a
   * remote server, often the only account of a death: it has no exit code and no stderr).
   */
  readonly lastError: () => string | undefined
  /**
   * Kills the server at once (SIGKILL to its process group), then joins every fiber of the client. For a remote
   * server: aborts every exchange and stream, ends the session (`DELETE`, bounded) and joins every fiber.
   */
  readonly forceClose: Effect.Effect<void>
  /** Reader counters. */
  readonly stats: () => Stats
}

/**
 * A client of a server over stdio: the process id is always known.
 *
 * @since 0.2.0
 * @category models
 */
export interface StdioClient extends McpClient {
  readonly transport: "stdio"
  readonly url: undefined
  readonly pid: number
}

/** A call's deadline: the smaller of its own (if any) and the client's `requestTimeout`. */
const toMs = (input: Duration.Input | undefined, ceiling: number): number =>
  input === undefined ? ceiling : Math.min(Options.requestTimeoutMillis(input), ceiling)

/**
 * Spawns an MCP server and returns its client at once; `initialize` continues in the background.
 *
 * Needs the `ChildProcessSpawner` service (apps provide `NodeServices.layer` from
 * `@effect/platform-node`) and a `Scope`: closing it shuts the server down.
 *
 * @since 0.2.0
 * @category constructors
 */
export const stdio = (
  options: McpClientOptions
): Effect.Effect<StdioClient, SpawnError, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.gen(function*() {
    const opts = Options.resolve(options)
    const server = opts.name
    const scope = yield* Scope.Scope
    const clock = yield* Clock.Clock
    const base = yield* BaseEnvironment
    const command = ChildProcess.make(opts.command, opts.args, {
      ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
      env: ChildEnvironment.merge(base, opts.env),
      extendEnv: opts.inheritEnv,
      killSignal: "SIGTERM",
      forceKillAfter: opts.killGraceMs
    })
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const handle = yield* spawner.spawn(command).pipe(
      Effect.mapError((error) =>
        new SpawnError({
          server,
          command: opts.command,
          reason: error.reason._tag === "BadArgument"
            ? error.reason.description ?? "bad argument"
            : error.reason.method === "access"
            ? `its working directory ${JSON.stringify(opts.cwd)} is not accessible (${error.reason._tag})`
            : `${error.reason._tag}${error.reason.description ? `: ${error.reason.description}` : ""}`
        })
      )
    )
    // Every `Redacted` env value is replaced with `<redacted>` in whatever the client derives from server output.
    const redactor = Redactor.fromEnv(opts.env)
    const stderr = new StderrTail(opts.stderrLines, 512, redactor.text)
    /** A Schema error's text, which quotes what the server sent: secrets replaced. */
    const detailOf = (cause: Cause.Cause<Schema.SchemaError>): string => redactor.text(schemaDetail(cause))

    const conn = yield* Connection.make(handle, {
      server,
      maxMessageBytes: opts.maxMessageBytes,
      maxInFlight: opts.maxInFlight,
      notificationBuffer: opts.notificationBuffer,
      notificationReplay: Math.min(opts.notificationReplay, opts.notificationBuffer),
      clock,
      stderr,
      redactor
    })

    const annotate = Effect.annotateLogs({ mcpServer: server, pid: handle.pid })
    const onStderrLine = opts.onStderrLine
    const stderrFiber = yield* Stream.runForEachArray(handle.stderr, (chunks) => {
      const lines = chunks.flatMap((chunk) => stderr.push(chunk))
      return onStderrLine === undefined || lines.length === 0
        ? Effect.void
        : Effect.forEach(lines, onStderrLine, { discard: true })
    }).pipe(Effect.ignore, annotate, Effect.forkScoped)
    const writerFiber = yield* conn.runWriter.pipe(annotate, Effect.forkScoped)
    const readerFiber = yield* conn.runReader.pipe(annotate, Effect.forkScoped)
    const deadlineFiber = yield* conn.runDeadlines.pipe(Effect.forkScoped)
    const outputDrained = Effect.asVoid(Effect.all([Fiber.await(readerFiber), Fiber.await(stderrFiber)]))
    const exitFiber = yield* conn.watchExit(outputDrained).pipe(annotate, Effect.forkScoped)

    // ---- background initialize ----
    const ready = yield* Deferred.make<ServerSession, InitializeError>()
    let closing: Deferred.Deferred<void> | undefined

    const initialize = Effect.gen(function*() {
      const raw = yield* conn.request("initialize", {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: opts.capabilities,
        clientInfo: opts.clientInfo
      }, { timeoutMs: Infinity, cancellable: false }).pipe(
        Effect.mapError((error) => versionRejection(error) ?? error)
      )
      const decoded = decodeInitialize(raw)
      if (Exit.isFailure(decoded)) {
        return yield* new ProtocolError({ server, method: "initialize", detail: detailOf(decoded.cause) })
      }
      const result = decoded.value
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
        return yield* new UnsupportedProtocolVersion({
          server,
          answered: redactor.text(result.protocolVersion),
          supported: [...SUPPORTED_PROTOCOL_VERSIONS]
        })
      }
      conn.notify("notifications/initialized", undefined)
      const established: ServerSession = {
        protocolVersion: result.protocolVersion,
        serverInfo: result.serverInfo,
        capabilities: result.capabilities,
        instructions: result.instructions === undefined ? undefined : redactor.text(result.instructions)
      }
      return established
    })

    /**
     * The one readiness value. Written once, by whoever settles `ready` (the initialize fiber, or shutdown when it
     * never ran), in the same synchronous step as `ready` itself: no reader can see `ready` failed and the client
     * still starting.
     */
    let readiness: Readiness = { _tag: "Starting" }
    const settleReadiness = (outcome: Readiness & { readonly _tag: "Ready" | "Failed" }): void => {
      if (readiness._tag !== "Starting") return
      readiness = outcome
      Deferred.doneUnsafe(ready, outcome._tag === "Ready" ? Exit.succeed(outcome.session) : Exit.fail(outcome.error))
    }

    /** A `-32022` answer to `initialize` listing the server's versions: no version in common. */
    const versionRejection = (error: RequestError): UnsupportedProtocolVersion | undefined => {
      if (error._tag !== "RemoteError" || error.code !== -32022) return undefined
      const data = error.data
      if (typeof data !== "object" || data === null || !("supported" in data) || !Array.isArray(data.supported)) {
        return undefined
      }
      return new UnsupportedProtocolVersion({
        server,
        requested: LATEST_PROTOCOL_VERSION,
        serverSupported: data.supported.filter((v: unknown): v is string => typeof v === "string"),
        supported: [...SUPPORTED_PROTOCOL_VERSIONS]
      })
    }

    // ---- shutdown: both paths end here and drain the same fibers ----
    const shutdown = (mode: "graceful" | "force", reason: string): Effect.Effect<void> =>
      Effect.uninterruptible(Effect.suspend(() => {
        if (closing !== undefined) return Deferred.await(closing)
        const done = Deferred.makeUnsafe<void>()
        closing = done
        return Effect.gen(function*() {
          // Graceful: EOF first. Force: stdin stays open until the SIGKILL lands, so the kill is what ends it.
          conn.close(reason, mode === "graceful" ? "end" : "hold")
          if (mode === "graceful") {
            yield* Effect.raceFirst(Deferred.await(conn.exited), Effect.sleep(opts.shutdownGraceMs))
          }
          yield* Effect.ignore(handle.kill({
            killSignal: mode === "graceful" ? "SIGTERM" : "SIGKILL",
            forceKillAfter: opts.killGraceMs
          }))
          yield* Fiber.interrupt(initFiber)
          // If initialize never got to run, nobody else completes readiness: fail it with the close.
          settleReadiness({ _tag: "Failed", error: conn.failure() ?? new ClientClosed({ server, reason }) })
          yield* Fiber.interrupt(writerFiber)
          // The reader ends when every holder of stdout has closed it; the group is dead by now.
          yield* Effect.raceFirst(Fiber.await(readerFiber), Effect.sleep(opts.killGraceMs))
          yield* Fiber.interrupt(readerFiber)
          yield* Effect.raceFirst(Fiber.await(exitFiber), Effect.sleep(opts.killGraceMs))
          yield* Fiber.interrupt(exitFiber)
          yield* Fiber.interrupt(stderrFiber)
          yield* Fiber.interrupt(deadlineFiber)
          yield* Effect.logDebug(`MCP client closed (${reason})`)
        }).pipe(annotate, Effect.ensuring(Deferred.succeed(done, undefined)))
      }))

    const initFiber = yield* initialize.pipe(
      Effect.matchEffect({
        onSuccess: (session) => Effect.sync(() => settleReadiness({ _tag: "Ready", session })),
        onFailure: (error) => {
          // A terminal initialize failure (not the connection's own end): the server will never be usable, so it
          // is shut down gracefully rather than left running, alive and never ready. The connection is closed
          // (stdin ended) before readiness settles, so whoever sees `awaitReady` fail also sees `isAlive()` false.
          const terminal = conn.failure() === undefined
          if (terminal) conn.close("its initialize failed", "end")
          settleReadiness({ _tag: "Failed", error })
          return terminal
            ? Effect.asVoid(Effect.forkIn(shutdown("graceful", "its initialize failed"), scope))
            : Effect.void
        }
      }),
      annotate,
      Effect.forkScoped
    )

    yield* Effect.addFinalizer(() => shutdown("graceful", "its scope was closed"))

    /**
     * Why a call cannot run: the initialize failure, else the connection's end (a dead process is `ProcessExited`
     * even while its output is still being drained), else `whenStarting` (alive and not initialized yet).
     */
    const notReady = <E>(whenStarting: () => E): Effect.Effect<never, InitializeError | E> =>
      Effect.suspend((): Effect.Effect<never, InitializeError | E> => {
        if (readiness._tag === "Failed") return Effect.fail(readiness.error)
        const failure = conn.deadError()
        if (failure !== undefined) return Effect.fail(failure)
        return Effect.fail(whenStarting())
      })

    /** The session, when the client can take calls now. */
    const usable = (): ServerSession | undefined =>
      readiness._tag === "Ready" && conn.deadError() === undefined ? readiness.session : undefined

    const requestTimeout = (options: CallOptions | undefined) => toMs(options?.timeout, opts.requestTimeoutMs)

    const toCallResult = (raw: unknown): Effect.Effect<CallToolResult, ProtocolError> => {
      const decoded = decodeCallResult(raw)
      return Exit.isSuccess(decoded)
        ? Effect.succeed(decoded.value)
        : Effect.fail(new ProtocolError({ server, method: "tools/call", detail: detailOf(decoded.cause) }))
    }

    // The per-call path is untraced on purpose: `Effect.fn` (a span plus a captured call-site stack) cost about
    // 4.5 µs per call, a quarter of the whole client's CPU per call at concurrency 64 (BENCHMARKS.md). A caller who
    // wants a span per call wraps the effect in `Effect.withSpan`.
    const callTool = (
      name: string,
      args?: Readonly<Record<string, unknown>>,
      options?: CallOptions
    ): Effect.Effect<CallToolResult, CallToolError> =>
      Effect.suspend(() =>
        usable() === undefined
          ? notReady(() => new ErrIndexBuilding({ server, tool: name }))
          : Effect.flatMap(
            conn.request("tools/call", { name, arguments: args ?? {} }, {
              timeoutMs: requestTimeout(options),
              cancellable: true
            }),
            toCallResult
          )
      )

    const listTools = Effect.fn("McpClient.listTools")(function*(options?: CallOptions) {
      const session = usable()
      if (session === undefined) return yield* notReady(() => new NotReady({ server, operation: "listTools" }))
      const instructions = session.instructions
      // Each tool decoded on its own; the first tool of a name wins (a later one is reported, never merged).
      const collected = toolCollector(redactor.text)
      const seen = new Set<string>()
      let cursor: string | undefined
      for (let page = 1;; page++) {
        const raw = yield* conn.request("tools/list", cursor === undefined ? {} : { cursor }, {
          timeoutMs: requestTimeout(options),
          cancellable: true
        })
        const decoded = decodePage(raw)
        if (Exit.isFailure(decoded)) {
          return yield* new ProtocolError({ server, method: "tools/list", detail: detailOf(decoded.cause) })
        }
        collected.add(decoded.value.tools)
        const next = decoded.value.nextCursor
        if (Pagination.endsList(next, session.protocolVersion)) {
          return { tools: collected.tools, instructions, skipped: collected.skipped, pages: page } satisfies ToolList
        }
        if (seen.has(next)) return yield* new RepeatedCursor({ server, method: "tools/list", page })
        if (page >= opts.maxPages) return yield* new PageCapExceeded({ server, method: "tools/list", pages: page })
        seen.add(next)
        cursor = next
      }
    })

    const request = (method: string, params?: unknown, options?: CallOptions) =>
      conn.request(method, params, { timeoutMs: requestTimeout(options), cancellable: true })

    const client: StdioClient = {
      name: server,
      transport: "stdio",
      url: undefined,
      pid: handle.pid,
      isAlive: conn.isAlive,
      isReady: () => usable() !== undefined,
      awaitReady: Deferred.await(ready),
      session: () => Option.fromUndefinedOr(readiness._tag === "Ready" ? readiness.session : undefined),
      listTools,
      callTool,
      ping: (options) => Effect.asVoid(request("ping", undefined, options)),
      request,
      notifications: Stream.fromPubSub(conn.notifications),
      // This stdio client speaks the legacy era only (its handshake is initialize).
      listen: () =>
        Effect.fail(
          new Subscriptions.ListenFailed({
            server,
            reason: "legacy",
            detail: "it speaks the legacy era, whose list changes arrive unsolicited"
          })
        ),
      stderrTail: () => stderr.snapshot(),
      exitInfo: () => Option.fromUndefinedOr(conn.exitInfo()),
      awaitExit: Deferred.await(conn.exited),
      awaitTerminated: Effect.asVoid(Deferred.await(conn.terminated)),
      lastError: () => readiness._tag === "Failed" ? readiness.error.message : conn.failure()?.message,
      forceClose: shutdown("force", "forceClose was called"),
      stats: () => ({
        ...conn.stats,
        requests: { ...conn.stats.requests },
        pending: conn.pendingCount(),
        stderrBytes: stderr.bytes,
        fibersDone: {
          reader: readerFiber.pollUnsafe() !== undefined,
          writer: writerFiber.pollUnsafe() !== undefined,
          stderr: stderrFiber.pollUnsafe() !== undefined,
          exit: exitFiber.pollUnsafe() !== undefined,
          initialize: initFiber.pollUnsafe() !== undefined,
          deadlines: deadlineFiber.pollUnsafe() !== undefined
        }
      })
    }
    return client
  })

/** Where `initialize` stands. */
type Readiness =
  | { readonly _tag: "Starting" }
  | { readonly _tag: "Ready"; readonly session: ServerSession }
  | { readonly _tag: "Failed"; readonly error: InitializeError }

/**
 * Opens a session with a remote server (Streamable HTTP, legacy HTTP+SSE, or auto-detection between them) and
 * returns its client at once; `initialize` continues in the background.
 *
 * Needs the `HttpClient` service (apps provide `NodeHttpClient.layerUndici` from `@effect/platform-node`) and a
 * `Scope`: closing it ends the session (`DELETE`, bounded) and aborts every exchange and stream.
 *
 * @since 0.2.0
 * @category constructors
 */
export const http = (
  options: RemoteOptions
): Effect.Effect<McpClient, InvalidUrl, Scope.Scope | HttpClient.HttpClient> =>
  Effect.map(RemoteClient.make(options), fromSession)

/** A remote session as an `McpClient`: no process, so no pid, no stderr and no exit. */
const fromSession = (session: McpSession.McpSession): McpClient => ({
  name: session.name,
  get transport() {
    return session.transport
  },
  url: session.url,
  pid: undefined,
  isAlive: session.isAlive,
  isReady: session.isReady,
  awaitReady: session.awaitReady,
  session: session.session,
  listTools: session.listTools,
  callTool: session.callTool,
  ping: session.ping,
  request: session.request,
  notifications: session.notifications,
  listen: session.listen,
  stderrTail: () => [],
  exitInfo: () => Option.none(),
  awaitExit: Effect.never,
  awaitTerminated: session.awaitTerminated,
  lastError: () => {
    const state = session.readiness()
    return state._tag === "Failed" || state._tag === "Closed" ? state.error.message : undefined
  },
  forceClose: session.close,
  stats: session.stats
})

/**
 * Starts a client of one MCP server, local or remote: `{ command, … }` spawns it over stdio (needs
 * `ChildProcessSpawner`), `{ url, … }` connects over HTTP (needs `HttpClient`). Returns at once; `initialize`
 * continues in the background (`awaitReady`). Closing the scope shuts the server or the session down.
 *
 * @since 0.1.0
 * @category constructors
 */
export function make(
  options: McpClientOptions
): Effect.Effect<StdioClient, SpawnError, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner>
export function make(options: RemoteOptions): Effect.Effect<McpClient, InvalidUrl, Scope.Scope | HttpClient.HttpClient>
export function make(
  options: McpClientOptions | RemoteOptions
): Effect.Effect<
  McpClient,
  SpawnError | InvalidUrl,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | HttpClient.HttpClient
>
export function make(
  options: McpClientOptions | RemoteOptions
): Effect.Effect<
  McpClient,
  SpawnError | InvalidUrl,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | HttpClient.HttpClient
> {
  return "url" in options ? http(options) : stdio(options)
}

/**
 * The service of a single-server app: one `McpClient`, provided by `layer`.
 *
 * @since 0.2.0
 * @category services
 */
export const McpClient: Context.Service<McpClient, McpClient> = Context.Service<McpClient>(
  "@mcp-fleet/transport/McpClient"
)

/**
 * A layer that starts one client (as `make`) for the life of the layer. Like `make`, it does not wait for
 * `initialize`: use `awaitReady` on the service.
 *
 * @since 0.2.0
 * @category layers
 */
export function layer(
  options: McpClientOptions
): Layer.Layer<McpClient, SpawnError, ChildProcessSpawner.ChildProcessSpawner>
export function layer(options: RemoteOptions): Layer.Layer<McpClient, InvalidUrl, HttpClient.HttpClient>
export function layer(
  options: McpClientOptions | RemoteOptions
): Layer.Layer<McpClient, SpawnError | InvalidUrl, ChildProcessSpawner.ChildProcessSpawner | HttpClient.HttpClient> {
  return Layer.effect(McpClient, make(options))
}
