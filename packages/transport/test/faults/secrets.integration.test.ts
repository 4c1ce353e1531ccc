/**
 * Fault suite, real processes: a server that leaks its environment everywhere (`leak-env`: stderr, a non-JSON stdout
 * line, its instructions, every tool error, its last stderr line before exiting) and echoes its arguments (issue 11,
 * item 5). Every `Redacted` env value shows as `<redacted>` in what the client derives from that output: the
 * stderr tail, error messages and their fields, the session's instructions, and log lines.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Logger, Redacted, References } from "effect"
import { waitUntil } from "../support.ts"
import { failureOf, fake } from "./helpers.ts"

const SECRET = "s3cr3t-token-7f1e-never-print"

const captured = () => {
  const lines: Array<string> = []
  const logger = Logger.make((options) => {
    lines.push(`${JSON.stringify(options.message)} ${Cause.pretty(options.cause)}`)
  })
  return { lines, layer: Logger.layer([logger]) }
}

describe("Fault: secrets in server output (real fake server)", () => {
  it.live("Redacted env values are <redacted> in the stderr tail, errors, instructions and log lines", () => {
    const log = captured()
    return Effect.gen(function*() {
      // `A_TOKEN` sorts first, so the leaked lines carry it within every excerpt's bound.
      const client = yield* fake({ modes: ["leak-env"] }, {
        env: { A_TOKEN: Redacted.make(SECRET), PLAIN: "not-a-secret" },
        requestTimeout: "10 minutes"
      })
      const session = yield* client.awaitReady
      yield* waitUntil(() => client.stderrTail().some((l) => l.includes("env PLAIN=")), "env on stderr")
      const call = failureOf(yield* Effect.exit(client.callTool("echo", { token: SECRET, other: 1 })))
      assert.strictEqual(call._tag, "RemoteError")
      yield* waitUntil(() => log.lines.some((l) => l.includes("leaked env")), "the non-JSON stdout line logged")
      const texts = {
        stderrTail: client.stderrTail().join("\n"),
        instructions: session.instructions ?? "",
        message: call.message,
        error: JSON.stringify(call),
        logs: log.lines.join("\n")
      }
      for (const [where, text] of Object.entries(texts)) {
        assert.notInclude(text, SECRET, `the secret in ${where}`)
        assert.include(text, "<redacted>", `${where} carried the secret, replaced`)
      }
      assert.include(texts.stderrTail, "env A_TOKEN=<redacted>")
      assert.include(texts.stderrTail, "env PLAIN=not-a-secret", "plain values are not secrets")
      assert.include(call.message, "\"token\":\"<redacted>\"", "echoed arguments too")
    }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer),
      Effect.provide(log.layer),
      Effect.provideService(References.MinimumLogLevel, "Trace")
    )
  })

  it.live("ProcessExited: the last stderr line before the exit is redacted in the message and the tail", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["leak-env", "die-on-call"] }, {
        env: { A_TOKEN: Redacted.make(SECRET) },
        requestTimeout: "10 minutes"
      })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("echo")))
      assert.strictEqual(error._tag, "ProcessExited")
      if (error._tag !== "ProcessExited") return
      assert.include(error.message, "(environment A_TOKEN=<redacted>")
      assert.notInclude(error.message, SECRET)
      assert.notInclude(JSON.stringify(error), SECRET)
      assert.notInclude(JSON.stringify(error.stderrTail), SECRET)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
