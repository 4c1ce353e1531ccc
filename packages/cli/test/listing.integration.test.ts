/**
 * Issue 26, item 1, through the CLI process: a server whose `prompts/list` alone is slow (the fake server's
 * `prompts-delay`). The one-shot `status` waits for the prompts within `--wait` and prints their count; `--watch`
 * never shows the server ready without saying its prompts are still being listed.
 */
import { describe, expect, it } from "vitest"
import { fakeServer, run, start, writeConfig } from "./CliProcess.ts"

describe("mcp-fleet status: a server whose prompts/list is slow", () => {
  it.concurrent("the one-shot status waits for its prompts and prints their count", async (ctx) => {
    const config = await writeConfig(ctx, { docs: fakeServer({ modes: ["features"], promptsDelay: 1_500 }) })
    const result = await run(ctx, ["status", "--config", config])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^docs: ready · 10 tools \(0 curated, 10 external\) · 1 prompt · 2 resources$/m)
    expect(result.stderr).toBe("")
  })

  it.concurrent("--watch shows 'prompts: listing…' on every ready line until the prompts are listed", async (ctx) => {
    const config = await writeConfig(ctx, { docs: fakeServer({ modes: ["features"], promptsDelay: 600_000 }) })
    const cli = start(ctx, ["status", "--watch", "--config", config])
    await cli.stdoutLine((line) => line.includes("docs: ready") && line.includes("2 resources"))
    cli.child.kill("SIGINT")
    const result = await cli.finished
    expect(result.code).toBe(130)
    const ready = result.stdout.split("\n").filter((line) => line.includes("docs: ready"))
    expect(ready.length).toBeGreaterThan(0)
    for (const line of ready) {
      expect(line).toContain("prompts: listing…")
      expect(line).not.toMatch(/\d prompts?\b/)
    }
  })

  it.concurrent("call and tools do not wait for the prompts: they need the server ready, not its other lists", async (ctx) => {
    const config = await writeConfig(ctx, { docs: fakeServer({ modes: ["features"], promptsDelay: 600_000 }) })
    // Were they to wait for the prompts, --wait 600s would hold them past the test's own timeout.
    const [called, listed] = await Promise.all([
      run(ctx, ["call", "docs", "echo", "--args", "{\"a\":1}", "--wait", "600s", "--config", config]),
      run(ctx, ["tools", "--wait", "600s", "--config", config])
    ])
    expect(called.code, called.stderr).toBe(0)
    expect(JSON.parse(called.stdout)).toEqual({ a: 1 })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain("docs__echo")
  })

  it.concurrent("a one-shot status whose --wait ends first names the list still pending", async (ctx) => {
    const config = await writeConfig(ctx, { docs: fakeServer({ modes: ["features"], promptsDelay: 600_000 }) })
    const result = await run(ctx, ["status", "--json", "--wait", "5s", "--config", config])
    const doc = JSON.parse(result.stdout) as {
      settled: boolean
      servers: ReadonlyArray<{ state: string; listing: ReadonlyArray<string>; prompts: number | null }>
    }
    // The server is ready well within 5 s; its prompts never come.
    expect(doc.servers[0]).toMatchObject({ state: "ready", listing: ["prompts"], prompts: null, settled: false })
    expect(doc.settled).toBe(false)
    expect(result.stderr).toContain("not settled after 5 s: docs (ready, prompts: listing…)")
  })
})
