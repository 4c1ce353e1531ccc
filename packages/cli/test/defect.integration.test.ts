/**
 * Issue 26, item 2: a defect (a bug) is one line that promises the stack under `--log-level debug`; with that flag the
 * stack is there. The defect is injected through a preload module (`node --import`) that makes `JSON.stringify`
 * throw on the `status --json` document, inside the command.
 */
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fakeServer, run, tempDir, writeConfig } from "./CliProcess.ts"

const PRELOAD = `const stringify = JSON.stringify
JSON.stringify = function (value, ...rest) {
  if (value !== null && typeof value === "object" && "settled" in value && "summary" in value) {
    throw new TypeError("injected defect")
  }
  return stringify.call(this, value, ...rest)
}
`

describe("mcp-fleet: a defect", () => {
  it.concurrent("is one line without --log-level debug; with it (either spelling), the stack is printed", async (ctx) => {
    const preload = join(await tempDir(ctx), "defect.mjs")
    await writeFile(preload, PRELOAD)
    const config = await writeConfig(ctx, { alpha: fakeServer() })
    const env = { NODE_OPTIONS: `--import ${preload}` }
    const [plain, debug, equals] = await Promise.all([
      run(ctx, ["status", "--json", "--config", config], { env }),
      run(ctx, ["--log-level", "debug", "status", "--json", "--config", config], { env }),
      run(ctx, ["status", "--json", "--log-level=debug", "--config", config], { env })
    ])
    const line = "mcp-fleet: internal error (a bug in mcp-fleet): TypeError: injected defect; " +
      "--log-level debug shows the stack\n"
    expect(plain.code).toBe(1)
    expect(plain.stderr).toBe(line)
    for (const result of [debug, equals]) {
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(
        /^mcp-fleet: debug: the defect in full:\nTypeError: injected defect\n {4}at JSON\.stringify \(.*defect\.mjs:\d+:\d+\)\n {4}at .*StatusCommand\.ts:\d+:\d+/m
      )
      expect(result.stderr.endsWith(line)).toBe(true)
    }
  })
})
