/**
 * A server whose every start fails `initialize` terminally (here: `-32022`, no protocol version in common). The
 * transport shuts each such child down and reports the typed error; the manager must not respawn it in a loop:
 * attempts follow the backoff (issue 11, item 3), and since the failure repeats identically, the second one
 * gives up at once instead of spending `maxAttempts` (issue 13, the crash-loop rule).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import type { FakeSpawner } from "@mcp-fleet/testing"
import { McpPeer } from "@mcp-fleet/testing"
import { Context, Deferred, Effect, Layer, Queue } from "effect"
import { TestClock } from "effect/testing"
import { fleetSpawner, until } from "./fleetPeers.ts"

/**
 * Answers `initialize` with `-32022` listing only a version the client does not speak, any other request with
 * `-32601`; exits on stdin EOF.
 */
const rejectsVersion = (_: number, peer: FakeSpawner.Peer) =>
  Effect.gen(function*() {
    while (true) {
      const next = yield* Effect.result(Queue.take(peer.received))
      if (next._tag === "Failure") return yield* peer.exit(0)
      const msg = next.success
      if (typeof msg === "object" && msg !== null && "method" in msg && msg.method === "initialize" && "id" in msg) {
        yield* peer.send({
          jsonrpc: "2.0",
          id: msg.id,
          error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2099-01-01"] } }
        })
      } else if (typeof msg === "object" && msg !== null && "id" in msg) {
        // Any other request (the era probe's server/discover): unknown, as to every legacy server.
        yield* peer.send(McpPeer.methodNotFound(msg.id))
      }
    }
  })

describe("a server whose initialize is rejected on every start", () => {
  it.effect("is shut down each time, retried on the backoff only, and given up at the second identical failure", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ old: rejectsVersion })
      const context = yield* Layer.build(
        McpManager.layer({
          servers: { old: { command: "old" } },
          reconnect: { initialDelay: "1 second", factor: 1, maxDelay: "1 second", maxAttempts: 3 }
        }).pipe(Layer.provide(layer))
      )
      const manager = Context.get(context, McpManager.McpManager)
      const health = () => manager.health().find((h) => h.name === "old")!
      yield* spawned.spawns("old", 1)
      for (let attempt = 1; attempt <= 1; attempt++) {
        yield* until(manager, "old", (h) => h.attempt === attempt)
        assert.strictEqual(spawned.count.old, attempt, `no respawn before the ${attempt}. delay has passed`)
        yield* TestClock.adjust("1 second")
        yield* spawned.spawns("old", attempt + 1)
      }
      yield* until(manager, "old", (h) => h.gaveUp)
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(spawned.count.old, 2, "no attempt after the second identical failure")
      assert.strictEqual(health().state, "offline")
      assert.include(
        health().lastError ?? "",
        "does not support protocol version \"2025-11-25\" (it supports 2099-01-01",
        "gives up with the reason"
      )
      assert.include(health().lastError!, "fails on every start")
      assert.include(health().lastError!, "2099-01-01")
      // Every child was shut down gracefully: its stdin was ended, and it exited on its own, without a signal.
      for (const peer of spawned.peers.old!) {
        assert.isTrue(Deferred.isDoneUnsafe(peer.stdinClosed), "stdin ended")
        assert.isFalse(Deferred.isDoneUnsafe(peer.killed), "no signal needed")
      }
    }))
})
