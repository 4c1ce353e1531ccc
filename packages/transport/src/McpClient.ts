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
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { HandlerStats } from "./ClientHandlers.ts"
import type { InvalidUrl } from "./HttpError.ts"
import type { Stats as ListCacheStats } from "./internal/ListCache.ts"
import * as RemoteAdapter from "./internal/RemoteAdapter.ts"
import * as StdioConstruction from "./internal/StdioClient.ts"
import type { McpClientOptions } from "./McpClientOptions.ts"
import type {
  CallToolError,
  InitializeError,
  ListToolsError,
  NotReady,
  RequestError,
  SpawnError,
  UnsupportedProtocolVersion
} from "./McpError.ts"
import type { CallToolResult, ServerNotification, ServerSession } from "./Protocol.ts"
import type { RemoteOptions } from "./RemoteClient.ts"
import type * as Features from "./session/Features.ts"
import type * as Progress from "./session/Progress.ts"
import type * as Subscriptions from "./Subscriptions.ts"
import type { DiscoveredTool } from "./Tool.ts"
import type * as Stdio from "./transport/Stdio.ts"
import type * as Transport from "./transport/Transport.ts"
import type * as TypedCall from "./TypedCall.ts"

/**
 * How a server's process ended.
 *
 * @since 0.1.0
 * @category models
 */
export type ExitInfo = Stdio.ExitInfo

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
  /** Server requests (other than `ping`) given to handlers, by outcome. */
  readonly handlers: HandlerStats
  /** Requests sent so far, by method (`initialize`, `tools/list`, `tools/call`…). */
  readonly requests: Readonly<Record<string, number>>
  readonly pending: number
  /** Progress reports handed to a waiting call. */
  readonly progressDelivered: number
  /** Progress reports dropped: unknown or finished token, or not a progress report. */
  readonly progressDropped: number
  /** Server log entries (`notifications/message`) logged and streamed. */
  readonly logMessages: number
  /** Server log entries dropped by the rate limit (or not a log entry). */
  readonly logMessagesDropped: number
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
export interface McpClient extends Features.Features {
  /** The label used in logs and errors. */
  readonly name: string
  /** The wire: `stdio` (a child process), `http` (Streamable HTTP) or `sse` (legacy HTTP+SSE, also after auto-detection). */
  readonly transport: Transport.Kind
  /** A remote server's URL with any credentials in it replaced by `***`; `undefined` for stdio. */
  readonly url: string | undefined
  /** The child's process id; `undefined` for a remote server. */
  readonly pid: number | undefined
  /**
   * Why a remote server's own stream (Streamable HTTP's GET, for what it sends unprompted: list changes, its
   * requests) is not open, once the client stopped opening it; `undefined` while it is open, and for stdio.
   */
  readonly serverStream: () => string | undefined
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
  /**
   * Calls a tool. Before the server is ready it fails with `ErrIndexBuilding`. With `{ schema }` the result's
   * `structuredContent` is decoded with it (see `TypedCall`). `onProgress` gets each progress report (all of them
   * before the result); `resetTimeoutOnProgress` and `maxTotalTimeout` as in the spec.
   */
  readonly callTool: TypedCall.CallTool<CallToolError>
  /** `callTool` as a stream: each progress report, then the result (its last element). */
  readonly callToolStream: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: Features.FeatureOptions
  ) => Stream.Stream<Progress.CallEvent<CallToolResult>, CallToolError>
  /** Sends `ping` (allowed before `initialize` has been answered). */
  readonly ping: (options?: CallOptions) => Effect.Effect<void, RequestError>
  /** Sends any request through the same path as every other method, and returns its raw `result`. */
  readonly request: (
    method: string,
    params?: unknown,
    options?: Features.FeatureOptions
  ) => Effect.Effect<unknown, RequestError | NotReady | UnsupportedProtocolVersion>
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

/**
 * Spawns an MCP server and returns its client at once; `initialize` continues in the background.
 *
 * Needs the `ChildProcessSpawner` service (apps provide `NodeServices.layer` from
 * `@effect/platform-node`) and a `Scope`: closing it shuts the server down, with its process group. Provide the
 * optional `ProcessTree` service too (`NodeProcessTree.layer`) and closing also ends the server's descendants that
 * left its group (`setsid`), read from the process table.
 *
 * @since 0.2.0
 * @category constructors
 */
export const stdio: (
  options: McpClientOptions
) => Effect.Effect<StdioClient, SpawnError, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> =
  StdioConstruction.make

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
export const http: (
  options: RemoteOptions
) => Effect.Effect<McpClient, InvalidUrl, Scope.Scope | HttpClient.HttpClient> = RemoteAdapter.make

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
