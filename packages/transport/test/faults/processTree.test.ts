/**
 * Fault suite, in-memory peer and process table under TestClock (issue 24, item 10): closing a stdio client ends
 * the server's descendants that left its process group (`setsid`), with the same ladder as the group and within
 * the same bound. The table is read before the first signal, stdin's EOF included: once the server has exited,
 * its descendants no longer name it as their parent.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Clock, Deferred, Effect, Exit, Fiber, Layer, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as Fake from "../fakeProcessTree.ts"
import { controlledPeer } from "../peers.ts"
import { closableScope } from "./helpers.ts"

const GRACE = { shutdownGrace: "2 seconds", killGrace: "3 seconds" } as const
/** The first pid the in-memory spawner hands out. */
const SERVER = 10_000
const { entry, SELF } = Fake

describe("Fault: descendants outside the process group (in-memory peer and process table)", () => {
  it.effect("a server that exits on EOF, its setsid grandchild ignoring SIGTERM: SIGKILL at exactly killGrace", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({})
      let eofBeforeRead: boolean | undefined
      let stdinClosed: Deferred.Deferred<void> | undefined
      const tree = Fake.make([entry(SERVER, SELF), entry(SERVER + 50, SERVER, { ignores: ["SIGTERM"] })], {
        onRead: () => void (eofBeforeRead ??= stdinClosed !== undefined && Deferred.isDoneUnsafe(stdinClosed))
      })
      const scope = yield* closableScope
      const client = yield* McpClient.make({ command: "server", ...GRACE }).pipe(
        Effect.provide(Layer.merge(layer, tree.layer)),
        Scope.provide(scope)
      )
      yield* client.awaitReady
      const p = yield* peer
      stdinClosed = p.stdinClosed
      const closing = yield* Scope.close(scope, Exit.void).pipe(
        Effect.andThen(Clock.currentTimeMillis),
        Effect.forkChild({ startImmediately: true })
      )
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* Fiber.join(closing), 3_000, "close returned at killGrace, not later")
      assert.isFalse(eofBeforeRead, "the table was read before stdin's EOF")
      assert.deepStrictEqual(tree.signals(), [`${SERVER + 50}:SIGTERM@0`, `${SERVER + 50}:SIGKILL@3000`])
      assert.isFalse(tree.running(SERVER + 50))
      assert.isFalse(yield* Deferred.isDone(p.killed), "the server itself went on EOF, unsignalled")
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: 0, signal: null })
    }))

  it.effect("a server that ignores EOF and SIGTERM: the group's and the descendants' ladders step together", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({ ignoreEof: true }, { ignoreSignals: ["SIGTERM"] })
      const tree = Fake.make([
        entry(SERVER, SELF),
        entry(SERVER + 1, SERVER, { ignores: ["SIGTERM"] }),
        entry(SERVER + 2, SERVER + 1)
      ])
      const scope = yield* closableScope
      const client = yield* McpClient.make({ command: "server", ...GRACE }).pipe(
        Effect.provide(Layer.merge(layer, tree.layer)),
        Scope.provide(scope)
      )
      yield* client.awaitReady
      const p = yield* peer
      const closing = yield* Scope.close(scope, Exit.void).pipe(
        Effect.andThen(Clock.currentTimeMillis),
        Effect.forkChild({ startImmediately: true })
      )
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* Fiber.join(closing), 5_000, "shutdownGrace + killGrace, as without descendants")
      assert.strictEqual(yield* Deferred.await(p.killed), "SIGTERM")
      assert.deepStrictEqual(tree.signals(), [
        `${SERVER + 1}:SIGTERM@2000`,
        `${SERVER + 2}:SIGTERM@2000`,
        `${SERVER + 1}:SIGKILL@5000`
      ])
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: null, signal: "SIGKILL" })
    }))

  it.effect("forceClose: SIGKILL to the descendants at once, beside the group's", () =>
    Effect.gen(function*() {
      const { layer } = yield* controlledPeer({ ignoreEof: true }, { ignoreSignals: ["SIGTERM"] })
      const tree = Fake.make([entry(SERVER, SELF), entry(SERVER + 7, SERVER, { ignores: ["SIGTERM"] })])
      const client = yield* McpClient.make({ command: "server", ...GRACE }).pipe(
        Effect.provide(Layer.merge(layer, tree.layer))
      )
      yield* client.awaitReady
      yield* client.forceClose
      assert.strictEqual(yield* Clock.currentTimeMillis, 0)
      assert.deepStrictEqual(tree.signals(), [`${SERVER + 7}:SIGKILL@0`])
    }))

  it.effect("a descendant that is gone by the time the group is signalled is not signalled", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({})
      const tree = Fake.make([entry(SERVER, SELF), entry(SERVER + 3, SERVER)])
      const scope = yield* closableScope
      const client = yield* McpClient.make({ command: "server", ...GRACE }).pipe(
        Effect.provide(Layer.merge(layer, tree.layer)),
        Scope.provide(scope)
      )
      yield* client.awaitReady
      const p = yield* peer
      const closing = yield* Scope.close(scope, Exit.void).pipe(Effect.forkChild({ startImmediately: true }))
      yield* Deferred.await(p.stdinClosed)
      tree.remove(SERVER + 3)
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(closing)
      assert.deepStrictEqual(tree.signals(), [])
    }))
})
