/**
 * The client_credentials strategy against the fake authorization server over real undici: the flow (no
 * registration, no authorization request), each client authentication (the private_key_jwt assertion checked by
 * node:crypto on the server side), unattended renewal under TestClock, and refusals as typed errors.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { ClientCredentials, CredentialSource, McpAuth } from "../src/index.ts"
import { ecKey, machineLayer, send, startAtWallTime, tokenRequests } from "./machineSupport.ts"
import { authServer, paths } from "./support.ts"

const secret = (value: string) => CredentialSource.value(Redacted.make(value))

describe("ClientCredentials", () => {
  it.effect("401 → PRM → AS metadata → client_credentials with Basic → the retry succeeds; no registration, no /authorize", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ machineClient: { clientId: "svc", clientSecret: "s3cret:+ /" } })
      const status = yield* send(server.mcpUrl).pipe(
        Effect.provide(machineLayer(ClientCredentials.layer({
          client: { method: "client_secret", clientId: "svc", clientSecret: secret("s3cret:+ /") },
          scope: "mcp:read"
        })))
      )
      assert.strictEqual(status, 200)
      assert.deepStrictEqual(paths(server), [
        "POST /mcp",
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-authorization-server",
        "POST /token",
        "POST /mcp"
      ])
      const [token] = tokenRequests(server)
      assert.deepStrictEqual(token?.form, {
        grant_type: "client_credentials",
        scope: "mcp:read",
        resource: server.mcpUrl
      })
      assert.match(String(token?.headers["authorization"]), /^Basic /)
    }))

  it.effect("client_secret picks post when the server lists only post; client_secret_post sends the secret in the form", () =>
    Effect.gen(function*() {
      const server = yield* authServer({
        machineClient: { clientId: "svc", clientSecret: "pw" },
        authMethods: ["client_secret_post"]
      })
      const status = yield* send(server.mcpUrl).pipe(
        Effect.provide(machineLayer(ClientCredentials.layer({
          client: { method: "client_secret", clientId: "svc", clientSecret: secret("pw") }
        })))
      )
      assert.strictEqual(status, 200)
      const [token] = tokenRequests(server)
      assert.isUndefined(token?.headers["authorization"])
      assert.strictEqual(token?.form["client_id"], "svc")
      assert.strictEqual(token?.form["client_secret"], "pw")
    }))

  it.effect("private_key_jwt: a fresh ES256 assertion each time (iss = sub = client id, aud = issuer, 60 s), no client_id in the form", () =>
    Effect.gen(function*() {
      yield* startAtWallTime
      const key = ecKey()
      const server = yield* authServer({
        machineClient: { clientId: "svc-jwt", publicJwk: key.publicJwk },
        signingAlgs: ["ES256"],
        expiresIn: 120
      })
      const layer = machineLayer(ClientCredentials.layer({
        client: {
          method: "private_key_jwt",
          clientId: "svc-jwt",
          key: { privateKey: secret(key.pem), keyId: "k1" }
        }
      }))
      yield* Effect.gen(function*() {
        assert.strictEqual(yield* send(server.mcpUrl), 200)
        yield* TestClock.adjust("61 seconds") // within a minute of expiry: a new token, a new assertion
        const auth = yield* McpAuth.McpAuth
        assert.property(yield* auth.headers(server.mcpUrl), "authorization")
      }).pipe(Effect.provide(layer))
      const tokens = tokenRequests(server)
      assert.strictEqual(tokens.length, 2)
      assert.notProperty(tokens[0]?.form, "client_id")
      assert.strictEqual(
        tokens[0]?.form["client_assertion_type"],
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
      )
      // The server verified both with node:crypto (else 401 invalid_client and no second token).
      assert.strictEqual(server.clientAssertions.length, 2)
      const [first, second] = server.clientAssertions
      assert.deepInclude(first, { iss: "svc-jwt", sub: "svc-jwt", aud: server.issuer })
      assert.strictEqual(Number(first?.["exp"]) - Number(first?.["iat"]), 60)
      assert.notStrictEqual(first?.["jti"], second?.["jti"])
    }))

  it.effect("a private JWK works as the key too", () =>
    Effect.gen(function*() {
      yield* startAtWallTime
      const key = ecKey()
      const server = yield* authServer({ machineClient: { clientId: "svc", publicJwk: key.publicJwk } })
      const status = yield* send(server.mcpUrl).pipe(
        Effect.provide(machineLayer(ClientCredentials.layer({
          client: {
            method: "private_key_jwt",
            clientId: "svc",
            key: { privateKey: secret(JSON.stringify(key.privateJwk)) }
          }
        })))
      )
      assert.strictEqual(status, 200)
    }))

  it.effect("renewal is unattended: near expiry headers() gets a new token without a 401 (no refresh token was issued)", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ machineClient: { clientId: "svc", clientSecret: "pw" }, expiresIn: 600 })
      yield* Effect.gen(function*() {
        assert.strictEqual(yield* send(server.mcpUrl), 200)
        const auth = yield* McpAuth.McpAuth
        const first = yield* auth.headers(server.mcpUrl)
        yield* TestClock.adjust("541 seconds")
        const second = yield* auth.headers(server.mcpUrl)
        assert.notStrictEqual(Redacted.value(second["authorization"]!), Redacted.value(first["authorization"]!))
        assert.strictEqual(yield* send(server.mcpUrl), 200)
      }).pipe(
        Effect.provide(machineLayer(ClientCredentials.layer({
          client: { method: "client_secret_basic", clientId: "svc", clientSecret: secret("pw") }
        })))
      )
      assert.strictEqual(tokenRequests(server).length, 2)
      assert.isTrue(tokenRequests(server).every((r) => r.form["grant_type"] === "client_credentials"))
      assert.strictEqual(paths(server).filter((p) => p === "POST /mcp").length, 3) // one 401, then two successes
    }))

  it.effect("a wrong secret: AuthorizationRequired naming invalid_client, and the secret nowhere in it", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ machineClient: { clientId: "svc", clientSecret: "right" } })
      const error = yield* Effect.flip(
        send(server.mcpUrl).pipe(
          Effect.provide(machineLayer(ClientCredentials.layer({
            client: { method: "client_secret_basic", clientId: "svc", clientSecret: secret("wrong-secret-value") }
          })))
        )
      )
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "client_credentials")
      assert.include(error.message, "invalid_client")
      assert.notInclude(`${error.message} ${JSON.stringify(error)}`, "wrong-secret-value")
    }))

  it.effect("an algorithm the server does not take is refused before any token request", () =>
    Effect.gen(function*() {
      const key = ecKey()
      const server = yield* authServer({
        machineClient: { clientId: "svc", publicJwk: key.publicJwk },
        signingAlgs: ["RS256"]
      })
      const error = yield* Effect.flip(
        send(server.mcpUrl).pipe(
          Effect.provide(machineLayer(ClientCredentials.layer({
            client: {
              method: "private_key_jwt",
              clientId: "svc",
              key: { privateKey: secret(key.pem), algorithm: "ES256" }
            }
          })))
        )
      )
      assert.include(error.message, "the authorization server takes RS256 for private_key_jwt, not ES256")
      assert.lengthOf(tokenRequests(server), 0)
    }))

  it.effect("a key that is not PKCS#8, or not for the algorithm: a SigningFailed that quotes no key material", () =>
    Effect.gen(function*() {
      const key = ecKey()
      const server = yield* authServer({ machineClient: { clientId: "svc", publicJwk: key.publicJwk } })
      const attempt = (privateKey: string, algorithm?: string) =>
        Effect.flip(
          send(server.mcpUrl).pipe(
            Effect.provide(machineLayer(ClientCredentials.layer({
              client: { method: "private_key_jwt", clientId: "svc", key: { privateKey: secret(privateKey), algorithm } }
            })))
          )
        )
      const sec1 = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBOGUS\n-----END EC PRIVATE KEY-----"
      const notPkcs8 = yield* attempt(sec1)
      assert.include(notPkcs8.message, "PEM but not PKCS#8")
      assert.notInclude(notPkcs8.message, "MHcCAQEEIBOGUS")
      const wrongAlg = yield* attempt(key.pem, "RS256")
      assert.include(wrongAlg.message, "cannot be used for RS256")
      assert.notInclude(wrongAlg.message, key.pem.split("\n")[1] ?? "")
      const garbage = yield* attempt("not a key")
      assert.include(garbage.message, "neither PKCS#8 PEM nor a private JWK")
      assert.lengthOf(tokenRequests(server), 0)
    }))
})
