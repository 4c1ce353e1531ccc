/**
 * `mcp-fleet auth login|logout|status` against the fake OAuth authorization server on 127.0.0.1, as a real
 * process: the loopback listener receives the redirect (the test plays the browser by following the printed
 * URL), tokens land in `tokens.json` (0600) in the config directory, and the other commands use them. Without
 * tokens a server is `unauthorized` with the advice, never a hang.
 */
import { type AuthServer, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import type { TestContext } from "vitest"
import { describe, expect, it } from "vitest"
import { run, start, tempDir, writeConfig } from "./CliProcess.ts"
import { remotePeer } from "./remotePeer.ts"

const fakeAuthServer = async (ctx: TestContext, options: Parameters<typeof startAuthServer>[0] = {}) => {
  const server = await startAuthServer(options)
  ctx.onTestFinished(() => server.close())
  return server
}

/** Every secret the authorization server handed out or received. */
const secrets = (server: AuthServer): ReadonlyArray<string> =>
  [
    ...server.requests.flatMap((r) => [r.form["code"], r.form["code_verifier"], r.form["refresh_token"]]),
    ...server.requests.flatMap((r) => {
      const header = r.headers["authorization"]
      return typeof header === "string" && header.startsWith("Bearer ") ? [header.slice(7)] : []
    })
  ].filter((s): s is string => s !== undefined && s !== "")

describe("mcp-fleet auth", () => {
  it.concurrent("login through the loopback listener, then status and calls use the tokens; logout forgets them", async (ctx) => {
    const server = await fakeAuthServer(ctx, { challengeScope: "mcp:read" })
    const dir = join(await tempDir(ctx), "config")
    const env = { MCP_FLEET_CONFIG_DIR: dir, BROWSER: "" }
    const config = await writeConfig(ctx, { linear: { url: server.mcpUrl } })

    // Before any login: unauthorized, with the advice, at once (no browser, no waiting).
    const before = await run(ctx, ["status", "--json", "--config", config], { env })
    const doc = JSON.parse(before.stdout) as { servers: Array<{ state: string; lastError: string }> }
    expect(doc.servers[0]?.state).toBe("unauthorized")
    expect(doc.servers[0]?.lastError).toContain("needs authorization: run `mcp-fleet auth login linear`")
    expect(server.requests.some((r) => r.path === "/authorize")).toBe(false)

    const login = start(ctx, ["auth", "login", "linear", "--config", config], { env })
    const link = (await login.stderrLine((line) => line.trim().startsWith("http://"))).trim()
    expect(link).toMatch(new RegExp(`^${server.origin}/authorize\\?`))
    const redirect = new URL(link).searchParams.get("redirect_uri") ?? ""
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    // The browser: /authorize answers 302 to the loopback listener, which answers a page.
    const page = await fetch(link)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("mcp-fleet received the authorization")
    const done = await login.finished
    expect(done.code).toBe(0)
    expect(done.stdout).toContain(`Authorized "linear" (issuer ${server.issuer}, scope mcp:read; tokens saved in`)
    const file = join(dir, "tokens.json")
    expect(statSync(file).mode & 0o777).toBe(0o600)

    const auth = await run(ctx, ["auth", "status", "--json", "--config", config], { env })
    expect(auth.code).toBe(0)
    expect(JSON.parse(auth.stdout)).toMatchObject({
      servers: [{ name: "linear", authorized: true, issuer: server.issuer, scope: "mcp:read", refreshable: true }]
    })
    const text = await run(ctx, ["auth", "status", "--config", config], { env })
    expect(text.stdout).toMatch(/^linear: signed in · issuer http:\/\/127\.0\.0\.1:\d+ · scope mcp:read · expires in /)

    const call = await run(ctx, ["call", "linear", "whoami", "--config", config], { env })
    expect(call.code).toBe(0)
    expect(call.stdout).toContain("authorized")

    // No token, code, verifier or refresh token in any output; they are only in the 0600 file.
    const outputs = [before, done, auth, text, call].map((r) => r.stdout + r.stderr).join("\n")
    const seen = secrets(server)
    expect(seen.length).toBeGreaterThan(3)
    for (const secret of seen) expect(outputs).not.toContain(secret)
    expect(readFileSync(file, "utf8")).toContain("refreshToken")

    const logout = await run(ctx, ["auth", "logout", "linear", "--config", config], { env })
    expect(logout.stdout).toContain(`Signed out of "linear"`)
    const after = await run(ctx, ["status", "--config", config], { env })
    expect(after.stdout).toContain("linear: unauthorized · needs authorization: run `mcp-fleet auth login linear`")
  })

  it.concurrent("status asks a server without tokens whether it needs a sign-in: 'no sign-in needed' when not", async (ctx) => {
    const locked = await fakeAuthServer(ctx)
    const open = await remotePeer(ctx)
    const env = { MCP_FLEET_CONFIG_DIR: join(await tempDir(ctx), "config"), BROWSER: "" }
    const config = await writeConfig(ctx, {
      open: { url: open.url },
      locked: { url: locked.mcpUrl },
      down: { url: "http://127.0.0.1:9/mcp" }
    })
    const [text, json] = await Promise.all([
      run(ctx, ["auth", "status", "--config", config], { env }),
      run(ctx, ["auth", "status", "--json", "--config", config], { env })
    ])
    expect(text.code, text.stderr).toBe(0)
    const lines = text.stdout.trim().split("\n")
    expect(lines).toHaveLength(3)
    expect(lines[0]).toBe(`open: no sign-in needed (it answered without authorization) · ${open.url}`)
    expect(lines[1]).toBe(`locked: not signed in (run \`mcp-fleet auth login locked\`) · ${locked.mcpUrl}`)
    expect(lines[2]).toMatch(
      /^down: not signed in; whether it needs a sign-in is unknown \(.*ECONNREFUSED.*\) · http:\/\/127\.0\.0\.1:9\/mcp$/
    )
    expect(JSON.parse(json.stdout)).toMatchObject({
      servers: [
        { name: "open", authorized: false, needsSignIn: false, reason: null },
        { name: "locked", authorized: false, needsSignIn: true, reason: null },
        { name: "down", authorized: false, needsSignIn: null }
      ]
    })
    // The probe is a plain initialize: nothing was asked of the authorization server beyond the refusal.
    expect(locked.requests.some((r) => r.path === "/authorize" || r.path === "/token")).toBe(false)
  })

  it.concurrent("login names only remote servers: a local one and an unknown one are usage errors", async (ctx) => {
    const dir = await tempDir(ctx)
    const config = await writeConfig(ctx, { local: { command: "node", args: ["-e", ""] } })
    const local = await run(ctx, ["auth", "login", "local", "--config", config], { env: { MCP_FLEET_CONFIG_DIR: dir } })
    expect(local.code).toBe(2)
    expect(local.stderr).toContain(`"local" is a local (command) server; only remote (url) servers sign in with OAuth.`)
    const unknown = await run(ctx, ["auth", "logout", "nope", "--config", config], {
      env: { MCP_FLEET_CONFIG_DIR: dir }
    })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain(`has no server named "nope"`)
  })
})
