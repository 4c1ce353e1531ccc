/**
 * The change bus over a real redis-server, three replicas: a change published on one reaches the subscribers of
 * all three; the same change published by all three (each saw it on its own upstream connection) reaches each
 * subscriber once; fed into ListChanges, each replica's host gets one list_changed for it.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ChangeBus, ListChanges } from "@mcp-fleet/gateway"
import { Daemons } from "@mcp-fleet/testing"
import { Deferred, Effect, PubSub, Queue, Ref, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Replicas from "./support/Replicas.ts"

const listChanged = (fingerprint: string): ChangeBus.Change => ({
  _tag: "ListChanged",
  server: "github",
  kinds: ["tools"],
  fingerprint
})
const config = (revision: string): ChangeBus.Change => ({ _tag: "ConfigChanged", revision })

/** Takes from a subscription until every marker revision was seen; returns the keys seen, in order. */
const takeUntil = (subscription: PubSub.Subscription<ChangeBus.Change>, markers: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const keys: Array<string> = []
    const missing = new Set(markers)
    while (missing.size > 0) {
      const change = yield* PubSub.take(subscription)
      // A replica's Resync (after it connected) may land in a subscription made just after: not a change.
      if (change._tag !== "Resync") keys.push(ChangeBus.keyOf(change))
      if (change._tag === "ConfigChanged") missing.delete(change.revision)
    }
    return keys
  })

describe("ChangeBus over Redis", () => {
  it.effect("one replica's change reaches all; a change all three publish reaches each subscriber once", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const replicas = yield* Effect.all([
        Replicas.replica(redis.url),
        Replicas.replica(redis.url),
        Replicas.replica(redis.url)
      ])
      const subscriptions = yield* Effect.forEach(replicas, (r) => r.bus.subscribe)
      // A marker is delivered at once on its own replica and through Redis, after A, on the others: with markers
      // from two replicas, every subscriber has seen A by the time it has seen both.
      yield* replicas[0]!.bus.publish(listChanged("A"))
      yield* replicas[1]!.bus.publish(config("m1"))
      yield* replicas[2]!.bus.publish(config("m3"))
      for (const subscription of subscriptions) {
        const keys = yield* takeUntil(subscription, ["m1", "m3"])
        assert.deepStrictEqual([...keys].sort(), ["config:m1", "config:m3", "list:github:tools:A"])
      }
      // All three saw the same upstream change and publish it; then two markers, from replicas 1 and 3, published
      // after it in Redis's order: every copy of B has reached every replica before both markers have.
      for (const replica of replicas) yield* replica.bus.publish(listChanged("B"))
      yield* replicas[0]!.bus.publish(config("m4"))
      yield* replicas[2]!.bus.publish(config("m5"))
      for (const subscription of subscriptions) {
        const keys = yield* takeUntil(subscription, ["m4", "m5"])
        assert.deepStrictEqual(keys.filter((k) => k === "list:github:tools:B"), ["list:github:tools:B"], keys.join(" "))
      }
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("fed into ListChanges, each replica's host gets one list_changed per real change", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const replicas = yield* Effect.all([
        Replicas.replica(redis.url),
        Replicas.replica(redis.url),
        Replicas.replica(redis.url)
      ])
      // The upstream's tools, as every replica reads them from its own connection to it.
      const upstream = yield* Ref.make<ListChanges.Catalog>({
        tools: [{ name: "github__search" }],
        resources: [],
        resourceTemplates: [],
        prompts: []
      })
      const notified = yield* Effect.forEach(replicas, (replica) =>
        Effect.gen(function*() {
          const triggers = yield* replica.bus.subscribe
          const baseline = yield* Deferred.make<void>()
          const out = yield* Queue.unbounded<ReadonlyArray<ListChanges.Kind>>()
          yield* ListChanges.watch({
            triggers: Stream.fromSubscription(triggers),
            read: Effect.tap(Ref.get(upstream), () => Deferred.succeed(baseline, undefined))
          }).pipe(Stream.runForEach((kinds) => Queue.offer(out, kinds)), Effect.forkScoped)
          yield* Deferred.await(baseline)
          return out
        }))
      const markers = yield* Effect.forEach(replicas, (r) => r.bus.subscribe)
      const setTools = (names: ReadonlyArray<string>) =>
        Ref.set(upstream, { tools: names.map((name) => ({ name })), resources: [], resourceTemplates: [], prompts: [] })
      const settle = (first: string, second: string) =>
        Effect.gen(function*() {
          yield* replicas[0]!.bus.publish(config(first))
          yield* replicas[2]!.bus.publish(config(second))
          for (const subscription of markers) yield* takeUntil(subscription, [first, second])
          // Every copy has arrived; the quiet window passes.
          yield* TestClock.adjust("100 millis")
        })

      // Seen by one replica only (a config reload there): every replica's host is told, once.
      yield* setTools(["github__search", "github__create_issue"])
      yield* replicas[0]!.bus.publish(config("reload-1"))
      yield* settle("m1", "m2")
      for (const out of notified) assert.deepStrictEqual(yield* Queue.take(out), ["tools"])

      // Seen by all three (each on its own upstream connection) and published three times: told once each.
      yield* setTools(["github__search"])
      const fingerprint = ListChanges.fingerprint(yield* Ref.get(upstream)).tools
      for (const replica of replicas) yield* replica.bus.publish(listChanged(fingerprint))
      yield* settle("m3", "m4")
      for (const out of notified) assert.deepStrictEqual(yield* Queue.take(out), ["tools"])
      yield* TestClock.adjust("10 seconds")
      for (const out of notified) assert.strictEqual(yield* Queue.size(out), 0)
    }).pipe(Effect.provide(NodeServices.layer)))
})
