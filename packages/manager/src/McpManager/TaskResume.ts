/**
 * What becomes of a call that runs as a task when its server's connection ends while it waits. A task survives
 * nothing a process restart loses:
 *
 * - a **stdio** server's tasks live in its process: when the process exits or is restarted, the waiting call fails at
 *   once with `TaskLost` (`remote: false`), never a hang, and nothing is resumed (the new process does not know the
 *   task);
 * - a **remote** server's tasks may outlive the connection: when the client's session ends (a restart, a reconnection
 *   after `SessionsForgotten`), the call waits for the server to be ready again (the manager's reconnection, bounded
 *   by the call's deadline, `maxTotalTimeout` else `timeout`, counted from the call's start) and follows the task on
 *   the new client (`followTask`); a server that no longer knows it ends the call with `TaskLost`. At most
 *   `MAX_RESUMES` times per call. A session the client renews by itself (an
 *   HTTP 404 on its session id) does not end the client: its poll simply goes out again on the new session.
 *
 * @internal
 */
import type { Features, Protocol } from "@mcp-fleet/transport"
import { McpError, TaskError } from "@mcp-fleet/transport"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { ServerUnavailable, UnknownServer } from "../ManagerError.ts"
import type { Conn } from "./Record.ts"

/** How many times one call follows its task again on a new client. */
export const MAX_RESUMES = 3

/** What resuming needs of the manager. */
export interface Context {
  /** Waits until the server is ready again; fails when it settles otherwise. */
  readonly ready: (server: string) => Effect.Effect<unknown, unknown>
  /** The server's live connection now. */
  readonly live: (server: string) => Effect.Effect<Conn, UnknownServer | ServerUnavailable>
}

type CallError = McpError.CallToolError | UnknownServer | ServerUnavailable

/**
 * `call`, and, when it failed because the task it became was cut off from a remote server that may still run it,
 * the same task followed again on the server's next client (see the module's note).
 */
export const resuming = (
  context: Context,
  server: string,
  tool: string,
  options: Features.ToolCallOptions | undefined,
  call: Effect.Effect<Protocol.CallToolResult, CallError>
): Effect.Effect<Protocol.CallToolResult, CallError> => {
  const bound = options?.maxTotalTimeout ?? options?.timeout
  const deadlineMs = bound === undefined ? undefined : Duration.toMillis(Duration.fromInputUnsafe(bound))
  const again = (
    error: CallError,
    resumes: number,
    startedAt: number
  ): Effect.Effect<Protocol.CallToolResult, CallError> => {
    const taskId = TaskError.resumable(error)
    if (taskId === undefined || resumes >= MAX_RESUMES) return Effect.fail(error)
    const resumed: Effect.Effect<Protocol.CallToolResult, CallError> = Effect.gen(function*() {
      // The server is not coming back (gave up, removed, needs the user): the call ends with the task lost.
      if (Exit.isFailure(yield* Effect.exit(context.ready(server)))) return yield* Effect.fail(error)
      const conn = yield* context.live(server)
      return yield* Effect.scoped(Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(
          conn.client.followTask(taskId, { tool, onTaskStatus: options?.onTaskStatus }),
          (handle) =>
            restore(handle.result).pipe(
              // The caller gave up on a task it was following again: it is cancelled on the server, in the
              // connection's scope (the caller's is closing).
              Effect.onInterrupt(() => Effect.forkIn(Effect.ignore(handle.cancel), conn.scope))
            )
        )
      ))
    })
    const bounded = deadlineMs === undefined
      ? resumed
      : Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.timeoutOrElse(resumed, {
          duration: Math.max(0, deadlineMs - (now - startedAt)),
          orElse: () =>
            Effect.fail(new McpError.RequestTimeout({ server, method: "tools/call", timeoutMs: deadlineMs }))
        }))
    return Effect.catch(bounded, (next: CallError) => again(next, resumes + 1, startedAt))
  }
  // The clock is read only for a call with a deadline (the plain path stays as it was).
  return deadlineMs === undefined
    ? Effect.catch(call, (error) => again(error, 0, 0))
    : Effect.flatMap(Clock.currentTimeMillis, (startedAt) => Effect.catch(call, (error) => again(error, 0, startedAt)))
}
