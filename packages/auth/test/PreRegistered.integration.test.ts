/**
 * A pre-registered client (the CLI config's `auth.clientId`) wins over a client kept from an earlier Dynamic Client
 * Registration at the same issuer: adding credentials to the config takes effect at the next authorization.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { AuthorizationPrompt, McpAuth, TokenStore } from "../src/index.ts"
import { authServer, call, paths, REDIRECT_URI } from "./support.ts"

it.effect("configured credentials replace a dynamically registered client kept for the issuer", () =>
  Effect.gen(function*() {
    const server = yield* authServer({ preRegistered: { clientId: "pre-1", clientSecret: "pre-secret" } })
    const store = Layer.succeed(TokenStore.TokenStore, yield* TokenStore.makeMemory)
    const stack = (options: Partial<McpAuth.Options>) =>
      McpAuth.layer({ clientName: "mcp-fleet tests", redirectUri: REDIRECT_URI, ...options }).pipe(
        Layer.provide(Layer.mergeAll(AuthorizationPrompt.layerHeadless, store)),
        Layer.provideMerge(store),
        Layer.provideMerge(NodeHttpClient.layerUndici)
      )
    // First without configured credentials: a dynamic registration, kept for the issuer.
    assert.strictEqual(yield* call(server.mcpUrl).pipe(Effect.provide(stack({}))), 200)
    const registered = yield* TokenStore.TokenStore.pipe(
      Effect.flatMap((s) => s.getClient(server.issuer)),
      Effect.provide(store)
    )
    assert.strictEqual(Option.getOrUndefined(registered)?.source, "dynamic")
    yield* TokenStore.TokenStore.pipe(Effect.flatMap((s) => s.removeTokens(server.mcpUrl)), Effect.provide(store))
    // Then with them: the configured client authorizes; no second registration.
    const configured = stack({ preRegistered: [{ clientId: "pre-1", clientSecret: Redacted.make("pre-secret") }] })
    assert.strictEqual(yield* call(server.mcpUrl).pipe(Effect.provide(configured)), 200)
    const authorizations = server.requests.filter((r) => r.path === "/authorize").map((r) => r.query["client_id"])
    assert.strictEqual(authorizations[1], "pre-1")
    assert.strictEqual(paths(server).filter((p) => p === "POST /register").length, 1)
    const kept = yield* TokenStore.TokenStore.pipe(
      Effect.flatMap((s) => s.getClient(server.issuer)),
      Effect.provide(store)
    )
    assert.strictEqual(Option.getOrUndefined(kept)?.clientId, "pre-1")
  }))
