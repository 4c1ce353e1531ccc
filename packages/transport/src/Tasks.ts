/**
 * Tasks (SEP-1686): a tool call the server runs in the background and the client follows by its task id, polling
 * `tasks/get` at the server's `pollInterval` (or woken by `notifications/tasks/status`) until the task ends, then
 * reading its result. Experimental in 2025-11-25 (the `tasks` capability, `execution.taskSupport` on each tool,
 * `tasks/result` and `tasks/list`); the `io.modelcontextprotocol/tasks` extension in 2026-07-28 (SEP-2663: the
 * server decides which call becomes a task, the result comes inline in `tasks/get`, input goes back with
 * `tasks/update`, there is no `tasks/list`). The client speaks each era's form (`session/Era.ts`); what a caller sees
 * is the same: a `Task`, a `TaskHandle`, or simply the call's result.
 *
 * @since 0.5.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type { CallToolResult } from "./Protocol.ts"

/**
 * Where a task is: `working` and `input_required` are on the way; `completed`, `failed` and `cancelled` are ends
 * (a task never leaves them).
 *
 * @since 0.5.0
 * @category schemas
 */
export const TaskStatus = Schema.Literals(["working", "input_required", "completed", "failed", "cancelled"])

/**
 * @since 0.5.0
 * @category models
 */
export type TaskStatus = typeof TaskStatus.Type

/**
 * Whether `status` is an end: `completed`, `failed` or `cancelled`.
 *
 * @since 0.5.0
 * @category predicates
 */
export const isTerminal = (status: TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/**
 * A task as the server describes it, in the same form whatever the era (2025-11-25 says `ttl` and `pollInterval`
 * in milliseconds, 2026-07-28 `ttlSeconds` and `pollIntervalMilliseconds`).
 *
 * @since 0.5.0
 * @category models
 */
export interface Task {
  readonly taskId: string
  readonly status: TaskStatus
  /** What the server says about the state, for a person (a stage, why it failed…), scrubbed of secrets. */
  readonly statusMessage?: string | undefined
  /** When the task was created (ISO 8601, as the server wrote it). */
  readonly createdAt: string
  /** When its status last changed (ISO 8601, as the server wrote it). */
  readonly lastUpdatedAt: string
  /** How long after its creation the server keeps it, in milliseconds; `null`: for ever; absent: not said. */
  readonly ttlMs?: number | null | undefined
  /** How often the server suggests polling it, in milliseconds. */
  readonly pollIntervalMs?: number | undefined
}

/**
 * What a tool says about running as a task (`execution.taskSupport`, 2025-11-25): `required` (only as a task),
 * `optional` (either way) or `forbidden` (never; also what an absent field means).
 *
 * @since 0.5.0
 * @category models
 */
export type TaskSupport = "required" | "optional" | "forbidden"

/**
 * Whether a `tools/call` runs as a task:
 *
 * - `auto` (the default): 2025-11-25: when the server declares task-augmented `tools/call` and the tool's
 *   `execution.taskSupport` is `required` or `optional`; 2026-07-28: the client declares the tasks extension and the
 *   server decides.
 * - `always`: as a task, or a typed error when the server or the tool does not allow it (nothing is sent). In
 *   2026-07-28 the server still decides; the call fails only when the server does not declare the extension.
 * - `never`: a plain request (2026-07-28: the extension is left out of this request's capabilities, so the server
 *   cannot answer with a task; a tool that requires one is the server's to refuse).
 *
 * @since 0.5.0
 * @category models
 */
export type TaskMode = "auto" | "always" | "never"

/**
 * The tasks of a server (`tasks/list`, every page), with what was skipped and the number of pages.
 *
 * @since 0.5.0
 * @category models
 */
export interface TaskList {
  readonly tasks: ReadonlyArray<Task>
  readonly skipped: ReadonlyArray<
    { readonly index: number; readonly name: string | undefined; readonly reason: string }
  >
  readonly pages: number
}

/**
 * A task the client follows, for a host that shows running tasks. It is polled while the scope it was started in
 * is open (closing the scope stops following it, and does not cancel it: `cancel` does).
 *
 * @since 0.5.0
 * @category models
 */
export interface TaskHandle<E> {
  readonly server: string
  readonly taskId: string
  /** The task as the server created it. */
  readonly created: Task
  /** The text a server offers as an immediate answer while the task runs (2025-11-25 `_meta`), if it offers one. */
  readonly immediateResponse: string | undefined
  /** The latest status the client saw. */
  readonly current: () => Task
  /** The latest status, then each new one, until the task ends (the stream ends with it). */
  readonly statuses: Stream.Stream<Task>
  /** The call's result once the task ends, as a plain call returns it (a tool error is a result). */
  readonly result: Effect.Effect<CallToolResult, E>
  /**
   * Asks the server to cancel the task (`tasks/cancel`). Cancellation is cooperative: `result` then fails with
   * `TaskCancelled`, unless the task ended first.
   */
  readonly cancel: Effect.Effect<void, E>
}

/**
 * What starting a tool call gives: a task to follow, or the result at once (the call did not run as a task).
 *
 * @since 0.5.0
 * @category models
 */
export type Started<E> =
  | { readonly _tag: "Task"; readonly handle: TaskHandle<E> }
  | { readonly _tag: "Result"; readonly result: CallToolResult }
