import { describe, expect, it } from "vitest"
import { run, writeConfig } from "./CliProcess.ts"

// Each config error is reported on stderr as one sentence, with exit code 2 and nothing on stdout. No server
// is started for a config that does not load.
describe("mcp-fleet: config errors exit 2 with a message a person can act on", () => {
  it.concurrent("invalid JSON: line and column", async (ctx) => {
    const config = await writeConfig(
      ctx,
      "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"x\" }\n    \"b\": {}\n  }\n}\n"
    )
    const result = await run(ctx, ["status", "--config", config])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toBe(
      `mcp-fleet: MCP config file ${config} is not valid JSON at line 4, column 5: expected ',' or '}' after a property value.\n`
    )
  })

  it.concurrent("schema error: the JSON path of the bad value", async (ctx) => {
    const config = await writeConfig(ctx, { fs: { command: "node", args: ["ok", 3] } })
    const result = await run(ctx, ["tools", "--config", config])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toBe(
      `mcp-fleet: MCP config file ${config} is invalid: mcpServers.fs.args[1]: expected string.\n`
    )
  })

  it.concurrent("duplicate server names: both lines", async (ctx) => {
    const text = [
      "{",
      "  \"mcpServers\": {",
      "    \"fs\": { \"command\": \"node\" },",
      "    \"other\": { \"command\": \"node\" },",
      "    \"fs\": { \"command\": \"python\" }",
      "  }",
      "}"
    ].join("\n")
    const config = await writeConfig(ctx, text)
    const result = await run(ctx, ["call", "fs", "echo", "--config", config])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toBe(
      `mcp-fleet: MCP config file ${config} is invalid: server "fs" is defined twice: line 3 and line 5.\n`
    )
  })

  it.concurrent("missing ${VAR}: the variable and where it is used, never a value", async (ctx) => {
    const config = await writeConfig(ctx, {
      fs: { command: "node", env: { TOKEN: "${MCP_FLEET_TEST_UNSET_VAR}", OTHER: "visible-only-in-the-file" } }
    })
    const result = await run(ctx, ["status", "--config", config])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toBe(
      `mcp-fleet: MCP config file ${config}: server "fs" uses \${MCP_FLEET_TEST_UNSET_VAR} in env.TOKEN, but MCP_FLEET_TEST_UNSET_VAR is not set (set it, or write \${MCP_FLEET_TEST_UNSET_VAR:-default}).\n`
    )
    expect(result.stderr).not.toContain("visible-only-in-the-file")
  })

  it.concurrent("a missing config file", async (ctx) => {
    const result = await run(ctx, ["status", "--config", "/nonexistent/mcp-fleet/config.json"])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe("mcp-fleet: MCP config file /nonexistent/mcp-fleet/config.json does not exist.\n")
  })
})

describe("mcp-fleet: usage errors exit 2, help exits 0", () => {
  it.concurrent("an unknown flag or command: one line on stderr that says where to look, nothing on stdout", async (ctx) => {
    const [result, near, missing] = await Promise.all([
      run(ctx, ["status", "--bogus"]),
      run(ctx, ["statsu"]),
      run(ctx, ["call"])
    ])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toBe("mcp-fleet: unknown flag --bogus for status (see mcp-fleet status --help)\n")
    expect(near.code).toBe(2)
    expect(near.stderr).toBe("mcp-fleet: unknown command \"statsu\" — did you mean status? (see mcp-fleet --help)\n")
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe("mcp-fleet: call: Missing required argument: server (see mcp-fleet call --help)\n")
  })

  it.concurrent("no command: the help on stderr, exit 2", async (ctx) => {
    const result = await run(ctx, [])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain("USAGE\n  mcp-fleet <subcommand> [flags]")
  })

  it.concurrent("a bad duration", async (ctx) => {
    const result = await run(ctx, ["call", "a", "b", "--timeout", "soon"])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain(
      "Invalid value for flag --timeout: \"soon\". Expected: a duration such as 500ms, 30s, 2m or 10 (seconds)"
    )
  })

  it.concurrent("--help on every command goes to stdout with exit 0", async (ctx) => {
    const commands = ["", "status", "tools", "call", "demo"]
    const results = await Promise.all(commands.map((command) => run(ctx, [command, "--help"].filter((a) => a !== ""))))
    results.forEach((result, i) => {
      expect(result.code).toBe(0)
      expect(result.stderr).toBe("")
      expect(result.stdout).toContain(`USAGE\n  mcp-fleet${commands[i] === "" ? "" : ` ${commands[i]}`}`)
    })
  })
})
