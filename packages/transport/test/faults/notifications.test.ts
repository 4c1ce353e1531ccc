/**
 * Fault suite, in-memory peer: notification floods.
 *
 * Invariant: the reader never waits for a notification consumer; what a stalled consumer has not taken is
 * bounded by `notificationBuffer`, and calls keep pairing meanwhile.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Exit, Fiber, Latch, Stream } from "effect"
import { controlledPeer, echoResult, eventually } from "../peers.ts"
import { framesWith } from "./helpers.ts"

const FLOOD = 2_000
const BUFFER = 16

describe("Fault: notification flood (in-memory peer)", () => {
  it.effect("a flood with a stalled subscriber: the reader never waits, calls still pair, the buffer stays bounded", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server", notificationBuffer: BUFFER }).pipe(
        Effect.provide(layer)
      )
      yield* client.awaitReady
      const p = yield* peer
      const seen: Array<unknown> = []
      const gate = yield* Latch.make(false)
      const subscribed = yield* Latch.make(false)
      const collected = yield* client.notifications.pipe(
        Stream.tap(() => subscribed.open.pipe(Effect.andThen(gate.await))),
        Stream.runForEach((n) => Effect.sync(() => seen.push(n))),
        Effect.forkChild({ startImmediately: true })
      )
      // The subscriber takes one notification, then stalls on the gate.
      yield* p.send({ jsonrpc: "2.0", method: "notifications/message", params: { i: -1 } })
      yield* subscribed.await
      const call = yield* client.callTool("x", {}).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* eventually(() => framesWith(frames, "tools/call").length === 1, "call sent")
      const id = framesWith(frames, "tools/call")[0]!.id
      let burst = ""
      for (let i = 0; i < FLOOD; i++) {
        burst += `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { i } })}\n`
        if (i === FLOOD / 2) burst += `${JSON.stringify({ jsonrpc: "2.0", id, result: echoResult("mid-flood") })}\n`
      }
      yield* p.sendRaw(burst)
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(call)), "the answer inside the flood paired")
      yield* eventually(() => client.stats().notifications === FLOOD + 1, "the whole flood was read")
      yield* gate.open
      // What the stalled subscriber was holding: the one it stalled on plus at most a full buffer. (Which ones
      // it keeps is pinned by notificationsDropNewest.test.ts.)
      yield* eventually(() => seen.length >= 1 + BUFFER, "the held notifications delivered")
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow
      assert.strictEqual(seen.length, 1 + BUFFER, `bounded by notificationBuffer, not ${FLOOD}`)
      yield* Fiber.interrupt(collected)
    }))
})
