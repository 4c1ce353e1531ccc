/**
 * Issue 24, "tests that did not notice": `close` returns only once the exit watcher has recorded the exit and
 * drained the server's last output. A close that returned early would look the same from outside, because the
 * session then closes its scope, which interrupts the watcher and the stderr fiber; only what the drain delivers
 * tells them apart. Here the last stderr line, written just before the exit while a grandchild holds the pipes,
 * takes 100 ms of `onStderrLine` to be delivered: it must be delivered when close returns, at 100 ms.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Clock, Deferred, Effect, Exit, Fiber, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import { controlledPeer } from "../peers.ts"
import { closableScope } from "./helpers.ts"

describe("Fault: close awaits the exit watcher", () => {
  it.effect("the last stderr line, written just before the exit, is delivered when close returns", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({ ignoreEof: true })
      const delivered: Array<string> = []
      const scope = yield* closableScope
      const client = yield* McpClient.make({
        command: "server",
        shutdownGrace: "2 seconds",
        killGrace: "3 seconds",
        // A consumer of stderr lines that takes its time (a log shipper, say).
        onStderrLine: (line) =>
          Effect.sleep("100 millis").pipe(Effect.andThen(Effect.sync(() => void delivered.push(line))))
      }).pipe(Effect.provide(layer), Scope.provide(scope))
      yield* client.awaitReady
      const p = yield* peer
      // On stdin's EOF the server writes its last words and exits; a grandchild still holds stdout and stderr.
      yield* Deferred.await(p.stdinClosed).pipe(
        Effect.andThen(p.stderr("last words\n")),
        Effect.andThen(p.exitHoldingOutput(0)),
        Effect.forkChild({ startImmediately: true })
      )
      // What close returned with, at the moment it returned (the clock then runs on to a minute).
      const closing = yield* Scope.close(scope, Exit.void).pipe(
        Effect.andThen(Clock.currentTimeMillis),
        Effect.map((at) => ({ at, delivered: [...delivered], exit: Option.getOrUndefined(client.exitInfo()) })),
        Effect.forkChild({ startImmediately: true })
      )
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* Fiber.join(closing), {
        at: 100,
        delivered: ["last words"],
        exit: { code: 0, signal: null }
      })
    }))
})
