/**
 * The spec's transport and scope rules, against the fake authorization server over real undici: HTTPS (or
 * localhost) for every authorization-server URL and the redirect URI, `offline_access` only where the server
 * lists it, and an error code that echoes what was sent shown scrubbed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClient, HttpClientError } from "effect/http"
import { AuthorizationServerMetadata } from "../src/index.ts"
import { authLayer, authServer, call, paths, secretsSeen } from "./support.ts"

/** An HttpClient that must never be used. */
const noNetwork = Layer.succeed(
  HttpClient.HttpClient,
  HttpClient.make((request) =>
    Effect.die(new HttpClientError.HttpClientError({ reason: new HttpClientError.TransportError({ request }) }))
  )
)

describe("McpAuth: HTTPS, offline_access, echoed secrets", () => {
  it.effect("an authorization server that is neither HTTPS nor localhost is not even asked", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        AuthorizationServerMetadata.discover("http://as.example", "https://mcp.example/mcp")
      )
      assert.strictEqual(error._tag, "DiscoveryFailed")
      assert.include(error.message, "http://as.example/ (refused: it is plain HTTP off the loopback interface)")
    }).pipe(Effect.provide(noNetwork)))

  it.effect("metadata naming a plain-HTTP endpoint on another host is discarded: nobody is sent anywhere", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ insecureTokenEndpoint: true })
      const error = yield* Effect.flip(call(server.mcpUrl))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "No authorization server metadata was found")
      assert.notInclude(paths(server), "GET /authorize")
    }).pipe(Effect.provide(authLayer())))

  it.effect("a redirect URI that is neither HTTPS nor localhost is refused before the user is sent anywhere", () =>
    Effect.gen(function*() {
      const server = yield* authServer({})
      const error = yield* Effect.flip(call(server.mcpUrl))
      assert.include(error.message, "the redirect URI http://callback.example/cb is neither HTTPS nor on localhost")
      assert.notInclude(paths(server), "GET /authorize")
    }).pipe(Effect.provide(authLayer({ redirectUri: "http://callback.example/cb" }))))

  it.effect("offline_access is requested where the authorization server lists it, and only there", () =>
    Effect.gen(function*() {
      const listed = yield* authServer({ offlineAccess: true, challengeScope: "mcp:read" })
      assert.strictEqual(yield* call(listed.mcpUrl), 200)
      const asked = listed.requests.find((r) => r.path === "/authorize")?.query["scope"]
      assert.strictEqual(asked, "mcp:read offline_access")
      const register = listed.requests.find((r) => r.path === "/register")?.json as { grant_types?: Array<string> }
      assert.include(register.grant_types ?? [], "refresh_token")

      const unlisted = yield* authServer({ challengeScope: "mcp:read" })
      assert.strictEqual(yield* call(unlisted.mcpUrl).pipe(Effect.provide(authLayer())), 200)
      assert.strictEqual(unlisted.requests.find((r) => r.path === "/authorize")?.query["scope"], "mcp:read")
    }).pipe(Effect.provide(authLayer())))

  it.effect("a token endpoint whose error echoes the code sent: the code appears in no error", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ echoGrantError: true })
      const error = yield* Effect.flip(call(server.mcpUrl))
      const secrets = secretsSeen(server)
      assert.isAtLeast(secrets.length, 2)
      assert.include(error.message, "with error invalid_grant ***")
      for (const secret of secrets) {
        assert.notInclude(error.message, secret)
        assert.notInclude(JSON.stringify(error), secret)
      }
    }).pipe(Effect.provide(authLayer())))
})
