/**
 * How a stdio server's process is stopped, to its whole process group: `close` is stdin EOF → `shutdownGrace` →
 * SIGTERM → `killGrace` → SIGKILL, `kill` is SIGKILL at once. With the `ProcessTree` service the server's
 * descendants are read from the process table before the first signal (EOF included), while they still name the
 * server as their parent, and those that left the group (`setsid`) get the same ladder beside it, within the same
 * bound. Both wait, bounded, for the exit watcher (the exit recorded and the last output drained).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as ProcessTree from "../../ProcessTree.ts"

/** What stopping needs of the transport. */
export interface Context {
  readonly handle: ChildProcessSpawner.ChildProcessHandle
  readonly shutdownGraceMs: number
  readonly killGraceMs: number
  /** Completes when the process's exit is known. */
  readonly exit: Effect.Effect<unknown>
  /** The exit watcher: it records the exit, drains the last output and ends the transport. */
  readonly watcher: Fiber.Fiber<unknown>
  /** The process has exited with stdout and stderr closed: nothing in its group holds the pipes. */
  readonly settled: () => boolean
  /** Ends stdin, once what is queued is written. */
  readonly endInput: () => void
  /** Log annotations for the lines about the descendants. */
  readonly annotate: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** The process's two ways to stop. */
export interface Stop {
  readonly close: Effect.Effect<void>
  readonly kill: Effect.Effect<void>
}

/** The ways to stop the process `context` names (reads the optional `ProcessTree` service). */
export const make = (context: Context): Effect.Effect<Stop> =>
  Effect.map(Effect.serviceOption(ProcessTree.ProcessTree), (tree) => {
    const { annotate, handle, killGraceMs } = context
    /** Waits, bounded, for the exit watcher. */
    const joinExit = Effect.suspend(() =>
      context.watcher.pollUnsafe() !== undefined ? Effect.void : Effect.raceFirst(
        Fiber.await(context.watcher),
        Effect.sleep(killGraceMs)
      )
    )
    const terminate = Effect.ignore(handle.kill({ killSignal: "SIGTERM", forceKillAfter: killGraceMs }))
    const collect = Option.isNone(tree) ? Effect.succeed([]) : ProcessTree.collect(tree.value, handle.pid)
    /** The same ladder for the descendants, beside the group's (`force`: SIGKILL at once); bounded. */
    const reap = (strays: ReadonlyArray<ProcessTree.Entry>, force: boolean) =>
      Option.isNone(tree) || strays.length === 0
        ? Effect.void
        : ProcessTree.reap(tree.value, strays, { killGraceMs, force }).pipe(
          Effect.flatMap((left) =>
            left.length === 0
              ? Effect.void
              : Effect.logWarning(`descendants still running after SIGKILL: ${left.map((e) => e.pid).join(", ")}`)
          ),
          annotate
        )

    return {
      close: Effect.gen(function*() {
        const strays = yield* collect
        context.endInput()
        yield* Effect.raceFirst(context.exit, Effect.sleep(context.shutdownGraceMs))
        // Exited, with stdout and stderr closed: no one in the group holds the pipes, and the spawner's release
        // (when the caller's scope closes) signals the group all the same (SIGTERM → `killGrace` → SIGKILL).
        // Otherwise the group is signalled here, so a grandchild holding the pipes lets the exit watcher finish.
        const group = context.settled() ? joinExit : Effect.andThen(terminate, joinExit)
        yield* Effect.all([group, reap(strays, false)], { concurrency: 2, discard: true })
      }),
      // stdin stays open until the SIGKILL lands, so the kill is what ends the server.
      kill: Effect.gen(function*() {
        const strays = yield* collect
        const group = Effect.ignore(handle.kill({ killSignal: "SIGKILL", forceKillAfter: killGraceMs })).pipe(
          Effect.andThen(joinExit)
        )
        yield* Effect.all([group, reap(strays, true)], { concurrency: 2, discard: true })
      })
    }
  })
