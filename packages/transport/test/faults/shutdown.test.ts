/**
 * Fault suite, in-memory peer under TestClock: how long closing takes, pinned to the millisecond.
 *
 * Graceful close = end stdin → wait `shutdownGrace` for the exit → SIGTERM → wait `killGrace` → SIGKILL.
 * `forceClose` = SIGKILL at once. Both are bounded whatever the server does.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Deferred, Effect, Exit, Fiber, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import { controlledPeer } from "../peers.ts"
import { closableScope, failureOf } from "./helpers.ts"

const GRACE = { shutdownGrace: "2 seconds", killGrace: "3 seconds" } as const

describe("Fault: shutdown bounds (in-memory peer)", () => {
  it.effect("ignore-sigterm: graceful close ends by SIGKILL at exactly shutdownGrace + killGrace", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({ ignoreEof: true }, { ignoreSignals: ["SIGTERM"] })
      const scope = yield* closableScope
      const client = yield* McpClient.make({ command: "server", ...GRACE }).pipe(
        Effect.provide(layer),
        Scope.provide(scope)
      )
      yield* client.awaitReady
      const p = yield* peer
      const call = yield* client.ping().pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      const closing = yield* Scope.close(scope, Exit.void).pipe(Effect.forkChild({ startImmediately: true }))
      assert.strictEqual(failureOf(yield* Fiber.join(call))._tag, "ClientClosed", "pending calls fail first")
      yield* Deferred.await(p.stdinClosed) // stdin is ended first, before any clock advance
      yield* TestClock.adjust("1999 millis")
      assert.isFalse(yield* Deferred.isDone(p.killed), "no signal during shutdownGrace")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Deferred.await(p.killed), "SIGTERM")
      yield* TestClock.adjust("2999 millis")
      assert.isUndefined(closing.pollUnsafe(), "still waiting for the SIGTERM to work")
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(closing)
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: null, signal: "SIGKILL" })
      assert.isFalse(client.isAlive())
    }))

  it.effect("a server that exits on stdin EOF is closed at once, without any signal", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({})
      const scope = yield* closableScope
      const client = yield* McpClient.make({ command: "server", ...GRACE }).pipe(
        Effect.provide(layer),
        Scope.provide(scope)
      )
      yield* client.awaitReady
      const p = yield* peer
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(yield* Deferred.isDone(p.killed), "never signalled")
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: 0, signal: null })
    }))

  it.effect("forceClose during a graceful close kills at once: the close ends without waiting its grace periods", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({ ignoreEof: true }, { ignoreSignals: ["SIGTERM"] })
      const scope = yield* closableScope
      const client = yield* McpClient.make({ command: "server", ...GRACE }).pipe(
        Effect.provide(layer),
        Scope.provide(scope)
      )
      yield* client.awaitReady
      const p = yield* peer
      const closing = yield* Scope.close(scope, Exit.void).pipe(Effect.forkChild({ startImmediately: true }))
      yield* Deferred.await(p.stdinClosed)
      yield* TestClock.adjust("500 millis")
      assert.isUndefined(closing.pollUnsafe(), "the graceful close waits for the server")
      // No more clock: the force alone ends both.
      yield* client.forceClose
      assert.strictEqual(yield* Deferred.await(p.killed), "SIGKILL")
      yield* Fiber.join(closing)
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: null, signal: "SIGKILL" })
    }))

  it.effect("forceClose of a server that ignores SIGTERM and EOF completes at once, by SIGKILL", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({ ignoreEof: true }, { ignoreSignals: ["SIGTERM"] })
      const client = yield* McpClient.make({ command: "server", ...GRACE }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const call = yield* client.ping().pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* client.forceClose
      assert.strictEqual(yield* Deferred.await((yield* peer).killed), "SIGKILL")
      assert.strictEqual(failureOf(yield* Fiber.join(call))._tag, "ClientClosed")
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: null, signal: "SIGKILL" })
      // Closing again (the scope's own finalizer will) is harmless and immediate.
      yield* client.forceClose
    }))
})
