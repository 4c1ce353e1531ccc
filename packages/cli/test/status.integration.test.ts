import { describe, expect, it } from "vitest"
import { childProcesses, fakeServer, isAlive, run, start, writeConfig } from "./CliProcess.ts"

const SECRET = "s3cret-value-that-must-never-print"

describe("mcp-fleet status", () => {
  it.concurrent("prints the manager's ledger once the servers have settled, and exits 0", async (ctx) => {
    const config = await writeConfig(ctx, {
      alpha: fakeServer({ modes: ["annotations"] }, {
        curated: ["echo", "not_offered"],
        env: { SECRET_TOKEN: "${MY_SECRET}" }
      }),
      off: fakeServer({}, { disabled: true })
    })
    const result = await run(ctx, ["status", "--config", config], { env: { MY_SECRET: SECRET } })
    // A server has a curated list, so the words of the ledger are explained once, on stderr.
    expect(result.stderr).toBe(
      "mcp-fleet: curated = tools named in a server's \"curated\" list in the config (bridged by hand); external = all other tools\n"
    )
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      [
        "MCP: 2 servers (1 ready, 1 disabled), 12 tools (1 curated, 11 external)",
        "alpha: ready · 12 tools (1 curated, 11 external) · curated but not offered: not_offered",
        "off: disabled",
        ""
      ].join("\n")
    )
    expect(result.stdout + result.stderr).not.toContain(SECRET)
  })

  it.concurrent("names the servers still starting when --wait runs out", async (ctx) => {
    const config = await writeConfig(ctx, { slow: fakeServer({ initDelay: 60_000 }) })
    const result = await run(ctx, ["status", "-c", config, "--wait", "1s"])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      "MCP: 1 server (1 starting), 0 tools (0 curated, 0 external)\nslow: starting · tools not listed yet\n"
    )
    expect(result.stderr).toMatch(
      /^mcp-fleet: not settled after 1 s: slow \(starting\)\nmcp-fleet: MCP server "slow" was still starting after 1 s \(no answer to initialize yet; wait longer with --wait\); last stderr:\n {2}\[slow\] fake-mcp-server: started pid=\d+ modes=init-delay=60000\n$/
    )
  })

  it.concurrent("reads .mcp.json in the current directory by default", async (ctx) => {
    const config = await writeConfig(ctx, { only: fakeServer() }, ".mcp.json")
    const result = await run(ctx, ["status"], { cwd: config.slice(0, -"/.mcp.json".length) })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("only: ready · 9 tools")
  })

  it.concurrent("--watch prints changes as plain lines when stdout is not a terminal; SIGINT stops every server", async (ctx) => {
    const config = await writeConfig(ctx, {
      alpha: fakeServer(),
      late: fakeServer({ initDelay: 700 })
    })
    const cli = start(ctx, ["status", "--watch", "--config", config])
    await cli.stdoutLine((line) => line.startsWith("MCP: 2 servers"))
    await cli.stdoutLine((line) => /^\[\+\d+\.\d\ds\] late: ready · 9 tools/.test(line))
    const servers = (await childProcesses(cli.pid)).filter((p) => p.args.includes("server.mjs"))
    expect(servers).toHaveLength(2)
    cli.child.kill("SIGINT")
    const result = await cli.finished
    expect(result.code).toBe(130)
    expect(result.stdout).toMatch(/^\[\+\d+\.\d\ds\] MCP: 2 servers \(2 ready\), 18 tools/m)
    expect(result.stderr).toBe("")
    for (const server of servers) expect(isAlive(server.pid)).toBe(false)
  })
})
