import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { Progress } from "../../src/ProtocolFeatures.ts"
import * as MemoryPeer from "./memoryPeer.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

const progressOf = (token: unknown, progress: number, message?: string) => ({
  method: "notifications/progress",
  params: { progressToken: token, progress, total: 4, ...(message === undefined ? {} : { message }) }
})

const done = (id: unknown) => ({ id, result: { content: [{ type: "text", text: "done" }] } })

describe("progress", () => {
  it.effect("the client mints a distinct token per call: the request's id, in _meta.progressToken", () =>
    Effect.gen(function*() {
      const peer = yield* MemoryPeer.make()
      yield* peer.session.awaitReady
      const onProgress = () => Effect.void
      const a = yield* Effect.forkChild(peer.session.callTool("slow", { x: 1 }, { onProgress }))
      const b = yield* Effect.forkChild(peer.session.callTool("slow", {}, { onProgress }))
      const first = yield* MemoryPeer.nextRequest(peer, "tools/call")
      const second = yield* MemoryPeer.nextRequest(peer, "tools/call")
      assert.strictEqual(MemoryPeer.progressToken(first), first["id"])
      assert.strictEqual(MemoryPeer.progressToken(second), second["id"])
      assert.notStrictEqual(first["id"], second["id"])
      assert.deepStrictEqual(first["params"], {
        name: "slow",
        arguments: { x: 1 },
        _meta: { progressToken: first["id"] }
      })
      peer.send(done(first["id"]))
      peer.send(done(second["id"]))
      yield* Fiber.join(a)
      yield* Fiber.join(b)
      // Without progress options, no token is sent.
      const plain = yield* Effect.forkChild(peer.session.callTool("plain"))
      const third = yield* MemoryPeer.nextRequest(peer, "tools/call")
      assert.isUndefined(MemoryPeer.progressToken(third))
      peer.send(done(third["id"]))
      yield* Fiber.join(plain)
    }))

  it.effect("resetTimeoutOnProgress: a 4 s call reporting every second completes under a 2 s timeout", () =>
    Effect.gen(function*() {
      const peer = yield* MemoryPeer.make()
      yield* peer.session.awaitReady
      const seen: Array<Progress> = []
      const call = yield* Effect.forkChild(peer.session.callTool("slow", {}, {
        timeout: "2 seconds",
        resetTimeoutOnProgress: true,
        onProgress: (progress) => Effect.sync(() => seen.push(progress))
      }))
      const request = yield* MemoryPeer.nextRequest(peer, "tools/call")
      const token = MemoryPeer.progressToken(request)
      for (let second = 1; second <= 3; second++) {
        yield* TestClock.adjust("1 second")
        peer.send(progressOf(token, second, `step ${second}`))
        yield* Effect.yieldNow
      }
      yield* TestClock.adjust("1 second")
      assert.isUndefined(call.pollUnsafe(), "the call is still waiting at 4 s: each report moved its deadline")
      peer.send(done(request["id"]))
      const result = yield* Fiber.join(call)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
      assert.deepStrictEqual(seen.map((p) => p.message), ["step 1", "step 2", "step 3"])
      assert.deepStrictEqual(seen[0], { progress: 1, total: 4, message: "step 1" })
    }))

  it.effect("without resetTimeoutOnProgress the same call fails at 2 s, progress or not", () =>
    Effect.gen(function*() {
      const peer = yield* MemoryPeer.make()
      yield* peer.session.awaitReady
      const call = yield* Effect.forkChild(
        Effect.exit(peer.session.callTool("slow", {}, { timeout: "2 seconds", onProgress: () => Effect.void }))
      )
      const request = yield* MemoryPeer.nextRequest(peer, "tools/call")
      yield* TestClock.adjust("1 second")
      peer.send(progressOf(MemoryPeer.progressToken(request), 1))
      yield* Effect.yieldNow
      yield* TestClock.adjust("1 second")
      const error = failureOf(yield* Fiber.join(call))
      assert.strictEqual(error._tag, "RequestTimeout")
      const cancelled = yield* MemoryPeer.nextRequest(peer, "notifications/cancelled")
      assert.deepStrictEqual(cancelled["params"], { requestId: request["id"], reason: "no answer within 2000 ms" })
    }))

  it.effect("maxTotalTimeout bounds the call from its start, whatever progress comes", () =>
    Effect.gen(function*() {
      const peer = yield* MemoryPeer.make()
      yield* peer.session.awaitReady
      const call = yield* Effect.forkChild(Effect.exit(peer.session.callTool("slow", {}, {
        timeout: "2 seconds",
        resetTimeoutOnProgress: true,
        maxTotalTimeout: "3 seconds",
        onProgress: () => Effect.void
      })))
      const request = yield* MemoryPeer.nextRequest(peer, "tools/call")
      const token = MemoryPeer.progressToken(request)
      yield* TestClock.adjust("1 second")
      peer.send(progressOf(token, 1))
      yield* Effect.yieldNow
      yield* TestClock.adjust("1 second")
      peer.send(progressOf(token, 2))
      yield* Effect.yieldNow
      yield* TestClock.adjust("999 millis")
      assert.isUndefined(call.pollUnsafe(), "still waiting just before the total bound")
      yield* TestClock.adjust("1 millis")
      const error = failureOf(yield* Fiber.join(call))
      assert.strictEqual(error._tag, "RequestTimeout")
      assert.strictEqual(error._tag === "RequestTimeout" ? error.timeoutMs : 0, 3000)
      const cancelled = yield* MemoryPeer.nextRequest(peer, "notifications/cancelled")
      assert.deepStrictEqual(cancelled["params"], { requestId: request["id"], reason: "no answer within 3000 ms" })
    }))

  it.effect("every report is delivered before the result, even when onProgress is slower than the wire", () =>
    Effect.gen(function*() {
      const peer = yield* MemoryPeer.make()
      yield* peer.session.awaitReady
      const seen: Array<number> = []
      const call = yield* Effect.forkChild(peer.session.callTool("slow", {}, {
        onProgress: (progress) =>
          Effect.gen(function*() {
            for (let i = 0; i < 5; i++) yield* Effect.yieldNow
            seen.push(progress.progress)
          })
      }))
      const request = yield* MemoryPeer.nextRequest(peer, "tools/call")
      const token = MemoryPeer.progressToken(request)
      // Three reports and the answer in one burst, as one SSE stream or one stdio read delivers them.
      peer.send(progressOf(token, 1))
      peer.send(progressOf(token, 2))
      peer.send(progressOf(token, 3))
      peer.send(done(request["id"]))
      yield* Fiber.join(call)
      assert.deepStrictEqual(seen, [1, 2, 3])
    }))

  it.effect("reports after the result, and for unknown tokens, are dropped and counted", () =>
    Effect.gen(function*() {
      const peer = yield* MemoryPeer.make()
      yield* peer.session.awaitReady
      const seen: Array<number> = []
      const call = yield* Effect.forkChild(peer.session.callTool("slow", {}, {
        onProgress: (progress) => Effect.sync(() => seen.push(progress.progress))
      }))
      const request = yield* MemoryPeer.nextRequest(peer, "tools/call")
      const token = MemoryPeer.progressToken(request)
      peer.send(progressOf(token, 1))
      peer.send(done(request["id"]))
      peer.send(progressOf(token, 2))
      peer.send(progressOf("nobody", 1))
      peer.send({ method: "notifications/progress", params: { progress: "not a number" } })
      yield* Fiber.join(call)
      assert.deepStrictEqual(seen, [1])
      const stats = peer.session.stats()
      assert.strictEqual(stats.progressDelivered, 1)
      assert.strictEqual(stats.progressDropped, 3)
    }))

  it.effect("callToolStream yields each report, then the result", () =>
    Effect.gen(function*() {
      const peer = yield* MemoryPeer.make()
      yield* peer.session.awaitReady
      const events = yield* Effect.forkChild(Stream.runCollect(peer.session.callToolStream("slow")))
      const request = yield* MemoryPeer.nextRequest(peer, "tools/call")
      const token = MemoryPeer.progressToken(request)
      peer.send(progressOf(token, 1, "a"))
      peer.send(progressOf(token, 2, "b"))
      peer.send(done(request["id"]))
      const collected = yield* Fiber.join(events)
      assert.deepStrictEqual(collected.map((event) => event._tag), ["Progress", "Progress", "Result"])
      const last = collected[2]
      assert.deepStrictEqual(last?._tag === "Result" ? last.result.content : undefined, [{
        type: "text",
        text: "done"
      }])
    }))

  it.effect("callToolStream fails with the call's error", () =>
    Effect.gen(function*() {
      const peer = yield* MemoryPeer.make()
      yield* peer.session.awaitReady
      const events = yield* Effect.forkChild(Effect.exit(Stream.runCollect(peer.session.callToolStream("slow"))))
      const request = yield* MemoryPeer.nextRequest(peer, "tools/call")
      peer.send({ id: request["id"], error: { code: -32000, message: "boom" } })
      const error = failureOf(yield* Fiber.join(events))
      assert.strictEqual(error._tag, "RemoteError")
    }))
})
