import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { defaults, parse, parseDuration } from "../src/SoakOptions.ts"

const parseOk = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const options = yield* parse(argv)
    if (options === "help") return assert.fail("expected options, got help")
    return options
  })

const parseError = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(parse(argv))
    if (Exit.isSuccess(exit)) return assert.fail(`expected a usage error for ${argv.join(" ")}`)
    return exit.cause
  })

describe("SoakOptions", () => {
  it("parseDuration reads units, and a bare number as seconds", () => {
    assert.strictEqual(parseDuration("60s"), 60_000)
    assert.strictEqual(parseDuration("10m"), 600_000)
    assert.strictEqual(parseDuration("10min"), 600_000)
    assert.strictEqual(parseDuration("1.5h"), 5_400_000)
    assert.strictEqual(parseDuration("500ms"), 500)
    assert.strictEqual(parseDuration("90"), 90_000)
    assert.isUndefined(parseDuration("0s"))
    assert.isUndefined(parseDuration("-5s"))
    assert.isUndefined(parseDuration("5x"))
    assert.isUndefined(parseDuration(""))
  })

  it.effect("no flags give the defaults (10 minutes, 20 servers)", () =>
    Effect.gen(function*() {
      const options = yield* parseOk([])
      assert.deepStrictEqual(options, defaults)
      assert.strictEqual(options.durationMs, 600_000)
      assert.strictEqual(options.servers, 20)
    }))

  it.effect("both flag forms, and the `--` that pnpm passes through", () =>
    Effect.gen(function*() {
      const options = yield* parseOk(["--", "--duration", "60s", "--servers=7", "--concurrency", "3", "--seed=42"])
      assert.strictEqual(options.durationMs, 60_000)
      assert.strictEqual(options.servers, 7)
      assert.strictEqual(options.concurrency, 3)
      assert.strictEqual(options.seed, 42)
      const bound = yield* parseOk(["--heap-bound-mb", "8", "--restarts", "0"])
      assert.strictEqual(bound.heapBoundBytes, 8 * 1024 * 1024)
      assert.strictEqual(bound.restartPercent, 0)
    }))

  it.effect("--help", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* parse(["--duration", "1m", "--help"]), "help")
    }))

  it.effect("bad input is a SoakUsageError naming the flag", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["--duration", "soon"], "--duration expects"],
        [["--servers", "1"], "--servers expects a whole number from 2"],
        [["--servers", "2.5"], "--servers expects"],
        [["--concurrency", "0"], "--concurrency expects"],
        [["--seed"], "--seed needs a value"],
        [["--restarts", "101"], "--restarts expects a whole number from 0 to 100"],
        [["--verbose"], "Unknown argument \"--verbose\""]
      ]
      for (const [argv, expected] of cases) {
        const cause = yield* parseError(argv)
        const text = String(cause)
        assert.include(text, "SoakUsageError", argv.join(" "))
        assert.include(text, expected, argv.join(" "))
      }
    }))
})
