/**
 * Regression (fixed): closing a client before its background fibers first ran leaves `awaitReady` pending forever.
 *
 * Expected: once the client is closed, `awaitReady` fails with `ClientClosed` (as it does when the close
 * comes a little later). Actual: it never settles. Shutdown interrupts the initialize fiber, which is the only
 * place that completes the `ready` Deferred; a forked fiber interrupted before it started never runs at all.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Exit, Fiber, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import { controlledPeer } from "../peers.ts"
import { closableScope, failureOf } from "./helpers.ts"

/** awaitReady, bounded by one minute of TestClock time so the test fails instead of hanging. */
const awaitReadyBounded = (client: McpClient.McpClient) =>
  Effect.gen(function*() {
    const fiber = yield* client.awaitReady.pipe(
      Effect.exit,
      Effect.timeoutOption("1 minute"),
      Effect.forkChild({ startImmediately: true })
    )
    yield* TestClock.adjust("1 minute")
    return yield* Fiber.join(fiber)
  })

describe("regression: awaitReady after an early close", () => {
  it.effect("forceClose right after make: awaitReady settles with ClientClosed", () =>
    Effect.gen(function*() {
      const { layer } = yield* controlledPeer({ initialize: "never" })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.forceClose
      const outcome = yield* awaitReadyBounded(client)
      assert.isTrue(Option.isSome(outcome), "awaitReady never settled after forceClose")
      if (Option.isSome(outcome)) assert.strictEqual(failureOf(outcome.value)._tag, "ClientClosed")
    }))

  it.effect("scope closed right after make: awaitReady settles with ClientClosed", () =>
    Effect.gen(function*() {
      const { layer } = yield* controlledPeer({ initialize: "never" })
      const scope = yield* closableScope
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer), Scope.provide(scope))
      yield* Scope.close(scope, Exit.void)
      const outcome = yield* awaitReadyBounded(client)
      assert.isTrue(Option.isSome(outcome), "awaitReady never settled after the scope closed")
      if (Option.isSome(outcome)) assert.strictEqual(failureOf(outcome.value)._tag, "ClientClosed")
    }))
})
