/**
 * CallWindow: per tool, calls, errors and latency p50/p99 over a sliding window, timed by `Clock` (TestClock here),
 * bounded in time, in samples per tool and in tools; per server, buckets for the chart.
 */
import { assert, describe, it } from "@effect/vitest"
import { CallWindow } from "@mcp-fleet/gateway"
import { Clock, Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"

/** One call of `ms` milliseconds of TestClock time, ending now + ms. */
const call = (window: CallWindow.CallWindow, tool: string, ms: number, outcome: "ok" | "isError" | "fails" = "ok") =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<void>()
    const effect = Effect.andThen(Deferred.succeed(started, undefined), Effect.sleep(ms)).pipe(
      Effect.andThen(outcome === "fails" ? Effect.fail("boom") : Effect.succeed({ isError: outcome === "isError" }))
    )
    const fiber = yield* window.timed("srv", tool, effect, (result) => result.isError).pipe(
      Effect.exit,
      Effect.forkChild
    )
    yield* Deferred.await(started)
    yield* TestClock.adjust(ms)
    yield* Fiber.join(fiber)
  })

describe("CallWindow", () => {
  it.effect("latency is the Clock's time between the call's start and its end; failures and isError are errors", () =>
    Effect.gen(function*() {
      const window = CallWindow.make()
      yield* call(window, "echo", 40)
      yield* call(window, "echo", 10, "isError")
      yield* call(window, "echo", 25, "fails")
      const [stats] = window.tools(yield* Clock.currentTimeMillis)
      assert.deepStrictEqual(stats, {
        server: "srv",
        tool: "echo",
        calls: 3,
        errors: 2,
        p50Ms: 25,
        p99Ms: 40,
        lastAt: 75
      })
    }))

  it.effect("an interrupted call (the host went away) is not counted", () =>
    Effect.gen(function*() {
      const window = CallWindow.make()
      const started = yield* Deferred.make<void>()
      const fiber = yield* window.timed(
        "srv",
        "slow",
        Effect.andThen(Deferred.succeed(started, undefined), Effect.never),
        () => false
      ).pipe(Effect.forkChild)
      yield* Deferred.await(started)
      yield* TestClock.adjust(500)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(window.tools(yield* Clock.currentTimeMillis), [])
      assert.strictEqual(window.version(), 0)
    }))

  it.effect("p50 and p99 by nearest rank over the calls in the window", () =>
    Effect.sync(() => {
      const window = CallWindow.make()
      for (let ms = 1; ms <= 200; ms++) window.record("srv", "t", 1_000, ms, false)
      const [stats] = window.tools(1_000)
      assert.strictEqual(stats!.p50Ms, 100)
      assert.strictEqual(stats!.p99Ms, 198)
      assert.strictEqual(CallWindow.quantile([7], 0.99), 7)
    }))

  it.effect("the window slides: calls older than windowMs leave the figures, then the tool leaves the list", () =>
    Effect.gen(function*() {
      const window = CallWindow.make({ windowMs: 60_000 })
      yield* call(window, "a", 100)
      yield* TestClock.adjust("30 seconds")
      yield* call(window, "a", 300, "isError")
      const now = () => Clock.currentTimeMillis
      assert.include(window.tools(yield* now())[0]!, { calls: 2, errors: 1 })
      yield* TestClock.adjust("30 seconds") // the first call ended 60.3 s ago
      assert.include(window.tools(yield* now())[0]!, { calls: 1, errors: 1, p50Ms: 300 })
      yield* TestClock.adjust("30 seconds")
      assert.deepStrictEqual(window.tools(yield* now()), [])
    }))

  it.effect("bounded: a tool keeps its last maxSamples calls; past maxTools the least recently called tool goes", () =>
    Effect.sync(() => {
      const window = CallWindow.make({ maxSamples: 4, maxTools: 2 })
      for (let i = 1; i <= 10; i++) window.record("srv", "a", i, i * 10, i <= 6)
      assert.include(window.tools(10)[0]!, { calls: 4, errors: 0, p50Ms: 80, p99Ms: 100 })
      window.record("srv", "b", 11, 1, false)
      window.record("srv", "c", 12, 1, false)
      assert.deepStrictEqual(window.tools(12).map((t) => t.tool), ["b", "c"])
    }))

  it.effect("series: per server, one bucket per bucketMs with calls, oldest first, within the window", () =>
    Effect.sync(() => {
      const window = CallWindow.make({ windowMs: 60_000, bucketMs: 10_000 })
      window.record("one", "a", 1_000, 5, false)
      window.record("one", "b", 9_000, 15, true)
      window.record("one", "a", 25_000, 50, false)
      window.record("two", "a", 61_000, 7, false)
      const series = window.series(65_000)
      // 1 s is out of the window at 65 s (it starts at 5 s); 9 s is in.
      assert.deepStrictEqual(series.get("one"), [
        { start: 0, calls: 1, errors: 1, p50Ms: 15, p99Ms: 15 },
        { start: 20_000, calls: 1, errors: 0, p50Ms: 50, p99Ms: 50 }
      ])
      assert.deepStrictEqual(series.get("two"), [{ start: 60_000, calls: 1, errors: 0, p50Ms: 7, p99Ms: 7 }])
      // Figures kept between reads are read again when a call leaves the window, or a new one comes.
      assert.deepStrictEqual(window.series(70_000).get("one")!.map((b) => b.start), [20_000])
      assert.deepStrictEqual(window.tools(70_000).map((t) => [t.tool, t.calls]), [["a", 1], ["a", 1]])
      window.record("one", "b", 71_000, 9, false)
      assert.deepStrictEqual(window.series(72_000).get("one")!.map((b) => [b.start, b.calls]), [[20_000, 1], [
        70_000,
        1
      ]])
      assert.deepStrictEqual(window.tools(72_000).map((t) => `${t.server}/${t.tool}:${t.calls}`), [
        "one/a:1",
        "one/b:1",
        "two/a:1"
      ])
    }))
})
