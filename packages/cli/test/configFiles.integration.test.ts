import { chmod, mkdir, readFile, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { fakeServer, run, writeConfig } from "./CliProcess.ts"
import { remotePeer } from "./remotePeer.ts"

// Real configuration files, as Cursor, VS Code and Claude Code write them.
describe("mcp-fleet: real configuration files", () => {
  it.concurrent("a mixed file: local and remote entries run under one manager, with the same states", async (ctx) => {
    const remote = await remotePeer(ctx)
    const config = await writeConfig(ctx, {
      local: fakeServer(),
      remote: { url: remote.url, headers: { Authorization: "Bearer ${REMOTE_TOKEN}" } },
      "remote-down": { type: "http", url: "http://127.0.0.1:9/mcp" }
    })
    const result = await run(ctx, ["status", "--config", config], { env: { REMOTE_TOKEN: "tok-123456" } })
    expect(result.stdout).toContain("local: ready · 9 tools")
    expect(result.stdout).toContain(`remote: ready · 2 tools (0 curated, 2 external) · http ${remote.url}`)
    expect(result.stdout).toMatch(/remote-down: offline · .* · http http:\/\/127\.0\.0\.1:9\/mcp/)
    expect(`${result.stdout}${result.stderr}`).toContain("connect ECONNREFUSED 127.0.0.1:9")
    expect(result.stderr).not.toContain("skipping")
    expect(`${result.stdout}${result.stderr}`).not.toContain("tok-123456")
    expect(remote.requests.find((r) => r.method === "POST")!.headers["authorization"]).toBe("Bearer tok-123456")
    expect(remote.requests.filter((r) => r.method === "DELETE")).toHaveLength(1)
  })

  it.concurrent("tools and call work on a remote entry", async (ctx) => {
    const remote = await remotePeer(ctx)
    const config = await writeConfig(ctx, { remote: { url: remote.url } })
    const tools = await run(ctx, ["tools", "--server", "remote", "--config", config])
    expect(tools.code).toBe(0)
    expect(tools.stdout).toContain("echo")
    const called = await run(ctx, ["call", "remote", "echo", "--args", "{\"text\":\"hi\"}", "--config", config])
    expect(called.code).toBe(0)
    expect(called.stdout).toContain("remote echo: hi")
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
