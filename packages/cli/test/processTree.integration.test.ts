/**
 * Issue 24, item 10, through the CLI: `mcp-fleet status` with a server whose grandchild called `setsid()` (a
 * session and process group of its own). The CLI provides `NodeProcessTree.layer`, so when it exits, the grandchild
 * is gone too; before, it outlived the CLI (for an hour, the fake grandchild's own limit).
 */
import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { fakeServer, run, writeConfig } from "./CliProcess.ts"

/** Live (not zombie) processes whose command line holds `marker`. */
const liveWith = (marker: string): ReadonlyArray<string> =>
  execFileSync("ps", ["-ww", "-eo", "pid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !/^\s*\d+\s+Z/.test(line))

describe("mcp-fleet: a server's descendant that left its process group", () => {
  it.concurrent("is gone when status exits", async (ctx) => {
    const config = await writeConfig(ctx, { detaching: fakeServer({ modes: ["setsid-grandchild"] }) })
    const result = await run(ctx, ["status", "--json", "--config", config])
    expect(result.code).toBe(0)
    const [server] = JSON.parse(result.stdout).servers as Array<{ readonly pid: number | null; readonly state: string }>
    expect(server?.state).toBe("ready")
    expect(server?.pid).toBeTypeOf("number")
    const left = liveWith(`--setsid-of=${server!.pid}`)
    // A leftover is killed here, so that a red test leaves nothing running.
    for (const line of left) execFileSync("kill", ["-KILL", line.trim().split(/\s+/)[0]!])
    expect(left).toEqual([])
  })
})
