import { describe, expect, it } from "vitest"
import { fakeServer, run, writeConfig } from "./CliProcess.ts"

const SECRET = "another-secret-that-must-not-print"

describe("mcp-fleet tools", () => {
  it.concurrent("lists server__tool with the read-only hint tri-state; names unready servers on stderr", async (ctx) => {
    const config = await writeConfig(ctx, {
      alpha: fakeServer({ modes: ["annotations"], tools: 1 }),
      off: fakeServer({}, { disabled: true })
    })
    const result = await run(ctx, ["tools", "--config", config])
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split("\n")
    const byName = new Map(lines.map((line) => [line.split(/\s+/)[0], line.split(/\s+/)[1]]))
    expect([...byName.keys()]).toEqual([
      "alpha__echo",
      "alpha__tool_1",
      "alpha__hint_read_only",
      "alpha__hint_writes",
      "alpha__hint_absent",
      "alpha__change_tools",
      "alpha__emit",
      "alpha__notify",
      "alpha__server_request",
      "alpha__exit",
      "alpha__sleep"
    ])
    expect(byName.get("alpha__hint_read_only")).toBe("ro")
    expect(byName.get("alpha__hint_writes")).toBe("rw")
    expect(byName.get("alpha__hint_absent")).toBe("?")
    expect(byName.get("alpha__echo")).toBe("?")
    expect(lines.find((l) => l.startsWith("alpha__hint_writes"))).toMatch(/rw {2}annotations\.readOnlyHint is false\.$/)
    expect(result.stderr).toBe("mcp-fleet: no tools listed for off (disabled)\n")
  })

  it.concurrent("--json: one document, hints true / false / null, unavailable servers with their state", async (ctx) => {
    const config = await writeConfig(ctx, {
      alpha: fakeServer({ modes: ["annotations"] }, { env: { TOKEN: "${MY_SECRET}" } }),
      dead: { command: "/nonexistent/mcp-fleet-test-binary" }
    })
    const result = await run(ctx, ["tools", "--json", "--config", config, "--wait", "1s"], {
      env: { MY_SECRET: SECRET }
    })
    expect(result.code).toBe(0)
    expect(result.stderr).toBe("")
    const doc = JSON.parse(result.stdout)
    const tool = (name: string) => doc.tools.find((t: { name: string }) => t.name === name)
    expect(doc.tools).toHaveLength(12)
    expect(tool("alpha__hint_read_only")).toMatchObject({
      server: "alpha",
      tool: "hint_read_only",
      readOnly: true,
      idempotent: true,
      openWorld: false,
      destructive: null
    })
    expect(tool("alpha__hint_writes")).toMatchObject({ readOnly: false, destructive: true })
    expect(tool("alpha__hint_absent")).toMatchObject({ readOnly: null, destructive: false, openWorld: true })
    expect(tool("alpha__echo")).toMatchObject({ readOnly: null, destructive: null, idempotent: null, openWorld: null })
    expect(tool("alpha__tool_1").inputSchema).toEqual({
      type: "object",
      properties: { value: { type: "string" } }
    })
    expect(doc.unavailable).toEqual([
      {
        server: "dead",
        state: "offline",
        reason: expect.stringContaining("could not be started (/nonexistent/mcp-fleet-test-binary)")
      }
    ])
    expect(result.stdout).not.toContain(SECRET)
  })

  it.concurrent("--server S starts only S; an unknown S is a usage error; a server that is not ready fails", async (ctx) => {
    const config = await writeConfig(ctx, {
      alpha: fakeServer({ tools: 1 }),
      empty: fakeServer({ modes: ["empty-list"] })
    })
    const one = await run(ctx, ["tools", "--server", "alpha", "--config", config])
    expect(one.code).toBe(0)
    expect(one.stdout.split("\n")[0]).toMatch(/^alpha__echo\s+\?\s+/)
    expect(one.stdout).not.toContain("empty__")
    expect(one.stderr).toBe("")

    const unknown = await run(ctx, ["tools", "-s", "nope", "--config", config])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe(`mcp-fleet: ${config} has no server named "nope"; its servers are "alpha", "empty".\n`)

    const degraded = await run(ctx, ["tools", "-s", "empty", "--json", "--config", config])
    expect(degraded.code).toBe(1)
    expect(degraded.stdout).toBe("")
    expect(degraded.stderr).toBe(
      "mcp-fleet: MCP server \"empty\" settled as degraded, not ready: the server lists no tools\n"
    )
  })
})
