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
import { Deferred, Effect, Exit, Fiber, Latch, Stream } from "effect"
import { controlledPeer } from "../peers.ts"

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
  // Waiters on what the stalled subscriber has received, woken by each delivery (no polling).
  const waiters: Array<{ readonly check: () => boolean; readonly done: Deferred.Deferred<void> }> = []
  const wake = Effect.sync(() => {
    for (const w of waiters) if (w.check()) Deferred.doneUnsafe(w.done, Exit.void)
  })
  const stalledHas = (check: (received: ReadonlyArray<number>) => boolean) =>
    Effect.gen(function*() {
      const done = yield* Deferred.make<void>()
      waiters.push({ check: () => check(stalled), done })
      yield* wake
      yield* Deferred.await(done)
    })
  const stalledFiber = yield* client.notifications.pipe(
    Stream.runForEach((n) =>
      Effect.sync(() => stalled.push(indexOf(n))).pipe(
        Effect.andThen(wake),
        Effect.andThen(stalledOn.open),
        Effect.andThen(gate.await)
      )
    ),
    Effect.forkChild({ startImmediately: true })
  )
  return { client, gate, p: yield* peer, stalled, stalledFiber, stalledHas, stalledOn }
})

/** Completes when a fresh, fast subscriber (subscribed now) has received notification `i`. */
const received = (client: McpClient.McpClient, i: number) =>
  Effect.gen(function*() {
    const seen = yield* Deferred.make<void>()
    const fiber = yield* client.notifications.pipe(
      Stream.runForEach((n) => (indexOf(n) === i ? Deferred.succeed(seen, undefined) : Effect.void)),
      Effect.forkChild({ startImmediately: true })
    )
    return Deferred.await(seen).pipe(Effect.andThen(Fiber.interrupt(fiber)))
  })

describe("regression: a full notification buffer drops the oldest, per subscriber", () => {
  it.effect("a stalled subscriber loses the oldest notifications, not the newest", () =>
    Effect.gen(function*() {
      const { client, gate, p, stalled, stalledFiber, stalledHas, stalledOn } = yield* setup
      // An active subscriber sees the notifications arrive: its receiving 20 means all 21 were read.
      const twentyRead = yield* received(client, 20)
      yield* p.send(note(0))
      yield* stalledOn.await
      for (let i = 1; i <= 20; i++) yield* p.send(note(i))
      yield* twentyRead
      // The stalled subscriber holds 0 and, in its buffer of 4, the newest four: 17 to 20.
      yield* gate.open
      yield* stalledHas((r) => r.length >= 1 + BUFFER)
      // A sentinel sent now comes after everything the subscriber still holds: once it arrives, every
      // notification the subscriber will get from before it has been delivered. Nothing dropped, or the newest
      // dropped, both give another sequence.
      yield* p.send(note(99))
      yield* stalledHas((r) => r.includes(99))
      assert.deepStrictEqual(
        stalled,
        [0, 17, 18, 19, 20, 99],
        `expected the oldest 16 dropped and the newest 4 kept: got ${JSON.stringify(stalled)}`
      )
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
        yield* p.read
        assert.strictEqual(client.stats().notifications, i + 1)
        for (let k = 0; k < 50; k++) yield* Effect.yieldNow
      }
      assert.deepStrictEqual(
        active,
        Array.from({ length: 3 * BUFFER + 1 }, (_, i) => i),
        "the active subscriber missed some"
      )
    }))
})
