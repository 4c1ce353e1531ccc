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
})
