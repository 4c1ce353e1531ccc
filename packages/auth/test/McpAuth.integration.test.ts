import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"
import { McpAuth, TokenStore } from "../src/index.ts"
import { authLayer, authServer, call, paths, REDIRECT_URI, secretsSeen } from "./support.ts"

describe("McpAuth against the fake authorization server (real undici)", () => {
  it.effect("401 → PRM from the header → AS metadata → DCR → PKCE authorization → token → the retry succeeds", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ challengeScope: "mcp:read" })
      assert.strictEqual(yield* call(server.mcpUrl), 200)
      assert.deepStrictEqual(paths(server), [
        "POST /mcp",
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-authorization-server",
        "POST /register",
        "GET /authorize",
        "POST /token",
        "POST /mcp"
      ])
      const [register] = server.requests.filter((r) => r.path === "/register")
      assert.deepInclude(register?.json, { application_type: "native", redirect_uris: [REDIRECT_URI] })
      const authorize = server.requests.find((r) => r.path === "/authorize")?.query ?? {}
      const token = server.requests.find((r) => r.path === "/token")?.form ?? {}
      assert.strictEqual(authorize["code_challenge_method"], "S256")
      assert.strictEqual(authorize["resource"], server.mcpUrl)
      assert.strictEqual(authorize["scope"], "mcp:read")
      assert.isString(authorize["state"])
      assert.strictEqual(
        createHash("sha256").update(token["code_verifier"] ?? "").digest("base64url"),
        authorize["code_challenge"]
      )
      assert.strictEqual(token["resource"], server.mcpUrl)
      const last = server.requests.at(-1)
      assert.match(String(last?.headers["authorization"]), /^Bearer at-/)
      // No token ever travels in a URL.
      const accessToken = String(last?.headers["authorization"]).slice(7)
      assert.isFalse(server.requests.some((r) => Object.values(r.query).some((v) => v.includes(accessToken))))
    }).pipe(Effect.provide(authLayer())))

  it.effect("without a resource_metadata in the challenge: the path-based well-known, then the root", () =>
    Effect.gen(function*() {
      const atPath = yield* authServer({ prm: "path" })
      assert.strictEqual(yield* call(atPath.mcpUrl), 200)
      assert.include(paths(atPath), "GET /.well-known/oauth-protected-resource/mcp")
      const atRoot = yield* authServer({ prm: "root" })
      assert.strictEqual(yield* call(atRoot.mcpUrl), 200)
      assert.deepStrictEqual(paths(atRoot).slice(1, 3), [
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-protected-resource"
      ])
    }).pipe(Effect.provide(authLayer())))

  it.effect("an issuer with a path is found by path insertion", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ issuerPath: "/tenant1" })
      assert.strictEqual(yield* call(server.mcpUrl), 200)
      assert.include(paths(server), "GET /.well-known/oauth-authorization-server/tenant1")
    }).pipe(Effect.provide(authLayer())))

  it.effect("token endpoint auth: client_secret_basic, client_secret_post and none", () =>
    Effect.gen(function*() {
      const tokenRequest = (methods: Array<string>) =>
        Effect.gen(function*() {
          const server = yield* authServer({ authMethods: methods })
          assert.strictEqual(yield* call(server.mcpUrl).pipe(Effect.provide(authLayer())), 200)
          return server.requests.find((r) => r.path === "/token")
        })
      const basic = yield* tokenRequest(["client_secret_basic"])
      assert.match(String(basic?.headers["authorization"]), /^Basic /)
      assert.notProperty(basic?.form, "client_secret")
      const post = yield* tokenRequest(["client_secret_post"])
      assert.isUndefined(post?.headers["authorization"])
      assert.isString(post?.form["client_secret"])
      const none = yield* tokenRequest(["none"])
      assert.isUndefined(none?.headers["authorization"])
      assert.notProperty(none?.form, "client_secret")
      assert.isString(none?.form["client_id"])
    }))

  it.effect("concurrent 401s share one authorization (no second flow, no refresh)", () =>
    Effect.gen(function*() {
      const server = yield* authServer()
      const statuses = yield* Effect.all([call(server.mcpUrl), call(server.mcpUrl), call(server.mcpUrl)], {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(statuses, [200, 200, 200])
      assert.strictEqual(paths(server).filter((p) => p === "POST /mcp").length, 6) // all three met the 401
      assert.strictEqual(paths(server).filter((p) => p === "GET /authorize").length, 1)
      assert.strictEqual(paths(server).filter((p) => p === "POST /token").length, 1) // no refresh either
    }).pipe(Effect.provide(authLayer())))

  it.effect("pre-registered credentials come first: no registration request", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ preRegistered: { clientId: "pre-1", clientSecret: "pre-secret" } })
      const status = yield* call(server.mcpUrl).pipe(
        Effect.provide(authLayer({ preRegistered: [{ clientId: "pre-1", clientSecret: Redacted.make("pre-secret") }] }))
      )
      assert.strictEqual(status, 200)
      assert.notInclude(paths(server), "POST /register")
      assert.strictEqual(server.requests.find((r) => r.path === "/authorize")?.query["client_id"], "pre-1")
    }))

  it.effect("a Client ID Metadata Document is used when the server supports them: no registration request", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ cimd: true })
      const clientMetadataUrl = "https://conformance-test.local/client-metadata.json"
      assert.strictEqual(yield* call(server.mcpUrl).pipe(Effect.provide(authLayer({ clientMetadataUrl }))), 200)
      assert.notInclude(paths(server), "POST /register")
      assert.strictEqual(server.requests.find((r) => r.path === "/authorize")?.query["client_id"], clientMetadataUrl)
    }))

  it.effect("credentials are kept per issuer: a second server at the same issuer registers no new client", () =>
    Effect.gen(function*() {
      const server = yield* authServer()
      assert.strictEqual(yield* call(server.mcpUrl), 200)
      const store = yield* TokenStore.TokenStore
      yield* store.removeTokens(server.mcpUrl)
      assert.strictEqual(yield* call(server.mcpUrl), 200)
      assert.strictEqual(paths(server).filter((p) => p === "POST /register").length, 1)
      assert.isTrue(Option.isSome(yield* store.getClient(server.issuer)))
    }).pipe(Effect.provide(authLayer())))

  it.effect("scope: the challenge's, else scopes_supported, else omitted", () =>
    Effect.gen(function*() {
      const scopeSent = (options: { challengeScope?: string; scopesSupported?: Array<string> }) =>
        Effect.gen(function*() {
          const server = yield* authServer(options)
          assert.strictEqual(yield* call(server.mcpUrl).pipe(Effect.provide(authLayer())), 200)
          const query = server.requests.find((r) => r.path === "/authorize")?.query ?? {}
          return "scope" in query ? query["scope"] : "omitted"
        })
      assert.strictEqual(yield* scopeSent({ challengeScope: "a", scopesSupported: ["b"] }), "a")
      assert.strictEqual(yield* scopeSent({ scopesSupported: ["b", "c"] }), "b c")
      assert.strictEqual(yield* scopeSent({}), "omitted")
    }))

  it.effect("403 insufficient_scope → step-up with the union of scopes → the retry succeeds", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ challengeScope: "mcp:read", requiredScope: "mcp:write" })
      assert.strictEqual(yield* call(server.mcpUrl), 200)
      const scopes = server.requests.filter((r) => r.path === "/authorize").map((r) => r.query["scope"])
      assert.deepStrictEqual(scopes, ["mcp:read", "mcp:read mcp:write"])
    }).pipe(Effect.provide(authLayer())))

  it.effect("a 403 insufficient_scope loop is bounded: AuthorizationRequired after maxStepUps step-ups", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ scopeLoop: true })
      assert.strictEqual(yield* call(server.mcpUrl), 403) // 401 → authorization → 403 → step-up 1 → 403
      // 403 → step-up 2 → 403 → refused
      const error = yield* Effect.flip(call(server.mcpUrl))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "still answers insufficient_scope after 2 step-ups")
      assert.strictEqual(paths(server).filter((p) => p === "GET /authorize").length, 3)
    }).pipe(Effect.provide(authLayer({ maxStepUps: 2 }))))

  it.effect("refresh before expiry (TestClock), with rotation: the second refresh uses the rotated token", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ expiresIn: 3600 })
      assert.strictEqual(yield* call(server.mcpUrl), 200)
      const auth = yield* McpAuth.McpAuth
      const first = Redacted.value((yield* auth.headers(server.mcpUrl))["authorization"] ?? Redacted.make(""))
      yield* TestClock.adjust("3539 seconds")
      assert.strictEqual(
        Redacted.value((yield* auth.headers(server.mcpUrl))["authorization"] ?? Redacted.make("")),
        first
      )
      yield* TestClock.adjust("2 seconds") // now within a minute of expiry
      const second = Redacted.value((yield* auth.headers(server.mcpUrl))["authorization"] ?? Redacted.make(""))
      assert.notStrictEqual(second, first)
      yield* TestClock.adjust("3600 seconds")
      const third = Redacted.value((yield* auth.headers(server.mcpUrl))["authorization"] ?? Redacted.make(""))
      assert.notStrictEqual(third, second)
      const refreshes = server.requests.filter((r) => r.form["grant_type"] === "refresh_token").map((r) =>
        r.form["refresh_token"]
      )
      const issued = server.requests.filter((r) => r.path === "/token")
      assert.strictEqual(refreshes.length, 2)
      assert.notStrictEqual(refreshes[0], refreshes[1])
      assert.strictEqual(issued.length, 3)
      assert.strictEqual(yield* call(server.mcpUrl), 200)
    }).pipe(Effect.provide(authLayer())))

  it.effect("a 401 with a held token refreshes first; a revoked refresh token leads to a fresh authorization", () =>
    Effect.gen(function*() {
      const refreshing = yield* authServer()
      assert.strictEqual(yield* call(refreshing.mcpUrl), 200)
      const token = String(refreshing.requests.at(-1)?.headers["authorization"]).slice(7)
      refreshing.revoke(token)
      assert.strictEqual(yield* call(refreshing.mcpUrl), 200)
      assert.strictEqual(refreshing.requests.filter((r) => r.form["grant_type"] === "refresh_token").length, 1)
      assert.strictEqual(paths(refreshing).filter((p) => p === "GET /authorize").length, 1)

      const revoked = yield* authServer({ revokedRefresh: true })
      assert.strictEqual(yield* call(revoked.mcpUrl), 200)
      revoked.revoke(String(revoked.requests.at(-1)?.headers["authorization"]).slice(7))
      assert.strictEqual(yield* call(revoked.mcpUrl), 200)
      assert.strictEqual(paths(revoked).filter((p) => p === "GET /authorize").length, 2)
    }).pipe(Effect.provide(authLayer())))

  it.effect("a refresh that fails drops the tokens (no header), and the next 401 authorizes afresh", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ revokedRefresh: true, expiresIn: 30 })
      assert.strictEqual(yield* call(server.mcpUrl), 200)
      const auth = yield* McpAuth.McpAuth
      assert.property(yield* auth.headers(server.mcpUrl), "authorization")
      yield* TestClock.adjust("16 seconds") // past half of a 30-second lifetime
      assert.deepStrictEqual(yield* auth.headers(server.mcpUrl), {})
      assert.strictEqual(yield* call(server.mcpUrl), 200)
      assert.strictEqual(paths(server).filter((p) => p === "GET /authorize").length, 2)
    }).pipe(Effect.provide(authLayer())))
})

describe("McpAuth faults: a clear AuthorizationRequired, never a crash or a hang, and no secret in it", () => {
  const failure = (
    options: Parameters<typeof authServer>[0],
    check: (message: string, paths: ReadonlyArray<string>) => void
  ) =>
    Effect.gen(function*() {
      const server = yield* authServer(options)
      const error = yield* Effect.flip(call(server.mcpUrl))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      check(error.message, paths(server))
      const rendered = `${error.message} ${String(error)} ${JSON.stringify(error)}`
      for (const secret of secretsSeen(server)) assert.notInclude(rendered, secret)
    }).pipe(Effect.provide(authLayer()))

  it.effect("metadata with the wrong issuer is discarded", () =>
    failure({ wrongIssuer: true }, (message, seen) => {
      assert.include(message, "No authorization server metadata was found")
      assert.notInclude(seen, "GET /authorize")
    }))

  it.effect("no PKCE advertised: refused before the user is sent anywhere", () =>
    failure({ noPkce: true }, (message, seen) => {
      assert.include(message, "does not advertise code_challenge_methods_supported")
      assert.notInclude(seen, "GET /authorize")
    }))

  it.effect("an HTML token response", () =>
    failure({ htmlToken: true }, (message) => assert.include(message, "is not JSON (content type text/html)")))

  it.effect("a 1 MiB token response is not read past 256 KiB", () =>
    failure({ hugeToken: true }, (message) => assert.include(message, "the response is larger than 256 KiB")))

  it.effect("a wrong iss in the redirect", () =>
    failure({ wrongIss: "https://evil.example" }, (message, seen) => {
      assert.include(message, "is not the issuer")
      assert.notInclude(seen, "POST /token")
    }))

  it.effect("no registration endpoint and nothing pre-registered", () =>
    failure({ noRegistration: true }, (message) => assert.include(message, "has no registration endpoint")))

  it.effect("a slow token endpoint times out (TestClock), it does not hang", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ slowToken: true })
      const fiber = yield* Effect.forkChild(call(server.mcpUrl).pipe(Effect.flip))
      yield* Effect.promise(() => server.waitFor((r) => r.path === "/token"))
      yield* TestClock.adjust("31 seconds")
      const error = yield* Fiber.join(fiber)
      assert.include(error.message, "the endpoint gave no answer within 30s")
    }).pipe(Effect.provide(authLayer())))
})
