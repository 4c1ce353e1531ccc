import { describe, expect, it } from "vitest"
import { fakeServer, run, writeConfig } from "./CliProcess.ts"

describe("mcp-fleet call", () => {
  it.concurrent("prints structured content as JSON on stdout and exits 0", async (ctx) => {
    const config = await writeConfig(ctx, { alpha: fakeServer(), beta: fakeServer({ initDelay: 60_000 }) })
    const result = await run(ctx, ["call", "alpha", "tool_1", "--args", "{\"value\":\"héllo\"}", "--config", config])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ tool: "tool_1", args: { value: "héllo" } })
    expect(result.stdout).toBe(JSON.stringify({ tool: "tool_1", args: { value: "héllo" } }, null, 2) + "\n")
  })

  it.concurrent("an unknown tool: a did-you-mean and where to look, exit 2 (the call is not sent)", async (ctx) => {
    const config = await writeConfig(ctx, { alpha: fakeServer() })
    const [near, far] = await Promise.all([
      run(ctx, ["call", "alpha", "echp", "--config", config]),
      run(ctx, ["call", "alpha__no_such_tool", "--config", config])
    ])
    expect(near.code).toBe(2)
    expect(near.stdout).toBe("")
    expect(near.stderr).toBe(
      "mcp-fleet: MCP server \"alpha\" has no tool \"echp\"; did you mean \"echo\"? (see `mcp-fleet tools --server alpha`)\n"
    )
    expect(far.code).toBe(2)
    expect(far.stderr).toBe(
      "mcp-fleet: MCP server \"alpha\" has no tool \"no_such_tool\" (see `mcp-fleet tools --server alpha`)\n"
    )
  })

  it.concurrent("a server's elicitation during the call is declined off a terminal, with a line on stderr", async (ctx) => {
    const config = await writeConfig(ctx, { alpha: fakeServer() })
    const request = {
      method: "elicitation/create",
      params: { message: "your name?", requestedSchema: { type: "object", properties: { n: { type: "string" } } } }
    }
    const result = await run(ctx, ["call", "alpha", "server_request", "--args", JSON.stringify(request), "-c", config])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).result).toEqual({ action: "decline" })
    expect(result.stderr).toBe("mcp-fleet: alpha asks: your name? — declined: there is no terminal to ask on\n")
  })

  it.concurrent("--elicitation accept-defaults answers a form with its SEP-1034 defaults, or declines one without", async (ctx) => {
    const config = await writeConfig(ctx, { alpha: fakeServer() })
    const ask = (properties: Record<string, unknown>, required: ReadonlyArray<string>) =>
      JSON.stringify({
        method: "elicitation/create",
        params: { message: "deploy?", requestedSchema: { type: "object", properties, required } }
      })
    const withDefaults = ask({
      region: { type: "string", default: "eu-west-1" },
      replicas: { type: "integer", default: 2 },
      confirm: { type: "boolean", default: true }
    }, ["region", "confirm"])
    const without = ask({ region: { type: "string", default: "eu-west-1" }, token: { type: "string" } }, ["token"])
    const call = (args: string, mode: string) =>
      run(ctx, ["call", "alpha", "server_request", "--args", args, "--elicitation", mode, "-c", config])
    const [accepted, declined, refused, bad] = await Promise.all([
      call(withDefaults, "accept-defaults"),
      call(without, "accept-defaults"),
      call(withDefaults, "decline"),
      call(withDefaults, "sometimes")
    ])
    expect(accepted.code, accepted.stderr).toBe(0)
    expect(JSON.parse(accepted.stdout).result).toEqual({
      action: "accept",
      content: { region: "eu-west-1", replicas: 2, confirm: true }
    })
    expect(accepted.stderr).toBe(
      "mcp-fleet: alpha asks: deploy? — accepted with its defaults (--elicitation accept-defaults): region, replicas, confirm\n"
    )
    expect(JSON.parse(declined.stdout).result).toEqual({ action: "decline" })
    expect(declined.stderr).toBe(
      "mcp-fleet: alpha asks: deploy? — declined (--elicitation accept-defaults): no default for \"token\"\n"
    )
    expect(JSON.parse(refused.stdout).result).toEqual({ action: "decline" })
    expect(refused.stderr).toBe("mcp-fleet: alpha asks: deploy? — declined (--elicitation decline)\n")
    expect(bad.code).toBe(2)
  })

  it.concurrent("an isError result prints the tool's text on stderr and exits 1", async (ctx) => {
    const config = await writeConfig(ctx, { alpha: fakeServer() })
    const result = await run(ctx, ["call", "alpha", "change_tools", "--args", "{\"burst\":\"many\"}", "-c", config])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toMatch(/^mcp-fleet: Tool "change_tools" on MCP server "alpha" reported an error: .*burst/)
  })

  it.concurrent("a crash mid-call, a timeout, and the config's requestTimeoutMs are typed failures (exit 1)", async (ctx) => {
    const config = await writeConfig(ctx, {
      crashy: fakeServer({ modes: ["die-on-call"] }),
      alpha: fakeServer(),
      strict: fakeServer({}, { requestTimeoutMs: 300 })
    })
    // Three independent runs, side by side.
    const [crash, timeout, configured] = await Promise.all([
      run(ctx, ["call", "crashy", "echo", "-c", config]),
      run(ctx, ["call", "alpha", "sleep", "--args", "{\"ms\":10000}", "--timeout", "300ms", "-c", config]),
      run(ctx, ["call", "strict", "sleep", "--args", "{\"ms\":10000}", "-c", config])
    ])
    expect(crash.code).toBe(1)
    expect(crash.stderr).toMatch(/^mcp-fleet: MCP server "crashy" exited with code 3\./)

    expect(timeout.code).toBe(1)
    expect(timeout.stderr).toBe("mcp-fleet: MCP server \"alpha\" did not answer tools/call within 300 ms.\n")

    expect(configured.code).toBe(1)
    expect(configured.stderr).toBe("mcp-fleet: MCP server \"strict\" did not answer tools/call within 300 ms.\n")
  })

  it.concurrent("usage errors exit 2: --args that is not a JSON object, a server the file does not have", async (ctx) => {
    const config = await writeConfig(ctx, { alpha: fakeServer() })
    const [notObject, notJson, unknown] = await Promise.all([
      run(ctx, ["call", "alpha", "echo", "--args", "[1,2]", "-c", config]),
      run(ctx, ["call", "alpha", "echo", "--args", "{oops", "-c", config]),
      run(ctx, ["call", "nope", "echo", "-c", config])
    ])
    expect(notObject.code).toBe(2)
    expect(notObject.stderr).toBe("mcp-fleet: --args must be a JSON object: got an array.\n")

    expect(notJson.code).toBe(2)
    expect(notJson.stderr).toMatch(/^mcp-fleet: --args must be a JSON object: it is not valid JSON \(/)

    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe(`mcp-fleet: ${config} has no server named "nope"; its servers are "alpha".\n`)
  })

  it.concurrent("a disabled server, and one still starting when --wait runs out, exit 1 saying why", async (ctx) => {
    const config = await writeConfig(ctx, {
      off: fakeServer({}, { disabled: true }),
      slow: fakeServer({ initDelay: 60_000 })
    })
    const disabled = await run(ctx, ["call", "off", "echo", "-c", config])
    expect(disabled.code).toBe(1)
    expect(disabled.stderr).toBe("mcp-fleet: MCP server \"off\" is disabled in the configuration.\n")

    const starting = await run(ctx, ["call", "slow", "echo", "--wait", "500ms", "-c", config])
    expect(starting.code).toBe(1)
    expect(starting.stderr).toMatch(
      /^mcp-fleet: MCP server "slow" was still starting after 500 ms \(no answer to initialize yet; wait longer with --wait\); last stderr:\n {2}\[slow\] fake-mcp-server: started pid=\d+ modes=init-delay=60000\n$/
    )
  })
})
