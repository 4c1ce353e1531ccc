/**
 * Fault suite, in-memory peer: both shutdown paths join every fiber of the client (seed constraint 13; issue 11,
 * item 10). When `forceClose` or the scope's close returns, the reader, writer, stderr, exit, initialize and
 * deadline fibers have all finished, as `stats().fibersDone` reports.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Exit, Fiber, Scope } from "effect"
import { awaitMethod, closeWhileClockPasses, controlledPeer } from "../peers.ts"
import { assertAllFibersDone, closableScope } from "./helpers.ts"

/** A client still initializing, with a call pending and stderr output, as a close most often finds it. */
const busyClient = (scope: Scope.Scope) =>
  Effect.gen(function*() {
    const { frames, layer, peer } = yield* controlledPeer({ initialize: "never" })
    const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer), Scope.provide(scope))
    const p = yield* peer
    yield* p.stderr("starting\n")
    yield* client.ping().pipe(Effect.exit, Effect.forkScoped)
    yield* awaitMethod(frames, "initialize")
    yield* awaitMethod(frames, "ping")
    assert.strictEqual(client.stats().pending, 2, "initialize and ping pending")
    assert.isFalse(Object.values(client.stats().fibersDone).every(Boolean), "the fibers run before the close")
    return client
  })

/**
 * A client of a process that no signal ends: its stdout and stderr never end and its exit never comes, so none of
 * the reader, stderr and exit fibers can finish by itself. Only the close's own joins (bounded by the graces)
 * end them.
 */
const stuckClient = (scope: Scope.Scope) =>
  Effect.gen(function*() {
    const { frames, layer } = yield* controlledPeer({ ignoreEof: true }, { unkillable: true })
    const client = yield* McpClient.make({ command: "server", shutdownGrace: 1_000, killGrace: 1_000 }).pipe(
      Effect.provide(layer),
      Scope.provide(scope)
    )
    yield* client.awaitReady
    yield* client.ping().pipe(Effect.exit, Effect.forkScoped)
    yield* awaitMethod(frames, "ping")
    return client
  })

describe("Fault: both shutdown paths join every fiber (in-memory peer)", () => {
  it.effect("forceClose of a process no signal ends: every fiber is done when it returns", () =>
    Effect.gen(function*() {
      const client = yield* stuckClient(yield* closableScope)
      yield* closeWhileClockPasses(client.forceClose, () => assertAllFibersDone(client))
    }))

  it.effect("scope close of a process no signal ends: every fiber is done when it returns", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const client = yield* stuckClient(scope)
      yield* closeWhileClockPasses(Scope.close(scope, Exit.void), () => assertAllFibersDone(client))
    }))

  it.effect("forceClose: every fiber is done when it returns", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const client = yield* busyClient(scope)
      yield* client.forceClose
      assertAllFibersDone(client)
    }))

  it.effect("close: pending calls fail with ClientClosed, readiness is Closed, every fiber is done when it returns", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const client = yield* busyClient(scope)
      const ping = yield* client.ping().pipe(Effect.exit, Effect.forkScoped)
      yield* closeWhileClockPasses(client.close, () => assertAllFibersDone(client))
      const failed = yield* Fiber.join(ping)
      assert.isTrue(Exit.isFailure(failed) && failed.cause.toString().includes("close was called"))
      const readiness = client.readiness()
      assert.strictEqual(readiness._tag, "Closed")
      assert.isFalse(client.isAlive())
      assert.strictEqual(client.lastError(), "The MCP client for \"server\" is closed (close was called).")
      // Idempotent: a second close (and the scope's own) return at once.
      yield* client.close
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("scope close: every fiber is done when it returns", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const client = yield* busyClient(scope)
      yield* Scope.close(scope, Exit.void)
      assertAllFibersDone(client)
    }))
})
