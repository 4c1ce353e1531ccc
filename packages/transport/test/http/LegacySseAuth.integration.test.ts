/**
 * Legacy HTTP+SSE with `McpAuth` (issue 25, low 7): every request of a session carries the credentials of the
 * configured server (its `/sse` URL), whatever path its `endpoint` event names. Real undici against the fake
 * authorization server's legacy server on 127.0.0.1, whose POSTs need a token issued for `<origin>/sse`.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { AuthorizationPrompt, McpAuth, TokenStore } from "@mcp-fleet/auth"
import { type AuthServerOptions, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"

const authServer = (options: AuthServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => startAuthServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const AuthLive = McpAuth.layer({ clientName: "mcp-fleet legacy test", redirectUri: "http://127.0.0.1:8976/cb" }).pipe(
  Layer.provideMerge(Layer.mergeAll(AuthorizationPrompt.layerHeadless, TokenStore.layerMemory)),
  Layer.provideMerge(NodeHttpClient.layerUndici)
)

const method = (json: unknown) => (json as { method?: string } | undefined)?.method

/** Another service on 127.0.0.1 (another port): it records what reaches it. Closed with the scope. */
const otherService = Effect.acquireRelease(
  Effect.callback<{ readonly origin: string; readonly hits: Array<string>; readonly close: () => void }>((resume) => {
    const hits: Array<string> = []
    const server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`)
      res.writeHead(202).end()
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({
        origin: `http://127.0.0.1:${port}`,
        hits,
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      }))
    })
  }),
  (service) => Effect.sync(service.close)
)

describe("legacy HTTP+SSE with McpAuth", () => {
  it.live("a standard SSE server whose endpoint is /messages completes OAuth: the POSTs carry the /sse token", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ legacySse: {} })
      const result = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.sseUrl, transport: "sse", name: "legacy" })
        yield* client.awaitReady
        return yield* client.callTool("whoami", {})
      }))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "authorized" }])
      const authorized = server.requests.filter((r) => r.path === "/authorize")
      assert.deepStrictEqual(authorized.map((r) => r.query["resource"]), [server.sseUrl], "one authorization, for /sse")
      const posts = server.requests.filter((r) => r.path === "/messages")
      assert.includeMembers(posts.map((r) => method(r.json)), ["initialize", "tools/call"])
      const stream = server.requests.findLast((r) => r.path === "/sse")
      for (const post of posts) assert.strictEqual(post.headers["authorization"], stream?.headers["authorization"])
    }).pipe(Effect.provide(AuthLive)))

  it.live("a server whose endpoint names another same-origin server's path gets none of that server's tokens", () =>
    Effect.gen(function*() {
      // The victim (/mcp) is authorized first; then a legacy server on the same origin names /mcp as its endpoint.
      const server = yield* authServer({ legacySse: { endpoint: "/mcp" } })
      yield* Effect.scoped(Effect.gen(function*() {
        const victim = yield* McpClient.make({ url: server.mcpUrl, transport: "http", name: "victim" })
        yield* victim.awaitReady
      }))
      const victimTokens = server.requests
        .filter((r) => r.path === "/mcp" && r.query["sessionId"] === undefined)
        .flatMap((r) => (typeof r.headers["authorization"] === "string" ? [r.headers["authorization"]] : []))
      assert.isAtLeast(victimTokens.length, 1)
      const session = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        const legacy = yield* McpClient.make({ url: server.sseUrl, transport: "sse", name: "legacy" })
        yield* legacy.awaitReady
        return yield* legacy.callTool("whoami", {})
      })))
      const redirected = server.requests.filter((r) => r.path === "/mcp" && r.query["sessionId"] !== undefined)
      assert.isAtLeast(redirected.length, 1)
      for (const post of redirected) {
        assert.notInclude(
          victimTokens,
          post.headers["authorization"],
          "a frame of the legacy session carried /mcp's token"
        )
      }
      // With its own (/sse) token the session works: the endpoint's path does not choose the credentials.
      assert.strictEqual(session._tag, "Success")
      assert.includeMembers(redirected.map((r) => method(r.json)), ["initialize", "tools/call"])
    }).pipe(Effect.provide(AuthLive)))

  it.live("an endpoint on another origin (another port of 127.0.0.1) is refused: nothing, no token, reaches it", () =>
    Effect.gen(function*() {
      const other = yield* otherService
      const server = yield* authServer({ legacySse: { endpoint: `${other.origin}/collect` } })
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const legacy = yield* McpClient.make({ url: server.sseUrl, transport: "sse", name: "legacy" })
        return yield* Effect.flip(legacy.awaitReady)
      }))
      assert.deepStrictEqual(other.hits, [])
      assert.strictEqual(error._tag, "ProtocolError")
      assert.include(
        error.message,
        `its endpoint event named "${other.origin}/collect", refused: it is not on ${server.origin}`
      )
    }).pipe(Effect.provide(AuthLive)))
})
