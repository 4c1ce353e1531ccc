/**
 * The HTTP transport with `McpAuth` provided, against the fake authorization server's protected MCP endpoint
 * (real undici, 127.0.0.1): 401 → discovery → authorization → tools listed and called → 403 step-up → retried.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { AuthorizationPrompt, McpAuth, TokenStore } from "@mcp-fleet/auth"
import { type AuthServerOptions, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Layer } from "effect"

const authServer = (options: AuthServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => startAuthServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const AuthLive = McpAuth.layer({ clientName: "mcp-fleet transport test", redirectUri: "http://127.0.0.1:8976/cb" })
  .pipe(
    Layer.provideMerge(Layer.mergeAll(AuthorizationPrompt.layerHeadless, TokenStore.layerMemory)),
    Layer.provideMerge(NodeHttpClient.layerUndici)
  )

/** A host that cannot send anyone to a browser. */
const unattended = McpAuth.layer({ clientName: "mcp-fleet transport test", redirectUri: "http://127.0.0.1:8976/cb" })
  .pipe(
    Layer.provideMerge(
      Layer.mergeAll(AuthorizationPrompt.layerUnavailable("nobody to ask here"), TokenStore.layerMemory)
    ),
    Layer.provideMerge(NodeHttpClient.layerUndici)
  )

describe("HTTP transport with McpAuth", () => {
  it.live("401 → discovery → authorization → tools listed and called → 403 step-up → the call retried", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ challengeScope: "mcp:read", requiredScope: "mcp:call" })
      const result = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        yield* client.awaitReady
        const { tools } = yield* client.listTools()
        assert.deepStrictEqual(tools.map((t) => t.name), ["whoami"])
        return yield* client.callTool("whoami", {})
      }))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "authorized" }])
      const scopes = server.requests.filter((r) => r.path === "/authorize").map((r) => r.query["scope"])
      assert.deepStrictEqual(scopes, ["mcp:read", "mcp:read mcp:call"])
      const posts = server.requests.filter((r) => r.path === "/mcp" && r.method === "POST")
      assert.isUndefined(posts[0]?.headers["authorization"])
      assert.isTrue(posts.slice(1).every((r) => String(r.headers["authorization"]).startsWith("Bearer at-")))
      const calls = posts.filter((r) => (r.json as { method?: string } | undefined)?.method === "tools/call")
      assert.strictEqual(calls.length, 2) // the 403, then the retry after the step-up
    }).pipe(Effect.provide(AuthLive)))

  it.live("when authorization cannot be completed the request fails with AuthorizationRequired, nothing hangs", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ noPkce: true })
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http", name: "guarded" })
        return yield* Effect.flip(client.awaitReady)
      }))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      // The era probe is the first request, and a failed authorization is final: no fallback to initialize.
      assert.include(
        error.message,
        "MCP server \"guarded\" needs authorization (server/discover was answered HTTP 401)"
      )
      assert.notInclude(server.requests.map((r) => (r.json as { method?: string } | undefined)?.method), "initialize")
      assert.include(error.message, "code_challenge_methods_supported")
      assert.notInclude(server.requests.map((r) => r.path), "/authorize")
    }).pipe(Effect.provide(AuthLive)))

  it.live("no prompt available: AuthorizationRequired says so at once", () =>
    Effect.gen(function*() {
      const server = yield* authServer({})
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http", name: "guarded" })
        return yield* Effect.flip(client.awaitReady)
      }))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "nobody to ask here")
      assert.notInclude(server.requests.map((r) => r.path), "/authorize")
    }).pipe(Effect.provide(unattended)))

  it.live("an access token revoked mid-session is refreshed and the call retried once", () =>
    Effect.gen(function*() {
      const server = yield* authServer({})
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        yield* client.awaitReady
        const bearer = String(
          server.requests.find((r) => r.path === "/mcp" && r.headers["authorization"])?.headers["authorization"]
        )
        server.revoke(bearer.slice("Bearer ".length))
        const before = server.requests.length
        const result = yield* client.callTool("whoami", {})
        assert.deepStrictEqual(result.content, [{ type: "text", text: "authorized" }])
        const after = server.requests.slice(before).flatMap((r) => {
          const method = (r.json as { method?: string } | undefined)?.method
          return method === "tools/call" ? [method] : r.path === "/token" ? [r.form["grant_type"]] : []
        })
        assert.deepStrictEqual(after, ["tools/call", "refresh_token", "tools/call"])
        assert.notStrictEqual(String(server.requests.at(-1)?.headers["authorization"]), bearer)
      }))
    }).pipe(Effect.provide(AuthLive)))

  it.live("a refused refresh with nobody to ask: the call fails with AuthorizationRequired, not a crash", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ revokedRefresh: true })
      // Authorized once (headless), then the same store is used by a host that cannot prompt.
      const store = yield* TokenStore.makeMemory
      const withPrompt = (prompt: Layer.Layer<AuthorizationPrompt.AuthorizationPrompt>) =>
        McpAuth.layer({ clientName: "t", redirectUri: "http://127.0.0.1:8976/cb" }).pipe(
          Layer.provideMerge(Layer.mergeAll(prompt, Layer.succeed(TokenStore.TokenStore, store))),
          Layer.provideMerge(NodeHttpClient.layerUndici)
        )
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        yield* client.awaitReady
      })).pipe(
        Effect.provide(withPrompt(AuthorizationPrompt.layerHeadless.pipe(Layer.provide(NodeHttpClient.layerUndici))))
      )
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        yield* client.awaitReady
        server.revoke(String(server.requests.at(-1)?.headers["authorization"]).slice("Bearer ".length))
        return yield* Effect.flip(client.callTool("whoami", {}))
      })).pipe(Effect.provide(withPrompt(AuthorizationPrompt.layerUnavailable("nobody to ask here"))))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "tools/call was answered HTTP 401")
      assert.strictEqual(server.requests.filter((r) => r.form["grant_type"] === "refresh_token").length, 1)
    }))

  it.live("a 403 insufficient_scope loop ends in AuthorizationRequired after bounded step-ups", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ scopeLoop: true })
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        return yield* Effect.flip(client.awaitReady)
      }))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "HTTP 403")
      assert.isAtMost(server.requests.filter((r) => r.path === "/authorize").length, 4)
    }).pipe(Effect.provide(AuthLive)))

  it.live("a server that echoes the token in an error: the token appears in no error text", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ echoToken: true })
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        yield* client.awaitReady
        return yield* Effect.flip(client.callTool("whoami", {}))
      }))
      const token = String(server.requests.at(-1)?.headers["authorization"]).slice("Bearer ".length)
      assert.match(token, /^at-/)
      assert.strictEqual(error._tag, "HttpStatusError")
      assert.include(error.message, "upstream refused the credentials ***")
      assert.notInclude(error.message, token)
      assert.notInclude(JSON.stringify(error), token)
    }).pipe(Effect.provide(AuthLive)))
})
