import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Pull } from "effect"
import { Outbox } from "../../src/internal/Outbox.ts"

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
})
