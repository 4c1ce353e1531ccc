/**
 * The typed errors of tasks (`Tasks`): a task cancelled before it had a result, a task the client can no longer
 * follow, and a call asked to run as a task on a tool that does not allow it.
 *
 * @since 0.5.0
 */
import * as Schema from "effect/Schema"
import * as ErrorKind from "./ErrorKind.ts"
import { oneLine } from "./internal/ServerText.ts"

/**
 * The task was cancelled (by `cancel`, by another client, or by the server) before it had a result.
 *
 * @since 0.5.0
 * @category errors
 */
export class TaskCancelled extends Schema.TaggedError<TaskCancelled>()("TaskCancelled", {
  server: Schema.String,
  taskId: Schema.String,
  statusMessage: Schema.optionalKey(Schema.String)
}) {
  /** The server's word, for good: a cancelled task stays cancelled. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    const said = this.statusMessage === undefined ? "" : ` (${oneLine(this.statusMessage)})`
    return `MCP server "${this.server}" cancelled task ${this.taskId} before it had a result${said}.`
  }
}

/**
 * The task can no longer be followed: the server no longer knows it (it expired, or the server restarted), or the
 * client's connection ended while it ran. A task lives in its server: a stdio server's tasks end with its process
 * (`remote: false`); a remote server's may outlive the connection (`remote: true`), and a new client can poll it
 * again by its id.
 *
 * @since 0.5.0
 * @category errors
 */
export class TaskLost extends Schema.TaggedError<TaskLost>()("TaskLost", {
  server: Schema.String,
  taskId: Schema.String,
  /** Why, in one sentence. */
  reason: Schema.String,
  /** The task may live on in a remote server whose connection ended: another client may poll it again. */
  remote: Schema.Boolean
}) {
  /** Transient: calling again starts a new task (the manager restarts or reconnects the server). */
  get kind(): ErrorKind.Transient {
    return ErrorKind.transient
  }
  override get message(): string {
    return `Task ${this.taskId} of MCP server "${this.server}" can no longer be followed: ${oneLine(this.reason)}`
  }
}

/**
 * A call asked to run as a task (`task: "always"`) on a tool that does not allow it (its `execution.taskSupport`
 * is absent or `forbidden`); nothing was sent.
 *
 * @since 0.5.0
 * @category errors
 */
export class TaskUnsupported extends Schema.TaggedError<TaskUnsupported>()("TaskUnsupported", {
  server: Schema.String,
  tool: Schema.String
}) {
  /** This call cannot be made as asked: the tool runs only as a plain call. */
  get kind(): ErrorKind.CallerFault {
    return ErrorKind.callerFault
  }
  override get message(): string {
    return `Tool "${this.tool}" of MCP server "${this.server}" does not run as a task (its execution.taskSupport is forbidden or absent), so it was not called.`
  }
}

/**
 * Every error a task adds to a call's.
 *
 * @since 0.5.0
 * @category errors
 */
export type TaskError = TaskCancelled | TaskLost | TaskUnsupported

/**
 * Whether a failed task request (`tasks/get`, `tasks/result`, `tasks/cancel`) is the server's answer that it does
 * not know the task: JSON-RPC `-32602` (invalid params), which both eras give for an unknown or expired task id.
 *
 * @since 0.5.0
 * @category predicates
 */
export const isUnknownTask = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "code" in error && error.code === -32602 && "method" in error &&
  typeof error.method === "string" && error.method.startsWith("tasks/")

/**
 * The id of the task `error` lost, when it may live on in a remote server whose connection ended (`TaskLost` with
 * `remote`): another client of that server may follow it again (`followTask`). `undefined` otherwise.
 *
 * @since 0.5.0
 * @category predicates
 */
export const resumable = (error: unknown): string | undefined =>
  error instanceof TaskLost && error.remote ? error.taskId : undefined
