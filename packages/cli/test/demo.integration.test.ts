import { describe, expect, it } from "vitest"
import { childProcesses, isAlive, run, start } from "./CliProcess.ts"

describe("mcp-fleet demo", () => {
  it.concurrent("narrates start, a routed call, a remote server over HTTP, a slow start, a crash and reconnection, a refresh, shutdown; exits 0, leaves no process", async (ctx) => {
    const result = await run(ctx, ["demo"])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const out = result.stdout
    // The ledger right after the layer was built: nothing ready yet, one disabled.
    expect(out).toContain("    archived: disabled\n")
    expect(out).toMatch(/● healthy: starting → ready \(12 tools, pid \d+\)/)
    expect(out).toContain(
      "→ healthy/echo {\"greeting\":\"hello from the demo\"} ⇒ {\"greeting\":\"hello from the demo\"}"
    )
    expect(out).toContain("echo ?, hint_read_only ro, hint_writes rw, hint_absent ?")
    // The remote server: the fake server's HTTP mode on 127.0.0.1, started by the demo, reached over HTTP.
    const remote = /node http-server\.mjs reply=sse \(pid (\d+)\) → (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(out)
    expect(remote).not.toBeNull()
    const [, remotePid, remoteUrl] = remote ?? []
    expect(out).toContain("● remote: starting → ready (7 tools, over http)")
    expect(out).toContain(`remote is ready over http at ${remoteUrl} with 7 tools`)
    expect(out).toContain("→ remote/echo {\"text\":\"hello over HTTP\"} ⇒ {\"text\":\"hello over HTTP\"}")
    expect(out).toContain(`    remote: ready · 7 tools (0 curated, 7 external) · http ${remoteUrl}\n`)
    expect(out).toContain("→ slow/echo now ⇒ ErrIndexBuilding: The \"slow\" server is still starting up")
    expect(out).toMatch(/→ crashy\/echo \(pid \d+\) ⇒ ProcessExited: MCP server "crashy" exited with code 3\./)
    expect(out).toMatch(/● crashy: ready → offline — The process exited with code 3\./)
    expect(out).toMatch(/● crashy: offline → starting \(reconnection attempt 1\/3, pid \d+\)/)
    expect(out).toMatch(/crashy was reconnected by its supervisor fiber: pid (\d+) → (?!\1)\d+/)
    expect(out).toMatch(/◆ changing: tool list changed, 9 → 10 tools \(\+generation_1\)|changing now lists 10 tools/)
    expect(out).toContain("changing now lists 10 tools, among them generation_1")
    expect(out).toMatch(/slow is ready with 9 tools, same pid (\d+): never killed/)
    expect(out).toContain(
      "→ archived/echo ⇒ ServerUnavailable: MCP server \"archived\" is disabled in the configuration."
    )
    expect(out).toContain("    MCP: 6 servers (5 ready, 1 disabled), 47 tools (0 curated, 47 external)\n")
    expect(out).toMatch(
      /scope closed in \d+ ms: 5 server processes, the remote one included \(pids [\d, ]+\) stopped; still running: none/
    )
    expect(out).toMatch(/demo finished\.\n$/)
    // Env values are Redacted wherever they are printed.
    expect(out).toContain("DEMO_API_TOKEN=<redacted>")
    expect(out).not.toContain("demo-secret-4b1d")
    // Every server process the demo narrated (including the one that crashed) is gone — checked here, not
    // taken from the demo's word.
    const pids = new Set([...out.matchAll(/pid (\d+)/g)].map((m) => Number(m[1])))
    expect(pids.size).toBe(6)
    expect(pids.has(Number(remotePid))).toBe(true)
    for (const pid of pids) expect(isAlive(pid)).toBe(false)
  })

  it.concurrent("a reader that closes stdout early stops the demo as Ctrl-C does: exit 130, every server stopped", async (ctx) => {
    const cli = start(ctx, ["demo"])
    await cli.stdoutLine((line) => line.includes("layer built in"))
    // Four stdio servers (server.mjs) and the remote one (http-server.mjs).
    const servers = (await childProcesses(cli.pid)).filter((p) => p.args.includes("server.mjs"))
    expect(servers).toHaveLength(5)
    cli.child.stdout?.destroy()
    const result = await cli.finished
    expect(result.code).toBe(130)
    expect(result.stderr).toBe("")
    for (const server of servers) expect(isAlive(server.pid)).toBe(false)
  })
})
