/**
 * DPoP (RFC 9449) through `McpAuth` against the fake authorization server over real undici, which checks every proof
 * with node:crypto (signature, `typ`, `jwk`, `htm`, `htu`, `ath`, replayed `jti`, the token's key binding): when it is
 * used (`auto`, `always`, `never`), the proofs on token and MCP requests, the nonce retries and their bound, the
 * refresh with the same key, and the key kept with the tokens in the file store.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import {
  AuthorizationPrompt,
  ClientCredentials,
  CredentialSource,
  FileTokenStore,
  McpAuth,
  TokenStore
} from "../src/index.ts"
import { machineLayer, send, tokenRequests } from "./machineSupport.ts"
import { authLayer, authServer, REDIRECT_URI } from "./support.ts"

const mcpPosts = (server: { readonly requests: ReadonlyArray<{ readonly method: string; readonly path: string }> }) =>
  server.requests.filter((r) => r.method === "POST" && r.path === "/mcp").length

describe("DPoP", () => {
  it.effect("auto: a DPoP challenge and an AS that takes ES256 → a bound token; every request a fresh proof with ath", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ dpop: true })
      assert.strictEqual(yield* send(server.mcpUrl), 200)
      assert.strictEqual(yield* send(server.mcpUrl), 200)
      assert.strictEqual(yield* send(server.mcpUrl, "GET"), 405) // authorized; the fake has no GET stream
      const proofs = server.dpopProofs
      assert.deepStrictEqual(proofs.map((p) => [p.at, p.valid, p.claims?.["htm"]]), [
        ["token", true, "POST"],
        ["mcp", true, "POST"],
        ["mcp", true, "POST"],
        ["mcp", true, "GET"]
      ])
      const [token, ...resource] = proofs
      assert.isTrue(resource.every((p) => p.jkt === token?.jkt && typeof p.claims?.["ath"] === "string"))
      assert.isUndefined(token?.claims?.["ath"])
      assert.strictEqual(new Set(proofs.map((p) => p.claims?.["jti"])).size, 4)
      const last = server.requests.at(-1)
      assert.match(String(last?.headers["authorization"]), /^DPoP at-/)
    }).pipe(Effect.provide(authLayer())))

  it.effect("auto with a Bearer challenge stays Bearer; always binds; never does not", () =>
    Effect.gen(function*() {
      const scheme = (dpop: "auto" | "always" | "never") =>
        Effect.gen(function*() {
          const server = yield* authServer({ dpop: true, bearerChallenge: true })
          assert.strictEqual(yield* send(server.mcpUrl).pipe(Effect.provide(authLayer({ dpop }))), 200)
          return String(server.requests.at(-1)?.headers["authorization"]).split(" ")[0]
        })
      assert.strictEqual(yield* scheme("auto"), "Bearer")
      assert.strictEqual(yield* scheme("always"), "DPoP")
      assert.strictEqual(yield* scheme("never"), "Bearer")
    }))

  it.effect("nonces: the token endpoint's and the MCP server's are each answered by one retry, then sent up front", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ dpop: true, dpopNonce: "both" })
      assert.strictEqual(yield* send(server.mcpUrl), 200)
      assert.strictEqual(yield* send(server.mcpUrl), 200)
      assert.deepStrictEqual(
        server.dpopProofs.map((p) => [p.at, p.claims?.["nonce"] ?? null]),
        [
          ["token", null], // → 400 use_dpop_nonce
          ["token", "as-nonce-1"],
          ["mcp", null], // → 401 use_dpop_nonce
          ["mcp", "rs-nonce-1"],
          ["mcp", "rs-nonce-1"] // the next request carries it from the start
        ]
      )
      assert.strictEqual(mcpPosts(server), 4) // 401 without a token, 401 for the nonce, then two successes
    }).pipe(Effect.provide(authLayer())))

  it.effect("a nonce the server hands out on a success is carried by the next request: no further challenge", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ dpop: true, dpopNonce: "rs", dpopNonceRotate: true })
      for (let i = 0; i < 3; i++) assert.strictEqual(yield* send(server.mcpUrl), 200)
      const nonces = server.dpopProofs.filter((p) => p.at === "mcp").map((p) => p.claims?.["nonce"] ?? null)
      // The challenged first proof, its retry with rs-nonce-1, then each request with the nonce the last success gave.
      assert.strictEqual(nonces.length, 4)
      assert.deepStrictEqual(nonces.slice(0, 2), [null, "rs-nonce-1"])
      assert.isTrue(
        nonces.slice(2).every((n) => typeof n === "string" && n.startsWith("rs-nonce-") && n !== "rs-nonce-1")
      )
      assert.strictEqual(mcpPosts(server), 5) // the 401 without a token, one nonce challenge, three successes
    }).pipe(Effect.provide(authLayer())))

  it.effect("a server that keeps asking for the same nonce is not answered twice: AuthorizationRequired", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ dpop: true, dpopNonceStuck: true })
      // 401 without a token → authorization; 401 use_dpop_nonce → retry with it; 401 again: the caller's own bound
      // (two challenges per request) returns it.
      assert.strictEqual(yield* send(server.mcpUrl), 401)
      // The next request carries the nonce; asked again for the same one, McpAuth refuses instead of looping.
      const error = yield* Effect.flip(send(server.mcpUrl))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "asks for a DPoP nonce but gave no new valid one")
      assert.strictEqual(mcpPosts(server), 4)
      assert.lengthOf(tokenRequests(server), 1)
    }).pipe(Effect.provide(authLayer())))

  it.effect("a token endpoint that keeps asking for a nonce gets one retry: two token requests, then the error", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ dpop: true, dpopAsNonceStuck: true })
      const error = yield* Effect.flip(send(server.mcpUrl))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "error use_dpop_nonce")
      assert.lengthOf(tokenRequests(server), 2)
    }).pipe(Effect.provide(authLayer())))

  it.effect("a DPoP-bound refresh token is refreshed with a proof by the same key", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ dpop: true, expiresIn: 600 })
      assert.strictEqual(yield* send(server.mcpUrl), 200)
      yield* TestClock.adjust("541 seconds")
      assert.strictEqual(yield* send(server.mcpUrl), 200)
      const tokens = tokenRequests(server)
      assert.deepStrictEqual(tokens.map((r) => r.form["grant_type"]), ["authorization_code", "refresh_token"])
      const atToken = server.dpopProofs.filter((p) => p.at === "token")
      assert.strictEqual(atToken.length, 2)
      assert.strictEqual(atToken[0]?.jkt, atToken[1]?.jkt)
    }).pipe(Effect.provide(authLayer())))

  it.effect("a machine grant binds its token too (client_credentials with DPoP)", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ dpop: true, machineClient: { clientId: "svc", clientSecret: "pw" } })
      const status = yield* send(server.mcpUrl).pipe(
        Effect.provide(machineLayer(ClientCredentials.layer({
          client: {
            method: "client_secret",
            clientId: "svc",
            clientSecret: CredentialSource.value(Redacted.make("pw"))
          }
        })))
      )
      assert.strictEqual(status, 200)
      assert.isTrue(server.dpopProofs.every((p) => p.valid))
      assert.match(String(server.requests.at(-1)?.headers["authorization"]), /^DPoP /)
    }))

  it.effect("the proof key is kept with the tokens in the file store: a new process signs with it, no new token", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const directory = yield* fs.makeTempDirectoryScoped()
      const server = yield* authServer({ dpop: true })
      const stack = () =>
        McpAuth.layer({ clientName: "mcp-fleet tests", redirectUri: REDIRECT_URI }).pipe(
          Layer.provideMerge(Layer.mergeAll(AuthorizationPrompt.layerHeadless, FileTokenStore.layer(directory))),
          Layer.provideMerge(NodeHttpClient.layerUndici)
        )
      assert.strictEqual(yield* send(server.mcpUrl).pipe(Effect.provide(stack())), 200)
      const stored = yield* TokenStore.TokenStore.pipe(
        Effect.flatMap((store) => store.getTokens(server.mcpUrl)),
        Effect.provide(FileTokenStore.layer(directory))
      )
      assert.strictEqual(Option.getOrUndefined(stored)?.tokenType, "DPoP")
      assert.isTrue(Redacted.isRedacted(Option.getOrUndefined(stored)?.dpopKey))
      assert.strictEqual(yield* send(server.mcpUrl).pipe(Effect.provide(stack())), 200) // a fresh McpAuth
      assert.lengthOf(tokenRequests(server), 1)
      const atMcp = server.dpopProofs.filter((p) => p.at === "mcp")
      assert.strictEqual(atMcp.at(-1)?.jkt, server.dpopProofs[0]?.jkt)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
