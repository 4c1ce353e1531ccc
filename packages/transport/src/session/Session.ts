/**
 * What a client of one MCP server offers, whatever its wire: the surface `McpClient` publishes, and the models its
 * methods speak (per-call options, the tool list, the counters). `session/Open.ts` builds one over a wire.
 *
 * @since 0.4.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { HandlerStats } from "../ClientHandlers.ts"
import type { Stats as ListCacheStats } from "../internal/ListCache.ts"
import type { CallToolError, InitializeError, ListToolsError, NotReady, RequestError } from "../McpError.ts"
import type { CallToolResult, ServerNotification, ServerSession } from "../Protocol.ts"
import type * as Subscriptions from "../Subscriptions.ts"
import type { DiscoveredTool } from "../Tool.ts"
import type * as TypedCall from "../TypedCall.ts"
import type { ExitInfo } from "../wire/Stdio.ts"
import type { Kind } from "../wire/Transport.ts"
import type { ToolCallOptions } from "./Context.ts"
import type * as Features from "./Features.ts"
import type * as Progress from "./Progress.ts"
import type { Readiness } from "./Readiness.ts"
import type { TaskMethods } from "./Tasks.ts"

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
  /** JSON-RPC messages received (answers, requests and notifications); beside `notJson`, how noisy stdout is. */
  readonly messages: number
  /** Messages (stdout lines) that were not JSON, skipped: the first few are logged, then a count. */
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
  /** How often the server forgot the session (HTTP) and the client initialized a new one. */
  readonly sessionsLost: number
  /**
   * Lists answered from the 2026-07-28 cache (`ttlMs`) and fetched from the server, and whether each list method's
   * last answer came from the cache.
   */
  readonly listCache: ListCacheStats
  /**
   * Which of the client's own fibers have finished. All of them are once `forceClose`, `close` or the scope's close
   * has returned: shutdown joins every one (a check for tests and leak hunts).
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
 * @since 0.4.0
 * @category models
 */
export interface Session extends Features.Features, TaskMethods {
  /** The label used in logs and errors. */
  readonly name: string
  /** The wire: `stdio` (a child process), `http` (Streamable HTTP) or `sse` (legacy HTTP+SSE, also after auto-detection). */
  readonly transport: Kind
  /** A remote server's URL with any credentials in it replaced by `***`; `undefined` for stdio. */
  readonly url: string | undefined
  /** The child's process id; `undefined` for a remote server. */
  readonly pid: number | undefined
  /**
   * Why a remote server's own stream (Streamable HTTP's GET, for what it sends unprompted: list changes, its
   * requests) is not open, once the client stopped opening it; `undefined` while it is open, and for stdio.
   */
  readonly serverStream: () => string | undefined
  /** Neither closed nor ended: the process has not exited, the handshake has not failed, the session is open. */
  readonly isAlive: () => boolean
  /** Whether the handshake has succeeded (non-blocking). */
  readonly isReady: () => boolean
  /** Where the session is now (`Readiness`). */
  readonly readiness: () => Readiness
  /**
   * The latest readiness, then every change. A session loss shows as `Renewing` then `Ready`: a reconnection, not a
   * crash.
   */
  readonly readinessChanges: Stream.Stream<Readiness>
  /** Waits for the handshake to finish; fails with its error. Bounded only by the caller's own timeout. */
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
   * before the result); `resetTimeoutOnProgress` and `maxTotalTimeout` as in the spec. A call that runs as a task
   * (the tool's `execution.taskSupport`, or `task: "always"`; see `Tasks`) is followed to its end and returns its
   * result the same way; `onTaskStatus` sees its statuses, and its deadline or an interruption cancels the task.
   */
  readonly callTool: TypedCall.CallTool<CallToolError>
  /** `callTool` as a stream: each progress report, then the result (its last element). */
  readonly callToolStream: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: ToolCallOptions
  ) => Stream.Stream<Progress.CallEvent<CallToolResult>, CallToolError>
  /** Sends `ping` (allowed before the handshake has been answered). */
  readonly ping: (options?: CallOptions) => Effect.Effect<void, RequestError>
  /**
   * Sends any request through the same path as every other method, and returns its raw `result`; readiness-gated
   * as every method but `ping` is (`NotReady` before the handshake is answered).
   */
  readonly request: (
    method: string,
    params?: unknown,
    options?: Features.FeatureOptions
  ) => Effect.Effect<unknown, RequestError | NotReady | InitializeError>
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
   * Why the client is not usable, once it is not: its handshake's failure, else the end of its connection (for a
   * remote server, often the only account of a death: it has no exit code and no stderr).
   */
  readonly lastError: () => string | undefined
  /**
   * Fails what is pending, ends the wire (bounded: stdio closes stdin, then signals the process group; HTTP ends the
   * session with `DELETE`) and joins every fiber of the client. Idempotent; closing the client's scope does the same.
   */
  readonly close: Effect.Effect<void>
  /**
   * As `close`, but the wire ends at once: stdio SIGKILLs the process group; HTTP aborts every exchange and stream
   * and ends the session (`DELETE`, bounded).
   */
  readonly forceClose: Effect.Effect<void>
  /** The reader's and the session's counters. */
  readonly stats: () => Stats
}
