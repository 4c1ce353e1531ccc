import { chmod, mkdir, readFile, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { fakeServer, run, writeConfig } from "./CliProcess.ts"

// Real configuration files, as Cursor, VS Code and Claude Code write them.
describe("mcp-fleet: real configuration files", () => {
  it.concurrent("a mixed file: each remote entry is skipped with one warning line, the stdio servers run", async (ctx) => {
    const config = await writeConfig(ctx, {
      local: fakeServer(),
      remote: { url: "https://mcp.example.com/mcp" },
      events: { type: "sse", url: "https://mcp.example.com/sse" }
    })
    const result = await run(ctx, ["status", "--config", config])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("local: ready · 9 tools")
    expect(result.stdout).not.toContain("remote")
    expect(result.stderr).toBe(
      [
        `mcp-fleet: ${config}: skipping server "remote": it is a remote (http) server, and mcp-fleet runs only stdio servers for now`,
        `mcp-fleet: ${config}: skipping server "events": it is a remote (sse) server, and mcp-fleet runs only stdio servers for now`,
        ""
      ].join("\n")
    )
  })

  it.concurrent("JSONC: comments and trailing commas run; an error after them has the file's line number", async (ctx) => {
    const server = JSON.stringify(fakeServer())
    const good = await writeConfig(ctx, `// VS Code\n{\n  "servers": {\n    /* one */ "a": ${server},\n  },\n}\n`)
    const ok = await run(ctx, ["status", "--config", good])
    expect(ok.stderr).toBe("")
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain("a: ready · 9 tools")
    const bad = await writeConfig(
      ctx,
      `// VS Code\n{\n  /* two\n     lines */\n  "servers": {\n    "a": {}\n    "b": {}\n  }\n}\n`
    )
    const failed = await run(ctx, ["status", "--config", bad])
    expect(failed.code).toBe(2)
    expect(failed.stderr).toBe(
      `mcp-fleet: MCP config file ${bad} is not valid JSON at line 7, column 5: expected ',' or '}' after a property value.\n`
    )
  })

  it.concurrent("unknown and ignored keys: one warning per key, with a did-you-mean; the server still runs", async (ctx) => {
    const config = await writeConfig(ctx, {
      a: fakeServer({}, { disable: true, autoApprove: ["echo"] }),
      b: fakeServer({}, { disable: true })
    })
    const result = await run(ctx, ["status", "--config", config])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("a: ready")
    expect(result.stdout).toContain("b: ready")
    expect(result.stderr).toBe(
      [
        `mcp-fleet: ${config}: ignoring "disable" in servers "a", "b" — did you mean "disabled"?`,
        `mcp-fleet: ${config}: ignoring "autoApprove" in server "a" (another host's setting; mcp-fleet does not use it)`,
        ""
      ].join("\n")
    )
  })

  it.concurrent("VS Code's ${input:…} is explained, with ${NAME} suggested", async (ctx) => {
    const config = await writeConfig(ctx, { a: fakeServer({}, { env: { KEY: "${input:api-key}" } }) })
    const result = await run(ctx, ["status", "--config", config])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      `mcp-fleet: MCP config file ${config}: server "a" uses \${input:api-key} in env.KEY, a VS Code prompt input that mcp-fleet cannot ask for; write \${API_KEY} and set API_KEY in the environment instead.\n`
    )
  })

  it.concurrent("a relative command, cwd and envFile resolve against the config file's folder, not the working directory", async (ctx) => {
    const config = await writeConfig(ctx, "{}")
    const folder = dirname(config)
    const spec = fakeServer()
    // A launcher script next to the config that records its working directory and env, then runs the fake server.
    await mkdir(join(folder, "bin"))
    await mkdir(join(folder, "data"))
    const launcher = join(folder, "bin", "launch.sh")
    await writeFile(
      launcher,
      `#!/bin/sh\npwd > "$MARKER_DIR/cwd.txt"\necho "$FROM_ENV_FILE" > "$MARKER_DIR/env.txt"\nexec ${
        JSON.stringify(String(spec["command"]))
      } ${(spec["args"] as ReadonlyArray<string>).map((a) => JSON.stringify(a)).join(" ")}\n`
    )
    await chmod(launcher, 0o755)
    await writeFile(join(folder, "vars.env"), "FROM_ENV_FILE=from-the-env-file\n")
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          rel: {
            command: "./bin/launch.sh",
            cwd: "data",
            envFile: "vars.env",
            env: { ...(spec["env"] as object | undefined), MARKER_DIR: "${workspaceFolder}" }
          }
        }
      })
    )
    const result = await run(ctx, ["status", "--config", config], { cwd: "/" })
    expect(result.stderr).toBe("")
    expect(result.stdout).toContain("rel: ready · 9 tools")
    expect((await readFile(join(folder, "cwd.txt"), "utf8")).trim()).toBe(join(folder, "data"))
    expect((await readFile(join(folder, "env.txt"), "utf8")).trim()).toBe("from-the-env-file")
  })
})
