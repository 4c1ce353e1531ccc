import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Pull } from "effect"
import { EAGER_CHARS, EAGER_FRAMES, Outbox } from "../../src/wire/Stdio/Outbox.ts"

const text = (chunk: readonly [Uint8Array]): string => new TextDecoder().decode(chunk[0])

describe("Outbox", () => {
  it.effect("frames offered while the writer waits leave together, in order, as one chunk", () =>
    Effect.gen(function*() {
      const outbox = new Outbox()
      const taker = yield* outbox.take.pipe(Effect.forkChild({ startImmediately: true }))
      outbox.offer("a\n")
      outbox.offer("b\n")
      outbox.offer("c\n")
      assert.strictEqual(text(yield* Fiber.join(taker)), "a\nb\nc\n")
      assert.strictEqual(outbox.size, 0)
    }))

  it.effect("a take with frames already queued returns them at once", () =>
    Effect.gen(function*() {
      const outbox = new Outbox()
      outbox.offer("x\n")
      assert.strictEqual(text(yield* outbox.take), "x\n")
    }))

  it.effect("end writes what is queued, then ends; later offers are ignored", () =>
    Effect.gen(function*() {
      const outbox = new Outbox()
      outbox.offer("last\n")
      outbox.end()
      outbox.offer("too late\n")
      assert.strictEqual(text(yield* outbox.take), "last\n")
      const after = yield* Effect.exit(outbox.take)
      assert.isTrue(Exit.isFailure(after) && Pull.isDoneCause(after.cause), "ended with Cause.Done")
    }))

  it.effect("end while the writer waits on an empty outbox ends it", () =>
    Effect.gen(function*() {
      const outbox = new Outbox()
      const taker = yield* Effect.exit(outbox.take).pipe(Effect.forkChild({ startImmediately: true }))
      outbox.end()
      const exit = yield* Fiber.join(taker)
      assert.isTrue(Exit.isFailure(exit) && Pull.isDoneCause(exit.cause), "ended with Cause.Done")
    }))

  it.effect("shutdown drops what is queued and interrupts the writer", () =>
    Effect.gen(function*() {
      const outbox = new Outbox()
      outbox.offer("dropped\n")
      outbox.shutdown()
      assert.strictEqual(outbox.size, 0)
      const exit = yield* Effect.exit(outbox.take)
      assert.isTrue(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause))
    }))

  it.effect("an interrupted taker stops waiting; the next one gets the frames", () =>
    Effect.gen(function*() {
      const outbox = new Outbox()
      const first = yield* outbox.take.pipe(Effect.forkChild({ startImmediately: true }))
      yield* Fiber.interrupt(first)
      outbox.offer("kept\n")
      assert.strictEqual(text(yield* outbox.take), "kept\n")
    }))

  it.effect("a burst of EAGER_FRAMES frames is handed to the idle writer at once, without waiting for the run to end", () =>
    Effect.gen(function*() {
      const outbox = new Outbox()
      const taken: Array<string> = []
      const writer = yield* outbox.take.pipe(
        Effect.flatMap((chunk) => Effect.sync(() => taken.push(text(chunk)))),
        Effect.forever,
        Effect.forkChild({ startImmediately: true })
      )
      for (let i = 1; i < EAGER_FRAMES; i++) outbox.offer(`${i}\n`)
      assert.deepStrictEqual(taken, [], "below the threshold, frames wait for the end of the run")
      outbox.offer(`${EAGER_FRAMES}\n`)
      // No yield in between: the writer took the burst synchronously, inside offer.
      assert.strictEqual(taken.length, 1)
      assert.strictEqual(taken[0], Array.from({ length: EAGER_FRAMES }, (_, i) => `${i + 1}\n`).join(""))
      outbox.offer("late\n")
      assert.strictEqual(taken.length, 1, "the next frame waits for the end of the run again")
      yield* Effect.yieldNow
      assert.deepStrictEqual(taken.slice(1), ["late\n"])
      yield* Fiber.interrupt(writer)
    }))

  it.effect("within one run each hand-over waits for twice as many frames as the last; the run's end resets it", () =>
    Effect.gen(function*() {
      const outbox = new Outbox()
      const taken: Array<number> = []
      // A writer that is back waiting as soon as a chunk is written (as stdio's is after a synchronous pipe write).
      const write: Effect.Effect<never, Cause.Done> = Effect.flatMap(outbox.take, (chunk) => {
        taken.push(text(chunk).split("\n").length - 1)
        return write
      })
      const writer = yield* write.pipe(Effect.forkChild({ startImmediately: true }))
      const offer = (count: number) => {
        for (let i = 0; i < count; i++) outbox.offer("f\n")
      }
      offer(EAGER_FRAMES)
      assert.deepStrictEqual(taken, [EAGER_FRAMES], "the first burst leaves at once")
      offer(2 * EAGER_FRAMES - 1)
      assert.deepStrictEqual(taken, [EAGER_FRAMES], "the second waits for twice as many")
      offer(1)
      assert.deepStrictEqual(taken, [EAGER_FRAMES, 2 * EAGER_FRAMES])
      offer(3)
      yield* Effect.yieldNow
      assert.deepStrictEqual(taken, [EAGER_FRAMES, 2 * EAGER_FRAMES, 3], "the rest leaves at the run's end")
      offer(EAGER_FRAMES)
      assert.deepStrictEqual(taken.slice(3), [EAGER_FRAMES], "a new run starts from EAGER_FRAMES again")
      yield* Fiber.interrupt(writer)
    }))

  it.effect("one frame of EAGER_CHARS characters is handed over at once", () =>
    Effect.gen(function*() {
      const outbox = new Outbox()
      const taker = yield* outbox.take.pipe(Effect.forkChild({ startImmediately: true }))
      const big = `${"x".repeat(EAGER_CHARS)}\n`
      outbox.offer(big)
      const done = taker.pollUnsafe()
      assert.isTrue(done !== undefined && Exit.isSuccess(done), "taken synchronously")
      assert.strictEqual(text(yield* Fiber.join(taker)), big)
    }))
})
