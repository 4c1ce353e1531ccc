/**
 * StatusEvents: one page's event stream, driven by TestClock: the state at once and on every snapshot, metrics at once
 * and then at most once a second while they change (bursts collapse, repeats are dropped), a heartbeat, the end.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ServerHealth } from "@mcp-fleet/manager"
import { Deferred, Effect, Fiber, Option, PubSub, Queue, Ref, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as StatusEvents from "../../src/status/StatusEvents.ts"
import type * as StatusView from "../../src/status/StatusView.ts"

const health = (name: string, state: ServerHealth.ServerHealth["state"]): ServerHealth.ServerHealth => ({
  name,
  state,
  transport: "stdio",
  url: undefined,
  tools: [],
  curated: [],
  curatedCount: 0,
  curatedMissing: [],
  instructions: undefined,
  lastError: state === "offline" ? "exit code 1" : undefined,
  attempt: 0,
  maxAttempts: 5,
  gaveUp: false,
  listChangedPending: false,
  pid: undefined,
  stderrTail: [],
  since: 0
})

const metricsWith = (calls: number): StatusView.MetricsEvent => ({
  now: 0,
  windowMs: 300_000,
  bucketMs: 10_000,
  gateway: { hosts: 0, sessions: 0, listeners: 0, calls },
  hosts: [],
  tools: [],
  series: {}
})

/** The stream running, its messages (event name and data, or `:` for a comment) in a queue. */
const harness = Effect.gen(function*() {
  const snapshots = yield* Queue.unbounded<ReadonlyArray<ServerHealth.ServerHealth>>()
  const activity = yield* PubSub.sliding<void>(1)
  const calls = yield* Ref.make(0)
  const rendered = yield* Queue.unbounded<number>()
  const closed = yield* Deferred.make<void>()
  const out = yield* Queue.unbounded<{ readonly name: string; readonly data: unknown }>()
  const decoder = new TextDecoder()
  yield* Queue.offer(snapshots, [health("alpha", "ready")])
  const fiber = yield* StatusEvents.stream({
    snapshots: Stream.fromQueue(snapshots),
    activity: Stream.fromPubSub(activity),
    metrics: Effect.tap(Effect.map(Ref.get(calls), metricsWith), (m) => Queue.offer(rendered, m.gateway.calls)),
    closed: Deferred.await(closed)
  }).pipe(
    Stream.runForEach((bytes) => {
      const text = decoder.decode(bytes)
      const name = /^event: (\w+)$/m.exec(text)?.[1] ?? text.trim()
      const data = /^data: (.*)$/m.exec(text)?.[1]
      return Queue.offer(out, { name, data: data === undefined ? undefined : JSON.parse(data) })
    }),
    Effect.forkChild
  )
  const next = Queue.take(out)
  const nothing = Effect.map(Queue.poll(out), (item) => {
    assert.isTrue(Option.isNone(item), `unexpected ${JSON.stringify(Option.getOrUndefined(item))}`)
  })
  const signal = PubSub.publish(activity, undefined)
  return { snapshots, calls, rendered, closed, fiber, next, nothing, signal }
})

describe("StatusEvents", () => {
  it.effect("retry first, then the state and the metrics at once; a new snapshot is a new state event", () =>
    Effect.gen(function*() {
      const h = yield* harness
      assert.strictEqual((yield* h.next).name, "retry: 1000")
      const names = [(yield* h.next).name, (yield* h.next).name].sort()
      assert.deepStrictEqual(names, ["metrics", "state"])
      yield* Queue.offer(h.snapshots, [health("alpha", "offline")])
      const state = (yield* h.next).data as StatusView.StateEvent
      assert.strictEqual(state.summary, "MCP: 1 server (1 offline), 0 tools (0 curated, 0 external)")
      assert.strictEqual(state.servers[0]!.state, "offline")
    }))

  it.effect("a burst of activity is one metrics event, a second after the last one; no change, no event", () =>
    Effect.gen(function*() {
      const h = yield* harness
      for (let i = 0; i < 3; i++) yield* h.next // retry, state, metrics
      for (let i = 1; i <= 10; i++) {
        yield* Ref.set(h.calls, i)
        yield* h.signal
      }
      yield* TestClock.adjust("999 millis")
      yield* h.nothing
      yield* TestClock.adjust("1 millis")
      const event = yield* h.next
      assert.strictEqual(event.name, "metrics")
      assert.strictEqual((event.data as StatusView.MetricsEvent).gateway.calls, 10)
      assert.deepStrictEqual(yield* Queue.takeAll(h.rendered), [0, 10])
      // Activity that changed nothing (the window aged, say) is read, and not sent: the next event is the next change.
      yield* h.signal
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* Queue.take(h.rendered), 10)
      yield* Ref.set(h.calls, 11)
      yield* h.signal
      yield* TestClock.adjust("1 second")
      assert.strictEqual(((yield* h.next).data as StatusView.MetricsEvent).gateway.calls, 11)
    }))

  it.effect("a comment every 15 s keeps the connection honest; the stream ends once closed", () =>
    Effect.gen(function*() {
      const h = yield* harness
      for (let i = 0; i < 3; i++) yield* h.next
      yield* TestClock.adjust("14 seconds")
      yield* h.nothing
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* h.next).name, ": keep-alive")
      yield* Deferred.succeed(h.closed, undefined)
      yield* Fiber.join(h.fiber)
    }))
})
