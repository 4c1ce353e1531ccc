/**
 * Issue 26, item 8: a server that prints its logs on stdout and never answers `initialize`. Its warnings are
 * rate-limited (the first few lines, then a count at 10, 100…), and the ledger and the explanation say that its
 * stdout is not JSON-RPC.
 */
import { describe, expect, it } from "vitest"
import { fakeServer, run, writeConfig } from "./CliProcess.ts"

describe("mcp-fleet status: a server printing logs on stdout", () => {
  it.concurrent("a few warnings then a count; the ledger says stdout is not JSON-RPC", async (ctx) => {
    const config = await writeConfig(ctx, { chatty: fakeServer({ modes: ["no-initialize", "stdout-logs"] }) })
    const result = await run(ctx, ["status", "--wait", "3s", "--config", config])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      "chatty: starting · tools not listed yet · stdout is not JSON-RPC (is the server printing logs to stdout?)"
    )
    const warnings = result.stderr.split("\n").filter((line) => line.startsWith("mcp-fleet: warning: [chatty]"))
    const each = warnings.filter((line) => line.includes("skipped a message that is not JSON: "))
    expect(each).toHaveLength(3)
    expect(each[2]).toContain("(more such lines are counted, not shown one by one)")
    const counts = warnings.filter((line) => / skipped \d+ messages that are not JSON so far/.test(line))
    // At 20 ms a line for 3 s: over a hundred lines, told in a handful of warnings.
    expect(counts.length).toBeGreaterThan(0)
    expect(warnings).toHaveLength(each.length + counts.length)
    expect(warnings.length).toBeLessThan(8)
    expect(result.stderr).toMatch(
      /MCP server "chatty" was still starting after 3 s: its stdout is not JSON-RPC \(\d+ lines that are not JSON, \d+ JSON-RPC messages?; is the server printing logs to stdout\? only JSON-RPC may go there\)/
    )
  })
})
