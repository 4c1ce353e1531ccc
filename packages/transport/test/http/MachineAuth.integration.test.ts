/**
 * The HTTP transport with a machine strategy and DPoP (real undici, 127.0.0.1, the fake authorization server, whose
 * DPoP checks use node:crypto): every request carries a proof for its own method and URL, the MCP server's
 * `use_dpop_nonce` (with its `DPoP-Nonce` header, which the transport hands to `McpAuth`) is answered by one retry,
 * and a DPoP proof the server echoes into an error body is scrubbed.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ClientCredentials, CredentialSource, TokenStore } from "@mcp-fleet/auth"
import { type AuthServerOptions, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Layer, Redacted } from "effect"

const authServer = (options: AuthServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => startAuthServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const ServiceAccount = ClientCredentials.layer({
  client: { method: "client_secret", clientId: "svc", clientSecret: CredentialSource.value(Redacted.make("pw")) }
}).pipe(Layer.provideMerge(TokenStore.layerMemory), Layer.provideMerge(NodeHttpClient.layerUndici))

describe("HTTP transport with a machine strategy and DPoP", () => {
  it.live("client_credentials + DPoP with server nonces: tools listed and called, every proof valid", () =>
    Effect.gen(function*() {
      const server = yield* authServer({
        dpop: true,
        dpopNonce: "both",
        machineClient: { clientId: "svc", clientSecret: "pw" }
      })
      const result = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        yield* client.awaitReady
        yield* client.listTools()
        return yield* client.callTool("whoami", {})
      }))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "authorized" }])
      const atMcp = server.dpopProofs.filter((p) => p.at === "mcp")
      assert.isTrue(server.dpopProofs.every((p) => p.valid), JSON.stringify(server.dpopProofs.map((p) => p.error)))
      // The first proof at the MCP server was challenged for a nonce, every later one carried it.
      assert.isUndefined(atMcp[0]?.claims?.["nonce"])
      assert.isTrue(atMcp.slice(1).every((p) => p.claims?.["nonce"] === "rs-nonce-1"))
      // The fake checked each proof's htm against its request's method (the listen GET too, when it went out).
      assert.isTrue(atMcp.every((p) => p.claims?.["htu"] === server.mcpUrl))
      const posts = server.requests.filter((r) => r.path === "/mcp" && r.method === "POST")
      assert.isTrue(posts.slice(1).every((r) => String(r.headers["authorization"]).startsWith("DPoP at-")))
    }).pipe(Effect.provide(ServiceAccount)))

  it.live("an error body that echoes the token and the DPoP proof is shown scrubbed", () =>
    Effect.gen(function*() {
      const server = yield* authServer({
        dpop: true,
        echoToken: true,
        machineClient: { clientId: "svc", clientSecret: "pw" }
      })
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        yield* client.awaitReady
        return yield* Effect.flip(client.callTool("whoami", {}))
      }))
      const call = server.requests.filter((r) => r.path === "/mcp").at(-1)
      const proof = String(call?.headers["dpop"])
      const token = String(call?.headers["authorization"]).slice("DPoP ".length)
      assert.isAbove(proof.length, 100)
      const shown = `${error.message} ${JSON.stringify(error)}`
      assert.include(shown, "upstream refused the credentials *** with proof ***")
      assert.notInclude(shown, token)
      assert.notInclude(shown, proof.slice(0, 40))
    }).pipe(Effect.provide(ServiceAccount)))
})
