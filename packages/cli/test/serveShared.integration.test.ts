/**
 * `mcp-fleet serve --redis URL --session-key-file FILE`, the real binary: a bad key file or URL stops it with one line
 * that names the problem (the line of the file, never a key; never the URL's password); with both flags it serves
 * sealed 2025-11-25 sessions and shows Redis' state in /readyz, starting even while Redis is down (degraded, still
 * ready), and the password never appears in anything it prints or serves.
 */
import { randomBytes } from "node:crypto"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fakeServer, run, start, tempDir, writeConfig } from "./CliProcess.ts"

const key = () => randomBytes(32).toString("base64")

describe("mcp-fleet serve --redis --session-key-file", () => {
  it("a key file that is missing, or holds a line that is not a 32-byte key, stops serve naming the line", async (ctx) => {
    const config = await writeConfig(ctx, { fake: fakeServer() })
    const dir = await tempDir(ctx)
    const missing = await run(ctx, [
      "serve",
      "--config",
      config,
      "--http",
      "127.0.0.1:0",
      "--session-key-file",
      join(dir, "nope")
    ])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`--session-key-file ${join(dir, "nope")} cannot be read: it does not exist`)
    const short = randomBytes(16).toString("base64")
    const file = join(dir, "keys")
    await writeFile(file, `# current\n${key()}\n${short}\n`)
    const bad = await run(ctx, ["serve", "--config", config, "--http", "127.0.0.1:0", "--session-key-file", file])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("line 3: it decodes to 16 bytes, not 32")
    expect(bad.stderr).not.toContain(short)
    expect(bad.stdout).toBe("")
  })

  it("a URL that is not redis:// or names no host stops serve, never printing its password", async (ctx) => {
    const config = await writeConfig(ctx, { fake: fakeServer() })
    for (
      const [url, expected] of [
        ["http://user:hunter2@127.0.0.1:6379", "--redis needs a redis:// or rediss:// URL"],
        ["not a url hunter2", "what was given is not a URL"]
      ] as const
    ) {
      const result = await run(ctx, ["serve", "--config", config, "--http", "127.0.0.1:0", "--redis", url])
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(expected)
      expect(`${result.stdout}${result.stderr}`).not.toContain("hunter2")
    }
  })

  it("--session-key-file without --http is refused: it seals HTTP sessions", async (ctx) => {
    const config = await writeConfig(ctx, { fake: fakeServer() })
    const file = join(await tempDir(ctx), "keys")
    await writeFile(file, `${key()}\n`)
    const result = await run(ctx, ["serve", "--config", config, "--session-key-file", file])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("--session-key-file seals HTTP sessions: it needs --http")
  })

  it("with both flags and Redis down: serves sealed sessions, /readyz is 200 and says Redis is unreachable", async (ctx) => {
    const config = await writeConfig(ctx, { fake: fakeServer() })
    const file = join(await tempDir(ctx), "keys")
    await writeFile(file, `${key()}\n`)
    // Nothing listens on port 1: the replica starts degraded.
    const redis = "redis://:s3cretpw@127.0.0.1:1"
    const serve = start(ctx, [
      "serve",
      "--config",
      config,
      "--http",
      "127.0.0.1:0",
      "--redis",
      redis,
      "--session-key-file",
      file
    ])
    const url: string = JSON.parse(await serve.stdoutLine((line) => line.startsWith("{"))).url
    const shared = await serve.stderrLine((line) => line.includes("sessions sealed"))
    expect(shared).toContain("redis://:<redacted>@127.0.0.1:1")
    const initialized = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
      })
    })
    expect(initialized.status).toBe(200)
    expect(initialized.headers.get("mcp-session-id")).toMatch(/^m1\.[A-Za-z0-9_-]{8}\./)
    const ready = await fetch(url.replace(/\/mcp$/, "/readyz"))
    const text = await ready.text()
    expect(ready.status).toBe(200)
    expect(text).toMatch(/shared state: (Redis unreachable|connecting to Redis)/)
    serve.child.kill("SIGTERM")
    const finished = await serve.finished
    expect(`${finished.stdout}${finished.stderr}${text}`).not.toContain("s3cretpw")
  })
})
