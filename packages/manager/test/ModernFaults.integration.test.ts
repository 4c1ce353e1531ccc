/**
 * The fake server's 2026-07-28 fault switches under the manager, over stdio (real processes): a wrong `resultType`
 * and an endless MRTR loop fail that call with a typed error and leave the server ready; a listen that is never
 * acknowledged leaves it ready with its tools; -32022 with an empty `supported` list settles it as not ready with
 * the reason, without a fallback to `initialize` and without a hang.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import type { FakeServer as Fake } from "@mcp-fleet/testing"
import { FakeServer } from "@mcp-fleet/testing"
import type { Elicitation } from "@mcp-fleet/transport"
import { Cause, Context, Deferred, Effect, Exit, Layer, Logger, Option, Schedule } from "effect"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

const server = (mode: Fake.Mode): ManagerOptions.ServerConfig => {
  const fake = FakeServer.command({ modes: ["modern", mode] })
  return { command: fake.command, args: fake.args, env: fake.env }
}

describe("McpManager and the modern faults (fake server over stdio)", { timeout: 60_000 }, () => {
  it.live("each fault is a typed error or a settled state; the other servers stay ready", () =>
    Effect.gen(function*() {
      // The manager's warning that the silent server's listen was not acknowledged: the event the check waits on.
      const unacknowledged = Deferred.makeUnsafe<void>()
      const watch = Logger.layer([Logger.make((options) => {
        const text = String(options.message)
        if (text.includes("\"silent\"") && text.includes("no notifications/subscriptions/acknowledged")) {
          Deferred.doneUnsafe(unacknowledged, Exit.void)
        }
      })])
      const context = yield* Layer.build(
        McpManager.layer({
          servers: {
            wrong: server("wrong-result-type"),
            endless: server("mrtr-endless"),
            silent: server("listen-no-ack"),
            empty: server("unsupported-empty")
          },
          handlers: {
            elicitation: {
              form: () => Effect.succeed({ action: "accept", content: { confirm: true } } satisfies Elicitation.Answer)
            }
          },
          // The listen's acknowledgement deadline (and the handshake's): the silent server costs this once.
          startupTimeout: "1 second",
          reconnect: Schedule.recurs(1)
        }).pipe(Layer.provide([NodeServices.layer, watch]))
      )
      const manager = Context.get(context, McpManager.McpManager)
      yield* Effect.forEach(["wrong", "endless", "silent"], (name) => manager.waitForReady(name), {
        concurrency: "unbounded"
      })

      const wrong = failureOf(yield* Effect.exit(manager.call("wrong", "echo", { a: 1 })))
      assert.strictEqual(wrong._tag, "ProtocolError")
      assert.strictEqual((yield* manager.serverHealth("wrong")).state, "ready")

      const endless = failureOf(yield* Effect.exit(manager.call("endless", "mrtr", {})))
      assert.strictEqual(endless._tag, "InputRoundsExceeded")
      assert.deepStrictEqual((yield* manager.call("endless", "echo", { b: 2 })).structuredContent, { b: 2 })
      assert.strictEqual((yield* manager.serverHealth("endless")).state, "ready")

      yield* Deferred.await(unacknowledged)
      const silent = yield* manager.serverHealth("silent")
      assert.strictEqual(silent.state, "ready")
      assert.include(silent.tools.map((t) => t.name), "echo")
      assert.deepStrictEqual((yield* manager.call("silent", "echo", { c: 3 })).structuredContent, { c: 3 })

      const empty = failureOf(yield* Effect.exit(manager.waitForReady("empty")))
      assert.strictEqual(empty._tag, "ServerNotReady")
      const health = yield* manager.serverHealth("empty")
      assert.notStrictEqual(health.state, "ready")
      assert.include(health.lastError ?? "", "protocol version")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
