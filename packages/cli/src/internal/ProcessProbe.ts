/**
 * Whether a process id is still in use (signal 0: nothing is sent, only existence and permission are checked).
 * The demo uses it to show that shutdown left no server running.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** `true` while a process with this pid exists (also when it belongs to someone else: `EPERM`). */
export const isRunning = (pid: number): Effect.Effect<boolean> =>
  Effect.try({
    try: () => process.kill(pid, 0),
    catch: (error) => (error instanceof Error && "code" in error ? error.code : "unknown")
  }).pipe(
    Effect.as(true),
    Effect.catch((code) => Effect.succeed(code === "EPERM"))
  )
