import { execFile } from "node:child_process"
import { describe, expect, it } from "vitest"
import { BIN, fakeServer, run, writeConfig } from "./CliProcess.ts"

/** Runs the binary under `script`, so that its stdout and stderr are a terminal; resolves with what it drew. */
const onTerminal = (args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) => {
    const command = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ")
    execFile("script", ["-q", "-e", "-c", command, "/dev/null"], { encoding: "utf8" }, (error, stdout) =>
      error !== null ? reject(error) : resolve(stdout))
  })

describe("mcp-fleet: a live progress line on a terminal, none on a pipe", () => {
  it.concurrent("one-shot commands on a TTY redraw which servers are still starting, and for how long", async (ctx) => {
    const config = await writeConfig(ctx, { quick: fakeServer(), slow: fakeServer({ initDelay: 1500 }) })
    const drawn = await onTerminal(["status", "--config", config])
    expect(drawn).toContain("\r\u001b[Kmcp-fleet: waiting for ")
    expect(drawn).toMatch(/mcp-fleet: waiting for (quick starting \d+\.\d s, )?slow starting \d+\.\d s…/)
    expect(drawn).toContain("slow: ready · 9 tools")
    const piped = await run(ctx, ["status", "--config", config])
    expect(piped.stderr).toBe("")
    expect(piped.stdout).toContain("slow: ready · 9 tools")
  })

  it.concurrent("call on a TTY draws the tool's progress reports as one line; on a pipe, none", async (ctx) => {
    const config = await writeConfig(ctx, { docs: fakeServer({ modes: ["features"] }) })
    const args = ["call", "docs", "report_progress", "--args", "{\"steps\":3,\"interval\":50}", "--config", config]
    const drawn = await onTerminal(args)
    expect(drawn).toContain("\r\u001b[Kdocs__report_progress [#######-------------] 1/3 · step 1 of 3")
    expect(drawn).toContain("\r\u001b[Kdocs__report_progress [####################] 3/3 · step 3 of 3")
    expect(drawn).toContain("\"steps\": 3")
    const piped = await run(ctx, args)
    expect(piped.code).toBe(0)
    expect(piped.stderr).toBe("")
    expect(piped.stdout).toContain("\"steps\": 3")
  })
})
