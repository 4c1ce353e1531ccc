import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, FiberSet, Schema } from "effect"
import { TestClock } from "effect/testing"
import { defaults } from "../src/SoakOptions.ts"
import type { Outcome } from "../src/Tally.ts"
import * as Tallies from "../src/Tally.ts"
import { failureOf, settle } from "../src/Workload.ts"

class ProcessExited extends Schema.TaggedError<ProcessExited>()("ProcessExited", { pid: Schema.Number }) {}
class Surprise extends Schema.TaggedError<Surprise>()("Surprise", {}) {}

const setup = Effect.gen(function*() {
  const inFlight = yield* FiberSet.make<Outcome>()
  const tally = Tallies.make()
  return { inFlight, tally, options: { ...defaults, graceMs: 2_000 } }
})

const asOutcome = <E extends { readonly _tag: string; readonly message: string }>(
  effect: Effect.Effect<Outcome, E>
): Effect.Effect<Outcome> => effect.pipe(Effect.catchCause((cause) => Effect.succeed(failureOf(cause))))

describe("Workload.settle", () => {
  it.effect("a call with neither a value nor an error by its own timeout + grace is unsettled, and left running", () =>
    Effect.gen(function*() {
      const workload = yield* setup
      const fiber = yield* Effect.forkChild(settle(workload, "echo", "echo #1", 250, Effect.never))
      yield* TestClock.adjust("2249 millis")
      assert.isUndefined(fiber.pollUnsafe(), "still within 250 ms + 2000 ms grace")
      yield* TestClock.adjust("1 millis")
      const outcome = yield* Fiber.join(fiber)
      assert.strictEqual(outcome._tag, "Unsettled")
      assert.strictEqual(workload.tally.ops.echo.unsettled, 1)
      assert.strictEqual(workload.tally.ops.echo.calls, 1)
      assert.strictEqual(Tallies.totals(workload.tally).unsettled, 1)
      assert.include(workload.tally.examples[0]!, "UNSETTLED echo #1")
      assert.strictEqual(yield* FiberSet.size(workload.inFlight), 1, "the stuck call is not interrupted by the watcher")
    }))

  it.effect("a call that answers late but within the grace is settled", () =>
    Effect.gen(function*() {
      const workload = yield* setup
      const late = Effect.as(Effect.sleep("2000 millis"), { _tag: "Succeeded" } as const)
      const fiber = yield* Effect.forkChild(settle(workload, "sleep", "sleep", 250, late))
      yield* TestClock.adjust("2000 millis")
      const outcome = yield* Fiber.join(fiber)
      assert.strictEqual(outcome._tag, "Succeeded")
      assert.strictEqual(workload.tally.ops.sleep.succeeded, 1)
      assert.strictEqual(workload.tally.ops.sleep.slowestMs, 2_000)
      assert.strictEqual(yield* FiberSet.size(workload.inFlight), 0)
    }))

  it.effect("failures are counted by tag; tags the chaos does not explain are kept as examples", () =>
    Effect.gen(function*() {
      const workload = yield* setup
      yield* settle(workload, "echo", "echo #1", 5_000, asOutcome(Effect.fail(new ProcessExited({ pid: 1 }))))
      yield* settle(workload, "echo", "echo #2", 5_000, asOutcome(Effect.fail(new Surprise())))
      yield* settle(workload, "hang", "hang #3", 250, Effect.die("boom"))
      const echo = workload.tally.ops.echo
      assert.strictEqual(echo.failed.get("ProcessExited"), 1)
      assert.strictEqual(echo.failed.get("Surprise"), 1)
      assert.strictEqual(workload.tally.ops.hang.failed.get("Defect"), 1)
      const totals = Tallies.totals(workload.tally)
      assert.strictEqual(totals.calls, 3)
      assert.strictEqual(totals.unexpected, 2, "Surprise and the defect; ProcessExited is explained by a kill")
      assert.strictEqual(workload.tally.examples.length, 2)
    }))
})
