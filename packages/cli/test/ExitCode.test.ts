import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@mcp-fleet/config"
import { ManagerError } from "@mcp-fleet/manager"
import { McpError } from "@mcp-fleet/transport"
import { Effect, Exit, Runtime } from "effect"
import { TestConsole } from "effect/testing"
import * as CliFlags from "../src/CliFlags.ts"
import * as ExitCode from "../src/ExitCode.ts"

describe("ExitCode", () => {
  it("config and usage errors are 2, everything else 1", () => {
    assert.strictEqual(ExitCode.forError(new ConfigError.ConfigFileNotFound({ path: "x" })), 2)
    assert.strictEqual(ExitCode.forError(new ManagerError.UnknownServer({ server: "a", known: [] })), 2)
    assert.strictEqual(
      ExitCode.forError(new McpError.RequestTimeout({ server: "a", method: "tools/call", timeoutMs: 1 })),
      1
    )
    assert.strictEqual(
      ExitCode.forError(new ManagerError.ServerNotReady({ server: "a", state: "degraded" })),
      1
    )
  })

  it.effect("report writes the message to stderr and fails with an ExitStatus runMain reads", () =>
    Effect.gen(function*() {
      const exit = yield* ExitCode.report(Effect.fail(new ConfigError.ConfigFileNotFound({ path: "cfg.json" }))).pipe(
        Effect.exit
      )
      assert.deepStrictEqual(yield* TestConsole.errorLines, ["mcp-fleet: MCP config file cfg.json does not exist."])
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = exit.cause.reasons.find((r) => r._tag === "Fail")
        assert.isDefined(error)
        if (error?._tag === "Fail") {
          assert.strictEqual(error.error[Runtime.errorExitCode], 2)
          assert.strictEqual(error.error[Runtime.errorReported], false)
        }
      }
    }))

  it.effect("a defect is one line on stderr, not a stack, and exits 1", () =>
    Effect.gen(function*() {
      const exit = yield* ExitCode.report(Effect.die(new Error("Unable to get redacted value with label x\nat …")))
        .pipe(
          Effect.exit
        )
      assert.deepStrictEqual(yield* TestConsole.errorLines, [
        "mcp-fleet: internal error (a bug in mcp-fleet): Error: Unable to get redacted value with label x; " +
        "--log-level debug shows the stack"
      ])
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = exit.cause.reasons.find((r) => r._tag === "Fail")
        assert.strictEqual(error?._tag === "Fail" ? error.error[Runtime.errorExitCode] : undefined, 1)
      }
    }))

  it.effect("an interruption stays an interruption (runMain turns it into 130)", () =>
    Effect.gen(function*() {
      const exit = yield* ExitCode.report(Effect.interrupt).pipe(Effect.exit)
      assert.isTrue(Exit.hasInterrupts(exit))
      assert.deepStrictEqual(yield* TestConsole.errorLines, [])
    }))
})

describe("CliFlags.logLevelIn", () => {
  it("reads --log-level X and --log-level=X before the command line is parsed; not after --", () => {
    const { logLevelIn } = CliFlags
    assert.strictEqual(logLevelIn(["--log-level", "debug", "status"]), "Debug")
    assert.strictEqual(logLevelIn(["status", "--log-level=warning"]), "Warn")
    assert.strictEqual(logLevelIn(["status", "--log-level", "loud"]), undefined)
    assert.strictEqual(logLevelIn(["call", "a", "b", "--", "--log-level", "debug"]), undefined)
    assert.strictEqual(logLevelIn(["status"]), undefined)
  })
})
