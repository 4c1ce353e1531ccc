import { NodeServices } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import { FakeServer } from "@mcp-fleet/testing"
import { Cause, Context, Effect, Exit, Layer, Logger, Redacted, References, Scope } from "effect"

const SECRET = "hunter2-do-not-print"

const logged: Array<string> = []
const capture = Logger.make((options) => {
  logged.push(`${JSON.stringify(options.message)} ${Cause.pretty(options.cause)}`)
})

it.live("env values never appear in health, status lines, errors or logs, even when servers fail", () =>
  Effect.gen(function*() {
    const plain = FakeServer.command({ modes: ["die-on-call"] })
    const scope = yield* Scope.make()
    const manager = yield* Effect.gen(function*() {
      const context = yield* Layer.build(
        McpManager.layer({
          servers: {
            dying: { ...plain, env: { API_TOKEN: Redacted.make(SECRET), PLAIN_TOKEN: SECRET } },
            missing: { command: "/nonexistent/server", env: { API_TOKEN: SECRET }, args: ["--flag"] }
          },
          reconnect: { maxAttempts: 1, initialDelay: "10 millis" }
        }).pipe(Layer.provide(NodeServices.layer))
      )
      return Context.get(context, McpManager.McpManager)
    }).pipe(Scope.provide(scope))
    yield* manager.waitForReady("dying")
    const failure = yield* Effect.flip(manager.call("dying", "echo", { a: 1 }))
    const unavailable = yield* Effect.flip(manager.call("missing", "echo", {}))
    const status = manager.statusLines()
    const health = JSON.stringify(manager.health())
    // Closing logs too (each client's shutdown, at debug level).
    yield* Scope.close(scope, Exit.void)
    const texts = [
      failure.message,
      unavailable.message,
      JSON.stringify(failure),
      status,
      health,
      ...logged
    ]
    for (const text of texts) assert.notInclude(text, SECRET)
    assert.isAbove(logged.length, 0, "the run logged something, and none of it holds the secret")
  }).pipe(
    Effect.provide(Logger.layer([capture])),
    Effect.provideService(References.MinimumLogLevel, "Trace"),
    Effect.scoped
  ))
