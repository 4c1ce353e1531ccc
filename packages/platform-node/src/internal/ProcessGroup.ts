/**
 * Signalling and awaiting a detached child's process group (POSIX), with the semantics of
 * `@effect/platform-node`'s spawner: signal the group (falling back to the leader), wait for the leader and
 * every member of its group to be gone, escalate to `SIGKILL` after `forceKillAfter`.
 *
 * Waiting polls the group every 10 ms on native timers (as the platform spawner does): a process's death is not
 * an Effect clock event, and a `TestClock` must not be able to stall a kill.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as PlatformError from "effect/PlatformError"
import * as Result from "effect/Result"
import type * as ChildProcess from "effect/process/ChildProcess"
import type * as NodeChildProcess from "node:child_process"
import { platformError } from "./errors.ts"

/** How the leader exited: `[code, signal]`, as Node's `exit` event reports it. */
export type ExitStatus = readonly [code: number | null, signal: NodeJS.Signals | null]

const GROUP_GRACE_MS = 1_000
const POLL_MS = 10

/** Node has recorded the leader's exit (after which its pid may be reused). */
export const hasExited = (child: NodeChildProcess.ChildProcess): boolean =>
  child.exitCode !== null || child.signalCode !== null

/** The group exists but has no member that can be signalled (only zombies left). */
const isUnsignallable = (error: unknown): boolean =>
  error instanceof Error && "code" in error && error.code === "EPERM"

/** `process.kill(-pid, signal)`: succeeds, or fails with what it threw (`ESRCH`, `EPERM`). */
const killGroup = (pid: number, sig: NodeJS.Signals | 0): Result.Result<boolean, unknown> =>
  Result.try(() => process.kill(-pid, sig))

/** Signals the group, ignoring failure (the group may already be gone). */
export const signalQuietly = (child: NodeChildProcess.ChildProcess, sig: NodeJS.Signals): void => {
  killGroup(child.pid!, sig)
}

/** The leader has not exited, or a member of its group still exists. */
export const isAlive = (child: NodeChildProcess.ChildProcess): boolean => {
  if (!hasExited(child)) return true
  const probe = killGroup(child.pid!, 0)
  return Result.isSuccess(probe) || isUnsignallable(probe.failure)
}

/** Sends `signal` to the whole group; to the leader alone when the group cannot be signalled. */
export const signal = (
  command: ChildProcess.StandardCommand,
  child: NodeChildProcess.ChildProcess,
  sig: NodeJS.Signals
): Effect.Effect<void, PlatformError.PlatformError> =>
  Effect.suspend(() => {
    const sent = killGroup(child.pid!, sig)
    if (Result.isSuccess(sent)) return Effect.void
    // Only zombies remain in the exited leader's group: nothing is left to signal.
    if (hasExited(child) && isUnsignallable(sent.failure)) return Effect.void
    if (child.kill(sig)) return Effect.void
    return Effect.fail(platformError("kill", new Error("Failed to kill child process"), command))
  })

/** Resolves once the leader and its group are gone, or after `timeoutMs`, whichever is first. */
export const awaitGone = (child: NodeChildProcess.ChildProcess, timeoutMs: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    let polls = Math.max(0, Math.ceil(timeoutMs / POLL_MS))
    let timer: ReturnType<typeof setTimeout> | undefined
    const stop = () => {
      clearTimeout(timer)
      child.off("exit", poll)
    }
    const poll = () => {
      clearTimeout(timer)
      if (polls-- <= 0 || !isAlive(child)) {
        stop()
        resume(Effect.void)
        return
      }
      timer = setTimeout(poll, POLL_MS)
    }
    child.on("exit", poll)
    poll()
    return Effect.sync(stop)
  })

/**
 * Terminates the group: `killSignal` (default `SIGTERM`), then, when `forceKillAfter` is set and something is
 * still alive after it, `SIGKILL`. Returns once the leader has exited.
 */
export const terminate = (
  command: ChildProcess.StandardCommand,
  child: NodeChildProcess.ChildProcess,
  exited: Deferred.Deferred<ExitStatus>,
  options: ChildProcess.KillOptions | undefined
): Effect.Effect<void, PlatformError.PlatformError> =>
  Effect.gen(function*() {
    yield* signal(command, child, options?.killSignal ?? "SIGTERM")
    if (options?.forceKillAfter === undefined) {
      yield* Deferred.await(exited)
      yield* awaitGone(child, GROUP_GRACE_MS)
    } else {
      yield* awaitGone(child, Duration.toMillis(options.forceKillAfter))
      if (isAlive(child)) {
        yield* signal(command, child, "SIGKILL")
        yield* awaitGone(child, GROUP_GRACE_MS)
      }
    }
    yield* Deferred.await(exited)
  })
