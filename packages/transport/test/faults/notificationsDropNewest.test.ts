/**
 * Regression (fixed): a full notification buffer dropped the newest notifications, for every subscriber.
 *
 * Documented (`McpClient.notifications`, `McpClientOptions.notificationBuffer`): "Slow consumers lose the
 * oldest." The reader used to publish with `PubSub.publishUnsafe`, which does not apply the sliding strategy:
 * once any subscriber's buffer was full it refused the message, so a stalled subscriber kept the oldest
 * notifications and lost the newest, and every other subscriber, however fast, stopped receiving too. The reader
 * now publishes each batch with `PubSub.publishAll` (sliding).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Fiber, Latch, Stream } from "effect"
import { controlledPeer, eventually } from "../peers.ts"

const BUFFER = 4

const note = (i: number) => ({ jsonrpc: "2.0", method: "notifications/message", params: { i } })
const indexOf = (n: { readonly params: unknown }) => (n.params as { i: number }).i

const setup = Effect.gen(function*() {
  const { layer, peer } = yield* controlledPeer({})
  const client = yield* McpClient.make({ command: "server", notificationBuffer: BUFFER }).pipe(Effect.provide(layer))
  yield* client.awaitReady
  const stalledOn = yield* Latch.make(false)
  const gate = yield* Latch.make(false)
  const stalled: Array<number> = []
  const stalledFiber = yield* client.notifications.pipe(
    Stream.runForEach((n) =>
      Effect.sync(() => stalled.push(indexOf(n))).pipe(Effect.andThen(stalledOn.open), Effect.andThen(gate.await))
    ),
    Effect.forkChild({ startImmediately: true })
  )
  return { client, gate, p: yield* peer, stalled, stalledFiber, stalledOn }
})

describe("regression: a full notification buffer drops the oldest, per subscriber", () => {
  it.effect("a stalled subscriber loses the oldest notifications, not the newest", () =>
    Effect.gen(function*() {
      const { client, gate, p, stalled, stalledFiber, stalledOn } = yield* setup
      yield* p.send(note(0))
      yield* stalledOn.await
      for (let i = 1; i <= 20; i++) yield* p.send(note(i))
      yield* eventually(() => client.stats().notifications === 21, "all read")
      yield* gate.open
      yield* eventually(() => stalled.length >= 1 + BUFFER, "held ones delivered")
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow
      assert.strictEqual(stalled[stalled.length - 1], 20, `the newest was dropped: got ${JSON.stringify(stalled)}`)
      yield* Fiber.interrupt(stalledFiber)
    }))

  it.effect("one stalled subscriber does not make an active subscriber miss notifications", () =>
    Effect.gen(function*() {
      const { client, p, stalledOn } = yield* setup
      const active: Array<number> = []
      yield* client.notifications.pipe(
        Stream.runForEach((n) => Effect.sync(() => active.push(indexOf(n)))),
        Effect.forkChild({ startImmediately: true })
      )
      yield* p.send(note(0))
      yield* stalledOn.await
      // One at a time: the active subscriber takes each before the next is sent.
      for (let i = 1; i <= 3 * BUFFER; i++) {
        yield* p.send(note(i))
        yield* eventually(() => client.stats().notifications === i + 1, `notification ${i} read`)
        for (let k = 0; k < 50; k++) yield* Effect.yieldNow
      }
      assert.deepStrictEqual(
        active,
        Array.from({ length: 3 * BUFFER + 1 }, (_, i) => i),
        "the active subscriber missed some"
      )
    }))
})
