/**
 * The soak's chaos: every 250–1250 ms, SIGKILL a random server's process or `restart` a random server (by
 * default 85% / 15%), until told to stop.
 *
 * A kill uses the pid from `health()` and `process.kill(pid, "SIGKILL")`: the manager learns of it only from
 * the process's exit, as it would from a real crash. A restart runs in its own fiber (so kills go on meanwhile)
 * and must return within 30 s, or it counts as unsettled.
 *
 * @since 0.0.0
 */
import type { McpManager } from "@mcp-fleet/manager"
import { Effect, Fiber, FiberSet, Option, Random, Ref } from "effect"
import type { Tally } from "./Tally.ts"
import * as Tallies from "./Tally.ts"

/**
 * What the chaos fiber needs.
 *
 * @since 0.0.0
 * @category models
 */
export interface Chaos {
  readonly manager: McpManager.McpManager["Service"]
  readonly servers: ReadonlyArray<string>
  readonly tally: Tally
  /** The fibers that watch restarts (each returns within `restartBoundMs`). */
  readonly actions: FiberSet.FiberSet<void>
  /** The restarts themselves; one that never returns stays here. */
  readonly restarting: FiberSet.FiberSet<void>
  readonly stopped: Ref.Ref<boolean>
  /** The share of actions (0–1) that are restarts. */
  readonly restartShare: number
}

/**
 * How long a `restart(name)` may take before it counts as unsettled.
 *
 * @since 0.0.0
 * @category constants
 */
export const restartBoundMs = 30_000

const signal = (pid: number): Effect.Effect<"killed" | "missed"> =>
  Effect.try({ try: () => process.kill(pid, "SIGKILL"), catch: (error) => error }).pipe(
    Effect.as("killed" as const),
    Effect.catch((error) =>
      error instanceof Error && "code" in error && error.code === "ESRCH"
        ? Effect.succeed("missed" as const)
        : Effect.die(error)
    )
  )

/**
 * SIGKILLs one server's current process, if it has one.
 *
 * @since 0.0.0
 * @category actions
 */
export const kill = (chaos: Chaos, name: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    const health = yield* Effect.orDie(chaos.manager.serverHealth(name))
    if (health.pid === undefined) {
      chaos.tally.killsSkipped++
      return
    }
    const result = yield* signal(health.pid)
    if (result === "killed") chaos.tally.kills++
    else chaos.tally.killsMissed++
  })

/**
 * Restarts one server in a fiber of its own; counts it, and counts it unsettled if it takes too long.
 *
 * @since 0.0.0
 * @category actions
 */
export const restart = (chaos: Chaos, name: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    chaos.tally.restarts++
    const fiber = yield* FiberSet.run(chaos.restarting, Effect.orDie(chaos.manager.restart(name)))
    const done = yield* Fiber.await(fiber).pipe(Effect.timeoutOption(restartBoundMs))
    if (Option.isNone(done)) {
      chaos.tally.restartsUnsettled++
      Tallies.note(chaos.tally, `restart(${name}) had not returned after ${restartBoundMs} ms`)
    }
  }).pipe(FiberSet.run(chaos.actions), Effect.asVoid)

/**
 * The chaos loop, until `stopped` is set.
 *
 * @since 0.0.0
 * @category actions
 */
export const run = (chaos: Chaos): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (true) {
      yield* Effect.sleep(yield* Random.nextIntBetween(250, 1250))
      if (yield* Ref.get(chaos.stopped)) return
      const name = chaos.servers[yield* Random.nextIntBetween(0, chaos.servers.length, { halfOpen: true })]!
      if ((yield* Random.next) >= chaos.restartShare) yield* kill(chaos, name)
      else yield* restart(chaos, name)
    }
  })
