/**
 * Servers that leak their environment (`leak-env`: stderr, a non-JSON stdout line, instructions, tool errors, the
 * last stderr line before an exit): through the manager, every `Redacted` env value is `<redacted>` in health,
 * status lines, call errors and log lines (issue 11, item 5). The redaction happens in the transport; the manager
 * derives all of these from the client's errors and stderr tail.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import { FakeServer } from "@mcp-fleet/testing"
import { Cause, Context, Effect, Exit, Layer, Logger, Redacted, References, Scope } from "effect"

const SECRET = "hunter3-leaked-by-the-server"

const logged: Array<string> = []
const capture = Logger.make((options) => {
  logged.push(`${JSON.stringify(options.message)} ${Cause.pretty(options.cause)}`)
})

it.live("a server that prints its env and echoes it in errors never shows a Redacted value", () =>
  Effect.gen(function*() {
    const env = { A_TOKEN: Redacted.make(SECRET) }
    const scope = yield* Scope.make()
    const manager = yield* Effect.gen(function*() {
      const context = yield* Layer.build(
        McpManager.layer({
          servers: {
            leaky: { ...FakeServer.command({ modes: ["leak-env"] }), env },
            dying: { ...FakeServer.command({ modes: ["leak-env", "die-on-call"] }), env }
          },
          reconnect: { maxAttempts: 1, initialDelay: "1 hour" }
        }).pipe(Layer.provide(NodeServices.layer))
      )
      return Context.get(context, McpManager.McpManager)
    }).pipe(Scope.provide(scope))
    yield* manager.waitForReady("leaky")
    yield* manager.waitForReady("dying")
    const failed = yield* Effect.flip(manager.call("leaky", "echo", { token: SECRET }))
    const died = yield* Effect.flip(manager.call("dying", "echo", {}))
    const texts = {
      failed: failed.message,
      died: died.message,
      status: manager.statusLines(),
      health: JSON.stringify(manager.health())
    }
    yield* Scope.close(scope, Exit.void)
    for (const [where, text] of Object.entries({ ...texts, logs: logged.join("\n") })) {
      assert.notInclude(text, SECRET, `the secret in ${where}`)
    }
    for (const [where, text] of Object.entries(texts)) {
      assert.include(text, "<redacted>", `${where} carried the secret, replaced`)
    }
    assert.isTrue(logged.some((l) => l.includes("leaked env: A_TOKEN=<redacted>")), "the stdout leak was logged")
  }).pipe(
    Effect.provide(Logger.layer([capture])),
    Effect.provideService(References.MinimumLogLevel, "Trace"),
    Effect.scoped
  ))
