/**
 * The test's `TestClock`, as a `Clock` that also reports every sleep it is asked for: a test latches on "the client
 * now waits N ms" (an event) before it moves the clock, and so counts what a storm sends between two of its waits.
 *
 * @example
 * ```ts
 * import { Sleeps } from "@mcp-fleet/testing"
 * import { Effect } from "effect"
 * import { TestClock } from "effect/testing"
 *
 * const program = Effect.gen(function*() {
 *   const sleeps = yield* Sleeps.make
 *   // … start the client with Effect.provideService(Clock.Clock, sleeps.clock) …
 *   yield* Sleeps.awaitEvent(sleeps.next(250)) // the client now waits 250 ms
 *   yield* TestClock.adjust(250)
 * })
 * ```
 *
 * @since 0.3.0
 */
import { Duration, Effect, Queue } from "effect"
import type { Clock } from "effect"
import { TestClock } from "effect/testing"

/**
 * @since 0.3.0
 * @category models
 */
export interface Sleeps {
  /** The clock to give the client. */
  readonly clock: Clock.Clock
  /** Waits until the client asks to sleep exactly `ms` (sleeps of other lengths asked meanwhile are skipped). */
  readonly next: (ms: number) => Effect.Effect<void>
}

/**
 * A reporting clock over the test's `TestClock`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make: Effect.Effect<Sleeps> = Effect.gen(function*() {
  const asked = yield* Queue.unbounded<number>()
  const clock = yield* TestClock.testClockWith((testClock) =>
    Effect.succeed<Clock.Clock>({
      currentTimeMillis: testClock.currentTimeMillis,
      currentTimeNanos: testClock.currentTimeNanos,
      monotonicTimeNanos: testClock.monotonicTimeNanos,
      currentTimeMillisUnsafe: () => testClock.currentTimeMillisUnsafe(),
      currentTimeNanosUnsafe: () => testClock.currentTimeNanosUnsafe(),
      monotonicTimeNanosUnsafe: () => testClock.monotonicTimeNanosUnsafe(),
      sleep: (duration) => Effect.andThen(Queue.offer(asked, Duration.toMillis(duration)), testClock.sleep(duration))
    })
  )
  const next = (ms: number): Effect.Effect<void> =>
    Queue.take(asked).pipe(Effect.flatMap((got) => (got === ms ? Effect.void : next(ms))))
  return { clock, next } satisfies Sleeps
})

/**
 * Waits for a real event, with a hang guard of 20 s on the live clock (not a timing assertion: a test whose event
 * never comes fails with "the awaited event did not happen" instead of hanging).
 *
 * @since 0.3.0
 * @category combinators
 */
export const awaitEvent = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  TestClock.withLive(Effect.timeoutOrElse(effect, {
    duration: "20 seconds",
    orElse: () => Effect.die(new Error("the awaited event did not happen"))
  }))
