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

  it.live("when authorization cannot be completed the 401 surfaces as before (HttpStatusError), nothing hangs", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ noPkce: true })
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        return yield* Effect.flip(client.awaitReady)
      }))
      assert.include(error.message, "401")
      assert.notInclude(server.requests.map((r) => r.path), "/authorize")
    }).pipe(Effect.provide(AuthLive)))
})
