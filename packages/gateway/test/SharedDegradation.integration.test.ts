/**
 * A replica whose Redis drops, against a real redis-server killed by pid mid-test: the status says so (an event,
 * for /readyz and the status), the replica keeps serving what needs no shared state (tokens it holds, its own
 * changes, results it stores itself, a refresh without the cross-replica lock), nothing waits on Redis, and it
 * reconnects on its Schedule (TestClock) once Redis is back, with what Redis kept (AOF). A replica started while
 * Redis is down builds at once and connects later.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { TokenStore } from "@mcp-fleet/auth"
import { SharedState } from "@mcp-fleet/gateway"
import { Daemons } from "@mcp-fleet/testing"
import type { Protocol } from "@mcp-fleet/transport"
import { Effect, Option, PubSub, Redacted, Schedule } from "effect"
import { TestClock } from "effect/testing"
import * as Replicas from "./support/Replicas.ts"

const tokens = (access: string): TokenStore.Tokens => ({
  issuer: "https://as.example",
  accessToken: Redacted.make(access),
  refreshToken: Redacted.make(`refresh-${access}`),
  expiresAt: 3_600_000,
  obtainedAt: 0,
  scope: undefined
})
const SERVER = "https://mcp.example/mcp"
const accessOf = (held: Option.Option<TokenStore.Tokens>) =>
  Option.getOrUndefined(Option.map(held, (t) => Redacted.value(t.accessToken)))
const big = (seed: string): Protocol.CallToolResult => ({ content: [{ type: "text", text: seed.repeat(500) }] })
const linkOf = (result: Protocol.CallToolResult): string => {
  const link = result.content.find((b) => b.type === "resource_link")
  return typeof link?.["uri"] === "string" ? link["uri"] : assert.fail("no resource_link")
}
const options = {
  redis: { reconnect: Schedule.spaced("1 second") },
  results: { threshold: 100, pageChars: 1_000 }
} as const

describe("shared state when Redis drops", () => {
  it.effect("degrades, keeps serving, reconnects on its schedule with what Redis kept", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis({ persistence: true })
      const one = yield* Replicas.replica(redis.url, options)
      const two = yield* Replicas.replica(redis.url, options)
      yield* one.tokens.setTokens(SERVER, tokens("T1"))
      const stored = linkOf(yield* one.results.spill(big("r")))
      assert.strictEqual(accessOf(yield* two.tokens.getTokens(SERVER)), "T1")
      assert.deepStrictEqual(SharedState.describe(yield* two.state.status), {
        degraded: false,
        line: "shared state: Redis connected"
      })
      const changes = yield* two.bus.subscribe
      const mine = yield* one.bus.subscribe

      // Redis dies.
      yield* redis.kill
      for (const replica of [one, two]) {
        const down = yield* Replicas.disconnected(replica.connection)
        assert.strictEqual(down.retryAt, down.since + 1_000)
      }
      const shown = SharedState.describe(yield* two.state.status)
      assert.isTrue(shown.degraded)
      assert.match(shown.line, /^shared state: Redis unreachable \(the connection dropped: .+\); next attempt at /)

      // What needs no shared state goes on, and nothing waits on Redis.
      assert.strictEqual(accessOf(yield* two.tokens.getTokens(SERVER)), "T1")
      yield* one.tokens.setTokens(SERVER, tokens("T2"))
      assert.strictEqual(accessOf(yield* one.tokens.getTokens(SERVER)), "T2", "kept on this replica")
      let refreshed = 0
      yield* (one.tokens.exclusive ?? assert.fail("no exclusive"))(SERVER, Effect.sync(() => refreshed++))
      assert.strictEqual(refreshed, 1, "a refresh runs without the cross-replica lock")
      yield* one.bus.publish({ _tag: "ConfigChanged", revision: "during-outage" })
      assert.deepStrictEqual(yield* PubSub.take(mine), { _tag: "ConfigChanged", revision: "during-outage" })
      const local = linkOf(yield* one.results.spill(big("l")))
      assert.strictEqual((yield* one.results.read(local)).contents.length, 1, "kept in this replica's memory")
      assert.strictEqual((yield* Effect.flip(two.results.read(local)))._tag, "ResultNotFound")
      assert.strictEqual((yield* Effect.flip(two.results.read(stored)))._tag, "ResultNotFound")

      // Redis is back (same port, its AOF): nothing happens before the schedule's delay, then both reconnect.
      yield* redis.start
      assert.strictEqual((yield* two.state.status)._tag, "Disconnected")
      yield* TestClock.adjust("1 second")
      for (const replica of [one, two]) yield* Replicas.connected(replica.connection)
      // Changes may have been missed: the bus says so.
      let change = yield* PubSub.take(changes)
      while (change._tag !== "Resync") change = yield* PubSub.take(changes)
      // What Redis kept is shared again; the write made during the outage stayed on its replica.
      assert.strictEqual((yield* two.results.read(stored)).contents.length, 1)
      assert.strictEqual(accessOf(yield* two.tokens.getTokens(SERVER)), "T1")
      yield* one.tokens.setTokens(SERVER, tokens("T3"))
      assert.strictEqual(
        accessOf(
          yield* Replicas.replica(redis.url, options).pipe(
            Effect.flatMap((three) => three.tokens.getTokens(SERVER))
          )
        ),
        "T3"
      )
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a replica started while Redis is down builds at once, serves degraded, connects on its schedule", () =>
    Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      yield* redis.kill
      const replica = yield* Replicas.replica(redis.url, { ...options, connected: false })
      const down = yield* Replicas.disconnected(replica.connection)
      assert.match(down.reason, /ECONNREFUSED/)
      assert.isTrue(Option.isNone(yield* replica.tokens.getTokens(SERVER)))
      yield* redis.start
      yield* TestClock.adjust("1 second")
      yield* Replicas.connected(replica.connection)
      yield* replica.tokens.setTokens(SERVER, tokens("T1"))
      assert.strictEqual(accessOf(yield* replica.tokens.getTokens(SERVER)), "T1")
    }).pipe(Effect.provide(NodeServices.layer)))
})
