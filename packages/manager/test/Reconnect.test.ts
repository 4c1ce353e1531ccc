import { assert, describe, it } from "@effect/vitest"
import type { McpManager } from "@mcp-fleet/manager"
import { McpPeer } from "@mcp-fleet/testing"
import { Deferred, Effect, Queue, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { build, fleetSpawner, toolServer, until } from "./fleetPeers.ts"
import type { ScriptFor } from "./fleetPeers.ts"

type Manager = McpManager.McpManager["Service"]

const lineOf = (manager: Manager, name: string) =>
  manager.statusLines().split("\n").find((line) => line.startsWith(`${name}: `))!

describe("reconnection as a Schedule", () => {
  it.effect("a user-supplied Schedule sets every delay and the number of attempts, to the millisecond", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        s: (index, peer) => (index === 0 ? toolServer("s", () => ["t"])(peer) : peer.exit(2))
      })
      const manager = yield* build({
        servers: { s: { command: "s" } },
        reconnect: Schedule.spaced("250 millis").pipe(Schedule.upTo({ times: 2 }))
      }, layer)
      yield* until(manager, "s", (h) => h.state === "ready")
      yield* spawned.peers.s![0]!.exit(1)
      for (const attempt of [1, 2]) {
        const h = yield* until(manager, "s", (h) => h.attempt === attempt && h.nextRetryAt !== undefined)
        assert.strictEqual(h.maxAttempts, 2, "the limit is read from the schedule")
        assert.strictEqual(h.nextRetryInMs, 250)
        yield* TestClock.adjust("249 millis")
        assert.strictEqual(spawned.count.s, attempt, `no attempt ${attempt} before 250 ms`)
        yield* TestClock.adjust("1 millis")
        yield* until(manager, "s", () => spawned.count.s === attempt + 1)
      }
      const h = yield* until(manager, "s", (h) => h.gaveUp)
      assert.strictEqual(h.attempt, 2)
      assert.include(h.lastError!, "gave up reconnecting after 2 attempts")
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(spawned.count.s, 3, "the schedule is spent: no third attempt")
    }))

  it.effect("the status line says the attempt and when the next one starts", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        s: (index, peer) => (index === 0 ? toolServer("s", () => ["t"])(peer) : peer.exit(2))
      })
      const manager = yield* build({ servers: { s: { command: "s" } } }, layer)
      yield* until(manager, "s", (h) => h.state === "ready")
      yield* spawned.peers.s![0]!.exit(1)
      // Default policy: 1 s, 2 s, then 4 s before attempt 3.
      yield* until(manager, "s", (h) => h.attempt === 1 && h.nextRetryAt !== undefined)
      assert.strictEqual(
        lineOf(manager, "s"),
        "s: offline · reconnecting, attempt 1/5, next in 1 s · The process exited with code 1."
      )
      yield* TestClock.adjust("1 second")
      yield* until(manager, "s", (h) => h.attempt === 2 && h.nextRetryAt !== undefined)
      yield* TestClock.adjust("2 seconds")
      yield* until(manager, "s", (h) => h.attempt === 3 && h.nextRetryAt !== undefined)
      assert.strictEqual(
        lineOf(manager, "s"),
        "s: offline · reconnecting, attempt 3/5, next in 4 s · The process exited with code 2."
      )
      yield* TestClock.adjust("1500 millis")
      assert.include(lineOf(manager, "s"), "attempt 3/5, next in 3 s")
      yield* TestClock.adjust("2400 millis")
      assert.include(lineOf(manager, "s"), "attempt 3/5, next in 100 ms")
    }))

  it.effect("an unlimited user Schedule shows no limit, and keeps trying", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        s: (index, peer) => (index === 0 ? toolServer("s", () => ["t"])(peer) : peer.exit(2))
      })
      const manager = yield* build({ servers: { s: { command: "s" } }, reconnect: Schedule.spaced("2 seconds") }, layer)
      yield* until(manager, "s", (h) => h.state === "ready")
      yield* spawned.peers.s![0]!.exit(1)
      const h = yield* until(manager, "s", (h) => h.attempt === 1 && h.nextRetryAt !== undefined)
      assert.isUndefined(h.maxAttempts)
      assert.strictEqual(
        lineOf(manager, "s"),
        "s: offline · reconnecting, attempt 1, next in 2 s · The process exited with code 1."
      )
      for (let attempt = 2; attempt <= 8; attempt++) {
        yield* TestClock.adjust("2 seconds")
        yield* until(manager, "s", (h) => h.attempt === attempt && h.nextRetryAt !== undefined)
      }
      assert.strictEqual(spawned.count.s, 8)
      assert.isFalse((yield* manager.serverHealth("s")).gaveUp)
    }))

  it.effect("a reconnection attempt waits for initialize at most readyTimeout, then the next attempt follows", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        s: (
          index,
          peer
        ) => (index === 0 ? toolServer("s", () => ["t"])(peer) : McpPeer.serve({ initialize: "never" })(peer))
      })
      const manager = yield* build({ servers: { s: { command: "s" } }, readyTimeout: "10 seconds" }, layer)
      yield* until(manager, "s", (h) => h.state === "ready")
      yield* spawned.peers.s![0]!.exit(1)
      yield* until(manager, "s", (h) => h.attempt === 1 && h.nextRetryAt !== undefined)
      yield* TestClock.adjust("1 second")
      yield* until(manager, "s", (h) => h.state === "starting" && spawned.count.s === 2)
      yield* TestClock.adjust("10 seconds")
      const h = yield* until(manager, "s", (h) => h.attempt === 2 && h.nextRetryAt !== undefined)
      assert.include(h.lastError!, "no answer to initialize within 10000 ms")
      const abandoned = spawned.peers.s![1]!
      assert.isTrue(Deferred.isDoneUnsafe(abandoned.stdinClosed) || Deferred.isDoneUnsafe(abandoned.killed), "closed")
    }))
})

describe("crash loops", () => {
  const missingKey: ScriptFor = (index, peer) =>
    index === 2
      ? toolServer("s", () => ["t"])(peer)
      : peer.stderr("missing API key FOO_TOKEN\n").pipe(Effect.andThen(peer.exit(1)))

  it.effect("the second identical failure on start gives up at once, saying so; restart starts over", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ s: missingKey })
      const manager = yield* build({ servers: { s: { command: "s" } } }, layer)
      yield* until(manager, "s", (h) => h.attempt === 1 && h.nextRetryAt !== undefined)
      yield* TestClock.adjust("1 second")
      const h = yield* until(manager, "s", (h) => h.gaveUp)
      assert.strictEqual(spawned.count.s, 2, "two starts, not the whole schedule")
      assert.include(h.lastError!, "crashes on every start: exit code 1, 'missing API key FOO_TOKEN'")
      assert.include(manager.statusLines(), "s: offline · gave up after 1 attempt")
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(spawned.count.s, 2)
      // restart: attempts and evidence reset; the third start works.
      yield* manager.restart("s")
      yield* until(manager, "s", (h) => h.state === "ready")
      assert.strictEqual(spawned.count.s, 3)
    }))

  it.effect("failures that differ (or say nothing) spend the schedule", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        s: (index, peer) => peer.stderr(`port ${index} busy\n`).pipe(Effect.andThen(peer.exit(1)))
      })
      const manager = yield* build({ servers: { s: { command: "s" } }, reconnect: { maxAttempts: 2 } }, layer)
      yield* until(manager, "s", (h) => h.attempt === 1 && h.nextRetryAt !== undefined)
      yield* TestClock.adjust("1 second")
      yield* until(manager, "s", (h) => h.attempt === 2 && h.nextRetryAt !== undefined)
      yield* TestClock.adjust("2 seconds")
      const h = yield* until(manager, "s", (h) => h.gaveUp)
      assert.strictEqual(spawned.count.s, 3)
      assert.include(h.lastError!, "gave up reconnecting after 2 attempts")
    }))

  it.effect("the same initialize error twice gives up", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        s: (_, peer) =>
          // The era probe (id 1) gets -32601 as from any legacy server, then initialize (id 2) is refused.
          Queue.take(peer.received).pipe(
            Effect.andThen(peer.send(McpPeer.methodNotFound(1))),
            Effect.andThen(Queue.take(peer.received)),
            Effect.ignore,
            Effect.andThen(
              peer.send({ jsonrpc: "2.0", id: 2, error: { code: -32602, message: "unsupported client" } })
            ),
            Effect.andThen(peer.exit(1))
          )
      })
      const manager = yield* build({ servers: { s: { command: "s" } } }, layer)
      yield* until(manager, "s", (h) => h.attempt === 1 && h.nextRetryAt !== undefined)
      yield* TestClock.adjust("1 second")
      const h = yield* until(manager, "s", (h) => h.gaveUp)
      assert.strictEqual(spawned.count.s, 2)
      assert.include(h.lastError!, "fails on every start")
      assert.include(h.lastError!, "unsupported client")
    }))
})
