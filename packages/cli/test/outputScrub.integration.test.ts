/**
 * `mcp-fleet call` prints nothing of what it sent a server (issue 25, low 9): a tool that echoes its arguments
 * with an env secret in them, a remote tool that echoes the bearer token and the configured headers; plain and
 * `--json` output alike, as a real process. The login on the way also meets a forged callback (low 8). The other
 * commands that run servers print through the same scrubbing (a prompt that echoes its argument).
 */
import { startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fakeServer, run, start, tempDir, writeConfig } from "./CliProcess.ts"

const SECRET = "call-secret-5e1f-never-print"
const KEY = "header-key-77aa-never-print"

describe("mcp-fleet call scrubs what it prints of the secrets it sent", () => {
  it.concurrent("a stdio tool echoing a Redacted env value: <redacted>, plain and --json; --help says so", async (ctx) => {
    const config = await writeConfig(ctx, { echo: fakeServer({}, { env: { A_TOKEN: "${MY_SECRET}" } }) })
    const args = JSON.stringify({ t: SECRET, note: "kept" })
    const env = { MY_SECRET: SECRET }
    const plain = await run(ctx, ["call", "echo", "echo", "--args", args, "-c", config], { env })
    expect(plain.code).toBe(0)
    expect(plain.stdout + plain.stderr).not.toContain(SECRET)
    expect(plain.stdout).toContain(`"t": "<redacted>"`)
    expect(plain.stdout).toContain(`"note": "kept"`)
    const json = await run(ctx, ["call", "echo", "echo", "--args", args, "--json", "-c", config], { env })
    expect(json.code).toBe(0)
    expect(json.stdout + json.stderr).not.toContain(SECRET)
    expect(JSON.parse(json.stdout)).toMatchObject({ structuredContent: { t: "<redacted>", note: "kept" } })
    // Server text that is no result: an elicitation message, printed on stderr (declined: no terminal here).
    const elicit = JSON.stringify({
      method: "elicitation/create",
      params: { message: `Confirm ${SECRET}?`, requestedSchema: { type: "object", properties: {} } }
    })
    const asked = await run(ctx, ["call", "echo", "server_request", "--args", elicit, "-c", config], { env })
    expect(asked.stderr).toContain("asks: Confirm <redacted>?")
    expect(asked.stdout + asked.stderr).not.toContain(SECRET)
    const help = await run(ctx, ["call", "--help"])
    expect(help.stdout.replace(/\s+/g, " ")).toContain("is scrubbed of the secrets sent to that server")
  })

  it.concurrent("a remote tool echoing the bearer token and a configured header: neither is printed, plain or --json", async (ctx) => {
    // Tokens that live a second: the call's requests refresh them, so the token a tool echoes is newer than the
    // one held when the call started (the CLI reads the store again before it prints).
    const server = await startAuthServer({ echoHeaders: true, expiresIn: 1 })
    ctx.onTestFinished(() => server.close())
    const dir = join(await tempDir(ctx), "config")
    const env = { MCP_FLEET_CONFIG_DIR: dir, BROWSER: "", MY_KEY: KEY }
    const config = await writeConfig(ctx, { linear: { url: server.mcpUrl, headers: { "X-Api-Key": "${MY_KEY}" } } })

    const login = start(ctx, ["auth", "login", "linear", "--config", config], { env })
    const link = (await login.stderrLine((line) => line.trim().startsWith("http://"))).trim()
    // A local process hits the listener first, with a forged state: refused, and the login goes on.
    const redirect = new URL(link).searchParams.get("redirect_uri") ?? ""
    const forged = await fetch(`${redirect}?code=forged&state=forged`)
    expect(forged.status).toBe(400)
    expect((await fetch(link)).status).toBe(200)
    expect((await login.finished).code).toBe(0)

    const call = (...extra: ReadonlyArray<string>) =>
      run(ctx, ["call", "linear", "whoami", ...extra, "-c", config], { env })
    const plain = await call()
    const json = await call("--json")
    // The echo in a result with isError (printed on stderr) and in a JSON-RPC error (the failure's message).
    const isError = await call("--args", JSON.stringify({ outcome: "isError" }))
    const failed = await call("--args", JSON.stringify({ outcome: "error" }))
    const bearers = server.requests.flatMap((r) => {
      const header = r.headers["authorization"]
      return typeof header === "string" && header.startsWith("Bearer ") ? [header, header.slice(7)] : []
    })
    expect(bearers.length).toBeGreaterThan(0)
    for (const result of [plain, json]) {
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("authorized; you sent")
      expect(result.stdout).toContain("<redacted>")
      for (const secret of [KEY, ...bearers]) expect(result.stdout + result.stderr).not.toContain(secret)
    }
    for (const result of [isError, failed]) {
      expect(result.code).toBe(1)
      expect(result.stderr).toContain("authorized; you sent")
      expect(result.stderr).toContain("<redacted>")
      for (const secret of [KEY, ...bearers]) expect(result.stdout + result.stderr).not.toContain(secret)
    }
    // The server did receive them: the scrubbing is the CLI's, not a lost header.
    expect(server.requests.some((r) => r.headers["x-api-key"] === KEY)).toBe(true)
  })

  it.concurrent("prompt (as tools, resources and status): server data echoing an env secret is printed <redacted>", async (ctx) => {
    const config = await writeConfig(ctx, {
      docs: fakeServer({ modes: ["features"] }, { env: { A_TOKEN: "${MY_SECRET}" } })
    })
    const args = JSON.stringify({ who: SECRET })
    const env = { MY_SECRET: SECRET }
    const [plain, json] = await Promise.all([
      run(ctx, ["prompt", "docs", "greet", "--args", args, "--config", config], { env }),
      run(ctx, ["prompt", "docs", "greet", "--args", args, "--json", "--config", config], { env })
    ])
    expect(plain.code).toBe(0)
    expect(plain.stdout).toBe("[user] Hello, <redacted>!\n")
    expect(json.code).toBe(0)
    expect(json.stdout + json.stderr + plain.stderr).not.toContain(SECRET)
  })

  it.concurrent("auth login and auth status: an authorization server that puts the client secret in the scope gets it printed <redacted>", async (ctx) => {
    const server = await startAuthServer({
      tokenJson: (issued, client) => JSON.stringify({ ...issued, scope: `mcp:read ${client.clientSecret ?? ""}` })
    })
    ctx.onTestFinished(() => server.close())
    const dir = join(await tempDir(ctx), "config")
    const env = { MCP_FLEET_CONFIG_DIR: dir, BROWSER: "" }
    const config = await writeConfig(ctx, { linear: { url: server.mcpUrl } })
    const login = start(ctx, ["auth", "login", "linear", "--config", config], { env })
    const link = (await login.stderrLine((line) => line.trim().startsWith("http://"))).trim()
    expect((await fetch(link)).status).toBe(200)
    const done = await login.finished
    expect(done.code).toBe(0)
    const [plain, json] = await Promise.all([
      run(ctx, ["auth", "status", "--config", config], { env }),
      run(ctx, ["auth", "status", "--json", "--config", config], { env })
    ])
    const secret = server.requests.flatMap((r) => {
      const header = String(r.headers["authorization"] ?? "")
      return header.startsWith("Basic ") ? [Buffer.from(header.slice(6), "base64").toString("utf8").split(":")[1]!] : []
    })[0]
    expect(secret).toMatch(/^secret-/)
    expect(done.stdout).toContain("scope mcp:read <redacted>")
    expect(JSON.parse(json.stdout)).toMatchObject({ servers: [{ scope: "mcp:read <redacted>" }] })
    for (const result of [done, plain, json]) expect(result.stdout + result.stderr).not.toContain(secret)
  })
})
