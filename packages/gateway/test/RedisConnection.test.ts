/**
 * RedisConnection's supervisor on TestClock, over a fake Redis: it starts without waiting for Redis, reports every
 * state, reconnects after the schedule's delay and not before, starts a fresh schedule after each connection,
 * stops when the schedule ends, takes a failed command plus a failed PING as a drop, never waits in `use`, and
 * never shows the URL's password.
 */
import { assert, describe, it } from "@effect/vitest"
import type { SharedState } from "@mcp-fleet/gateway"
import { Effect, PubSub, Redacted, Schedule, Stream, SubscriptionRef } from "effect"
import * as SecureRandom from "effect/crypto/SecureRandom"
import { TestClock } from "effect/testing"
import * as RedisConnection from "../src/redis/RedisConnection.ts"
import * as FakeRedis from "./support/FakeRedis.ts"

type Status = SharedState.Status

const start = (fake: FakeRedis.FakeRedis, schedule: Schedule.Schedule<unknown, string>, url = "redis://fake:1") =>
  RedisConnection.make({ url: Redacted.make(url), reconnect: schedule, connect: fake.connect }).pipe(
    Effect.provide(SecureRandom.layerWebCrypto)
  )

type Disconnected = Extract<Status, { readonly _tag: "Disconnected" }>

/** Waits until the status satisfies `predicate` (the current value counts). */
const until = (connection: RedisConnection.Service, predicate: (status: Status) => boolean) =>
  SubscriptionRef.changes(connection.status).pipe(
    Stream.filter(predicate),
    Stream.runHead,
    Effect.map((o) => (o._tag === "Some" ? o.value : assert.fail("the status stream ended")))
  )

const isTag = (tag: Status["_tag"]) => (status: Status) => status._tag === tag

/** Waits for a `Disconnected` status satisfying `predicate`. */
const disconnected = (connection: RedisConnection.Service, predicate: (status: Disconnected) => boolean = () => true) =>
  Effect.map(
    until(connection, (s) => s._tag === "Disconnected" && predicate(s)),
    (s) => (s._tag === "Disconnected" ? s : assert.fail(`not disconnected: ${s._tag}`))
  )

describe("RedisConnection", () => {
  it.effect("starts without Redis, reconnects after the schedule's delay and not before", () =>
    Effect.gen(function*() {
      const fake = FakeRedis.make()
      fake.up = false
      const connection = yield* start(fake, Schedule.exponential("100 millis"))
      const down = yield* disconnected(connection)
      assert.deepStrictEqual(down, {
        _tag: "Disconnected",
        since: 0,
        failedAttempts: 1,
        reason: "connect ECONNREFUSED (to <redacted>)", // the URL may hold a password: never shown
        retryAt: 100
      })
      // `use` fails at once while disconnected: it never waits for a connection.
      const refused = yield* Effect.flip(connection.use("read", (redis) => redis.send("PING")))
      assert.strictEqual(refused._tag, "RedisUnavailable")
      assert.strictEqual(
        refused.message,
        "Redis could not serve read: not connected (connect ECONNREFUSED (to <redacted>))."
      )
      fake.up = true
      yield* TestClock.adjust("99 millis")
      assert.strictEqual(fake.attempts.length, 1)
      yield* TestClock.adjust("1 millis")
      const up = yield* until(connection, isTag("Connected"))
      assert.deepStrictEqual(up, { _tag: "Connected", since: 100 })
      assert.strictEqual(fake.attempts.length, 2)
      assert.strictEqual(yield* connection.use("ping", (redis) => redis.send("PING")), "PONG")
    }))

  it.effect("failed attempts back off on the schedule; a drop starts a fresh schedule; Connected is an event", () =>
    Effect.gen(function*() {
      const fake = FakeRedis.make()
      const connection = yield* start(fake, Schedule.exponential("100 millis"))
      const events = yield* connection.events
      yield* until(connection, isTag("Connected"))
      assert.deepStrictEqual(yield* PubSub.take(events), { _tag: "Connected" })

      yield* fake.drop
      const dropped = yield* disconnected(connection)
      assert.deepStrictEqual(dropped, {
        _tag: "Disconnected",
        since: 0,
        failedAttempts: 0,
        reason: "the connection dropped: Socket closed unexpectedly",
        retryAt: 100
      })
      // Attempts at 100, 300 (+200), 700 (+400): the schedule's delays.
      yield* TestClock.adjust("100 millis")
      assert.strictEqual((yield* disconnected(connection, (s) => s.failedAttempts === 1)).retryAt, 300)
      yield* TestClock.adjust("199 millis")
      assert.strictEqual(fake.attempts.length, 2)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* disconnected(connection, (s) => s.failedAttempts === 2)).retryAt, 700)
      assert.strictEqual(fake.attempts.length, 3)
      fake.up = true
      yield* TestClock.adjust("400 millis")
      yield* until(connection, isTag("Connected"))
      assert.deepStrictEqual(yield* PubSub.take(events), { _tag: "Connected" })
      // After a connection the schedule starts again: the next drop waits 100 ms, not 800.
      yield* fake.drop
      const again = yield* disconnected(connection)
      assert.strictEqual(again.retryAt, again.since + 100)
    }))

  it.effect("a schedule that ends leaves the replica disconnected with no further attempt", () =>
    Effect.gen(function*() {
      const fake = FakeRedis.make()
      fake.up = false
      const connection = yield* start(fake, Schedule.spaced("1 second").pipe(Schedule.upTo({ times: 2 })))
      yield* TestClock.adjust("10 seconds")
      const final = yield* disconnected(connection, (s) => s.retryAt === undefined)
      assert.strictEqual(final.failedAttempts, 3)
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(fake.attempts.length, 3)
    }))

  it.effect("a failed command then a failed PING is a drop; a failed command alone is not", () =>
    Effect.gen(function*() {
      const fake = FakeRedis.make()
      const connection = yield* start(fake, Schedule.spaced("1 second"))
      yield* until(connection, isTag("Connected"))
      // A command the server refuses: PING still answers, the connection stays.
      const unknown = yield* Effect.flip(connection.use("get", (redis) => redis.send("GET", "k")))
      assert.include(unknown.reason, "the fake does not know GET")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* SubscriptionRef.get(connection.status))._tag, "Connected")
      // Commands fail on a connection whose subscription is still open: PING fails too, so it is dropped.
      fake.broken = true
      yield* Effect.flip(connection.use("get", (redis) => redis.send("PING")))
      const dropped = yield* disconnected(connection)
      assert.strictEqual(dropped.reason, "the connection dropped: The client is closed")
      fake.broken = false
      yield* TestClock.adjust("1 second")
      yield* until(connection, isTag("Connected"))
    }))

  it.effect("publish reaches the channel with this replica as origin; events carry only the others' messages", () =>
    Effect.gen(function*() {
      const fake = FakeRedis.make()
      const connection = yield* start(fake, Schedule.spaced("1 second"))
      const events = yield* connection.events
      yield* until(connection, isTag("Connected"))
      yield* PubSub.take(events) // Connected
      yield* connection.publish("change", { x: 1 })
      fake.deliver("mcp-fleet:events", JSON.stringify({ o: "another", k: "tokens", b: { resource: "r" } }))
      fake.deliver("mcp-fleet:events", "not json")
      assert.deepStrictEqual(fake.published.map((p) => [p.channel, JSON.parse(p.message)]), [
        ["mcp-fleet:events", { o: connection.replica, k: "change", b: { x: 1 } }]
      ])
      assert.deepStrictEqual(yield* PubSub.take(events), {
        _tag: "Message",
        kind: "tokens",
        origin: "another",
        body: { resource: "r" }
      })
      assert.strictEqual(yield* PubSub.remaining(events), 0)
    }))

  it.effect("no status or error shows the URL's password", () =>
    Effect.gen(function*() {
      const fake = FakeRedis.make()
      fake.up = false
      const connection = yield* start(fake, Schedule.spaced("1 second"), "redis://gateway:hunter2%40x@fake:1/0")
      const down = yield* disconnected(connection)
      const error = yield* Effect.flip(connection.use("read", (redis) => redis.send("PING")))
      for (const shown of [JSON.stringify(down), error.message, JSON.stringify(error)]) {
        assert.notInclude(shown, "hunter2")
        assert.include(shown, "<redacted>")
      }
    }))
})
