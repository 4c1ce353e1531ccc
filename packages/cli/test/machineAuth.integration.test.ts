/**
 * A remote entry's `auth` settings, through the CLI as a real process against the fake authorization server on
 * 127.0.0.1: a service account (client_credentials with private_key_jwt from a key file) is ready without any login
 * and shows no secret in any output; a pre-registered client signs in through the browser flow without Dynamic
 * Client Registration; `auth login` of a machine grant needs no browser; a mistake in `auth` is a usage error.
 */
import { type AuthServer, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { generateKeyPairSync } from "node:crypto"
import { mkdir, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import type { TestContext } from "vitest"
import { describe, expect, it } from "vitest"
import { run, start, tempDir, writeConfig } from "./CliProcess.ts"

const fakeAuthServer = async (ctx: TestContext, options: Parameters<typeof startAuthServer>[0] = {}) => {
  const server = await startAuthServer(options)
  ctx.onTestFinished(() => server.close())
  return server
}

/** Every secret that crossed the wire: assertions, client secrets, Basic credentials, access tokens. */
const sentSecrets = (server: AuthServer): ReadonlyArray<string> =>
  server.requests.flatMap((r) => [
    r.form["client_assertion"],
    r.form["client_secret"],
    r.form["code"],
    typeof r.headers["authorization"] === "string" ? r.headers["authorization"].replace(/^\S+ /, "") : undefined
  ]).filter((s): s is string => s !== undefined && s.length > 8)

describe("mcp-fleet with auth settings in the config", () => {
  it.concurrent("a service account (client_credentials, private_key_jwt) is ready with no login; no secret in any output", async (ctx) => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
    const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString()
    const server = await fakeAuthServer(ctx, {
      machineClient: { clientId: "svc-reports", publicJwk: publicKey.export({ format: "jwk" }) },
      signingAlgs: ["ES256"]
    })
    const dir = join(await tempDir(ctx), "config")
    const env = { MCP_FLEET_CONFIG_DIR: dir, BROWSER: "" }
    const config = await writeConfig(ctx, {
      reports: {
        url: server.mcpUrl,
        auth: { grant: "client_credentials", clientId: "svc-reports", privateKeyFile: "keys/svc.pem", scope: "r:read" }
      }
    })
    // The key beside the config: its path in the config is relative to the config's folder.
    await mkdir(join(dirname(config), "keys"))
    await writeFile(join(dirname(config), "keys", "svc.pem"), pem, { mode: 0o600 })

    const status = await run(ctx, ["status", "--json", "--config", config], { env })
    expect(JSON.parse(status.stdout)).toMatchObject({ servers: [{ name: "reports", state: "ready" }] })
    const call = await run(ctx, ["call", "reports", "whoami", "--config", config], { env })
    expect(call.code).toBe(0)
    expect(call.stdout).toContain("authorized")
    const login = await run(ctx, ["auth", "login", "reports", "--config", config], { env })
    expect(login.code).toBe(0)
    expect(login.stderr).not.toContain("open this URL")
    expect(login.stdout).toContain(`Authorized "reports" (issuer ${server.issuer}, scope r:read; tokens saved in`)

    const tokenRequests = server.requests.filter((r) => r.path === "/token")
    expect(tokenRequests.length).toBeGreaterThan(0)
    expect(tokenRequests.every((r) => r.form["grant_type"] === "client_credentials")).toBe(true)
    expect(server.requests.some((r) => r.path === "/register" || r.path === "/authorize")).toBe(false)
    const outputs = [status, call, login].map((r) => r.stdout + r.stderr).join("\n")
    const secrets = [...sentSecrets(server), ...pem.split("\n").filter((l) => l.length > 20 && !l.startsWith("-----"))]
    expect(secrets.length).toBeGreaterThan(4)
    for (const secret of secrets) expect(outputs).not.toContain(secret)
  })

  it.concurrent("a pre-registered client signs in through the browser flow with no registration", async (ctx) => {
    const server = await fakeAuthServer(ctx, {
      noRegistration: true,
      preRegistered: { clientId: "pre-1", clientSecret: "pre-secret-value" }
    })
    const dir = join(await tempDir(ctx), "config")
    const env = { MCP_FLEET_CONFIG_DIR: dir, BROWSER: "", PRE_SECRET: "pre-secret-value" }
    const config = await writeConfig(ctx, {
      linear: { url: server.mcpUrl, auth: { clientId: "pre-1", clientSecret: "${PRE_SECRET}" } }
    })
    const login = start(ctx, ["auth", "login", "linear", "--config", config], { env })
    const link = (await login.stderrLine((line) => line.trim().startsWith("http://"))).trim()
    expect(new URL(link).searchParams.get("client_id")).toBe("pre-1")
    expect((await fetch(link)).status).toBe(200)
    const done = await login.finished
    expect(done.code).toBe(0)
    expect(server.requests.some((r) => r.path === "/register")).toBe(false)
    const call = await run(ctx, ["call", "linear", "whoami", "--config", config], { env })
    expect(call.stdout).toContain("authorized")
    expect([done, call].map((r) => r.stdout + r.stderr).join("\n")).not.toContain("pre-secret-value")
  })

  it.concurrent("a service account the authorization server refuses is unauthorized with advice about its settings", async (ctx) => {
    const server = await fakeAuthServer(ctx, { machineClient: { clientId: "svc", clientSecret: "right-secret" } })
    const config = await writeConfig(ctx, {
      reports: {
        url: server.mcpUrl,
        auth: { grant: "client_credentials", clientId: "svc", clientSecret: "wrong-secret-1" }
      }
    })
    const status = await run(ctx, ["status", "--json", "--config", config], {
      env: { MCP_FLEET_CONFIG_DIR: await tempDir(ctx) }
    })
    const doc = JSON.parse(status.stdout) as { servers: Array<{ state: string; lastError: string }> }
    expect(doc.servers[0]?.state).toBe("unauthorized")
    expect(doc.servers[0]?.lastError).toContain(
      "check the auth settings (client_credentials) of \"reports\" in the config; `mcp-fleet auth login reports` tries them"
    )
    expect(doc.servers[0]?.lastError).toContain("invalid_client")
    expect(status.stdout + status.stderr).not.toContain("wrong-secret-1")
  })

  it.concurrent("a mistake in auth is a usage error naming the setting, with no secret", async (ctx) => {
    const config = await writeConfig(ctx, {
      reports: {
        url: "https://r.example/mcp",
        auth: { grant: "client_credentials", clientId: "svc", clientSecert: "leaky-value" }
      }
    })
    const status = await run(ctx, ["status", "--config", config], { env: { MCP_FLEET_CONFIG_DIR: await tempDir(ctx) } })
    expect(status.code).toBe(2)
    expect(status.stderr).toContain(
      `mcpServers.reports.auth: unknown key "clientSecert" (did you mean "clientSecret"?)`
    )
    expect(status.stdout + status.stderr).not.toContain("leaky-value")
  })
})
