/**
 * Fault suite, in-memory peer under TestClock: crashes before and during calls, and a server that never
 * initializes.
 *
 * The clock is never advanced unless a test says so: a call that settles without `TestClock.adjust` settled
 * at once, not at a timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Clock, Effect, Exit, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import { awaitMethod, controlledPeer, echoResult } from "../peers.ts"
import { failureOf, framesWith } from "./helpers.ts"

describe("Fault: crash (in-memory peer)", () => {
  it.effect("answers written just before a crash are delivered; only unanswered calls fail, at time 0", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server", requestTimeout: "1 hour" }).pipe(
        Effect.provide(layer)
      )
      yield* client.awaitReady
      const calls = yield* Effect.forEach(
        ["answered", "lost"],
        (tool) => client.callTool(tool, { tool }).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      )
      yield* awaitMethod(frames, "tools/call", 2)
      const answeredId = framesWith(frames, "tools/call").find((f) =>
        (f.params as { name?: string }).name === "answered"
      )!.id
      const p = yield* peer
      // One burst: the answer, a last stderr line, then the exit — nothing in between for the client to run.
      yield* p.send({ jsonrpc: "2.0", id: answeredId, result: echoResult("kept") })
      yield* p.stderr("fatal: giving up\n")
      yield* p.exit(70)
      const [answered, lost] = yield* Effect.forEach(calls, Fiber.join)
      assert.isTrue(Exit.isSuccess(answered!), "the answer that came before the crash is delivered")
      const error = failureOf(lost!)
      assert.strictEqual(error._tag, "ProcessExited")
      if (error._tag === "ProcessExited") {
        assert.strictEqual(error.code, 70)
        assert.deepStrictEqual(error.stderrTail, ["fatal: giving up"])
      }
      assert.strictEqual(yield* Clock.currentTimeMillis, 0, "settled without any clock advance")
      assert.strictEqual(client.stats().pending, 0)
    }))

  it.effect("exit during initialize: awaitReady, calls and lists fail with ProcessExited, never 'still starting'", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({ initialize: "never" })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      const waiting = yield* client.awaitReady.pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* awaitMethod(frames, "initialize", 1)
      const p = yield* peer
      yield* p.stderr("error: config file not found\n")
      yield* p.exit(1)
      const error = failureOf(yield* Fiber.join(waiting))
      assert.strictEqual(error._tag, "ProcessExited")
      if (error._tag === "ProcessExited") {
        assert.strictEqual(error.code, 1)
        assert.deepStrictEqual(error.stderrTail, ["error: config file not found"])
      }
      assert.strictEqual(failureOf(yield* Effect.exit(client.callTool("x")))._tag, "ProcessExited")
      assert.strictEqual(failureOf(yield* Effect.exit(client.listTools()))._tag, "ProcessExited")
      assert.strictEqual(failureOf(yield* Effect.exit(client.awaitReady))._tag, "ProcessExited")
      assert.isFalse(client.isReady())
      assert.isFalse(client.isAlive())
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: 1, signal: null })
      assert.strictEqual(yield* Clock.currentTimeMillis, 0)
    }))

  it.effect("never initializes: initialize is neither timed out nor cancelled; awaitReady is bounded by its caller", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({
        initialize: "never",
        onRequest: (msg) => Effect.succeed(msg.method === "ping" ? {} : undefined)
      })
      const client = yield* McpClient.make({ command: "server", requestTimeout: "5 seconds" }).pipe(
        Effect.provide(layer)
      )
      const bounded = yield* client.awaitReady.pipe(
        Effect.timeout("1 minute"),
        Effect.exit,
        Effect.forkChild({ startImmediately: true })
      )
      yield* awaitMethod(frames, "initialize", 1)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(failureOf(yield* Fiber.join(bounded))._tag, "TimeoutError", "the caller's own bound")
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(framesWith(frames, "notifications/cancelled").length, 0, "initialize is never cancelled")
      assert.isTrue(client.isAlive(), "a slow start is not death")
      assert.isFalse(client.isReady())
      assert.strictEqual(client.stats().pending, 1, "initialize is still waiting")
      yield* client.ping() // allowed before initialize has been answered
      assert.strictEqual(failureOf(yield* Effect.exit(client.callTool("x")))._tag, "ErrIndexBuilding")
    }))

  it.effect("never initializes: closing the client settles awaitReady with ClientClosed", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({ initialize: "never" })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* awaitMethod(frames, "initialize", 1)
      const waiting = yield* client.awaitReady.pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* client.forceClose
      assert.strictEqual(failureOf(yield* Fiber.join(waiting))._tag, "ClientClosed")
      assert.strictEqual(failureOf(yield* Effect.exit(client.awaitReady))._tag, "ClientClosed")
      assert.strictEqual(client.stats().pending, 0)
    }))

  it.effect("a process that exits before initialize while its output stays open is ProcessExited at once", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({ initialize: "never" })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      const p = yield* peer
      yield* p.stderr("fatal: no index\n")
      // As when a grandchild holds stdout: the exit is known, the output is not drained (and the clock never
      // moves, so the drain window never ends).
      yield* p.exitHoldingOutput(4)
      yield* client.awaitExit
      assert.isFalse(client.isAlive())
      const call = failureOf(yield* Effect.exit(client.callTool("x")))
      assert.strictEqual(call._tag, "ProcessExited", "a dead process is never ErrIndexBuilding")
      if (call._tag === "ProcessExited") assert.strictEqual(call.code, 4)
      assert.strictEqual(failureOf(yield* Effect.exit(client.listTools()))._tag, "ProcessExited")
      assert.strictEqual(failureOf(yield* Effect.exit(client.ping()))._tag, "ProcessExited")
      assert.isFalse(client.isReady())
    }))
})
