/**
 * Fault suite, in-memory peer: notification floods.
 *
 * Invariant: the reader never waits for a notification consumer; what a stalled consumer has not taken is
 * bounded by `notificationBuffer`, and calls keep pairing meanwhile.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Deferred, Effect, Exit, Fiber, Latch, Stream } from "effect"
import { awaitMethod, controlledPeer, echoResult } from "../peers.ts"
import { framesWith } from "./helpers.ts"

const FLOOD = 2_000
const BUFFER = 16

const isMarker = (n: { readonly params?: unknown }): boolean =>
  typeof n.params === "object" && n.params !== null && "i" in n.params && n.params.i === "marker"

describe("Fault: notification flood (in-memory peer)", () => {
  it.effect("a flood with a stalled subscriber: the reader never waits, calls still pair, the buffer stays bounded", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server", notificationBuffer: BUFFER }).pipe(
        Effect.provide(layer)
      )
      yield* client.awaitReady
      const p = yield* peer
      const seen: Array<{ readonly params?: unknown }> = []
      const held = Deferred.makeUnsafe<void>()
      const marker = Deferred.makeUnsafe<void>()
      const gate = yield* Latch.make(false)
      const subscribed = yield* Latch.make(false)
      const collected = yield* client.notifications.pipe(
        Stream.tap(() => subscribed.open.pipe(Effect.andThen(gate.await))),
        Stream.runForEach((n) =>
          Effect.sync(() => {
            seen.push(n)
            if (seen.length === 1 + BUFFER) Deferred.doneUnsafe(held, Exit.void)
            if (isMarker(n)) Deferred.doneUnsafe(marker, Exit.void)
          })
        ),
        Effect.forkChild({ startImmediately: true })
      )
      // The subscriber takes one notification, then stalls on the gate.
      yield* p.send({ jsonrpc: "2.0", method: "notifications/message", params: { i: -1 } })
      yield* subscribed.await
      const call = yield* client.callTool("x", {}).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* awaitMethod(frames, "tools/call", 1)
      const id = framesWith(frames, "tools/call")[0]!.id
      let burst = ""
      for (let i = 0; i < FLOOD; i++) {
        burst += `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { i } })}\n`
        if (i === FLOOD / 2) burst += `${JSON.stringify({ jsonrpc: "2.0", id, result: echoResult("mid-flood") })}\n`
      }
      yield* p.sendRaw(burst)
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(call)), "the answer inside the flood paired")
      yield* p.read
      assert.strictEqual(client.stats().notifications, FLOOD + 1)
      yield* gate.open
      // What the stalled subscriber was holding: the one it stalled on plus at most a full buffer. (Which ones
      // it keeps is pinned by notificationsDropNewest.test.ts.)
      yield* Deferred.await(held)
      // One notification more, sent now: once it arrives, whatever the subscriber was holding has been delivered.
      yield* p.send({ jsonrpc: "2.0", method: "notifications/message", params: { i: "marker" } })
      yield* Deferred.await(marker)
      assert.strictEqual(seen.length, 2 + BUFFER, `bounded by notificationBuffer (+ the marker), not ${FLOOD}`)
      yield* Fiber.interrupt(collected)
    }))
})
