/**
 * Enterprise-managed authorization against the fake authorization server and its IdP (/idp/token) over real undici:
 * the RFC 8693 exchange of the ID token for an ID-JAG, then the JWT bearer grant with the client's own credentials.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { CredentialSource, EnterpriseManaged } from "../src/index.ts"
import { machineLayer, send, tokenRequests } from "./machineSupport.ts"
import { authServer, paths } from "./support.ts"

const ID_TOKEN = "eyJ.id-token-of-the-user.sig"

const strategy = (origin: string, idToken: string) =>
  machineLayer(EnterpriseManaged.layer({
    idp: {
      tokenEndpoint: `${origin}/idp/token`,
      client: { method: "none", clientId: "sso-client" },
      idToken: CredentialSource.value(Redacted.make(idToken))
    },
    client: {
      method: "client_secret_basic",
      clientId: "xaa-client",
      clientSecret: CredentialSource.value(Redacted.make("xaa-secret"))
    },
    scope: "chat.read"
  }))

describe("EnterpriseManaged", () => {
  it.effect("ID token → ID-JAG at the IdP (token exchange) → access token (JWT bearer, client_secret_basic)", () =>
    Effect.gen(function*() {
      const server = yield* authServer({
        idToken: ID_TOKEN,
        machineClient: { clientId: "xaa-client", clientSecret: "xaa-secret" }
      })
      assert.strictEqual(yield* send(server.mcpUrl).pipe(Effect.provide(strategy(server.origin, ID_TOKEN))), 200)
      assert.deepStrictEqual(paths(server).slice(3, 5), ["POST /idp/token", "POST /token"])
      const exchange = server.requests.find((r) => r.path === "/idp/token")
      assert.deepStrictEqual(exchange?.form, {
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
        audience: server.issuer,
        resource: server.mcpUrl,
        scope: "chat.read",
        subject_token: ID_TOKEN,
        subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
        client_id: "sso-client"
      })
      const [grant] = tokenRequests(server)
      assert.strictEqual(grant?.form["grant_type"], "urn:ietf:params:oauth:grant-type:jwt-bearer")
      assert.match(String(grant?.form["assertion"]), /^idjag-/)
      assert.strictEqual(grant?.form["resource"], server.mcpUrl)
      assert.match(String(grant?.headers["authorization"]), /^Basic /)
    }))

  it.effect("the IdP's answer is checked: the requested token type, and the token as any token response's", () =>
    Effect.gen(function*() {
      const attempt = (idpAnswer: (answer: Record<string, unknown>) => Record<string, unknown>) =>
        Effect.gen(function*() {
          const server = yield* authServer({
            idToken: ID_TOKEN,
            idpAnswer,
            machineClient: { clientId: "xaa-client", clientSecret: "xaa-secret" }
          })
          const error = yield* Effect.flip(send(server.mcpUrl).pipe(Effect.provide(strategy(server.origin, ID_TOKEN))))
          assert.lengthOf(tokenRequests(server), 0)
          return error.message
        })
      assert.include(
        yield* attempt((a) => ({ ...a, issued_token_type: "urn:ietf:params:oauth:token-type:access_token" })),
        "the issued token type is urn:ietf:params:oauth:token-type:access_token, not urn:ietf:params:oauth:token-type:id-jag"
      )
      assert.include(
        yield* attempt((a) => ({ ...a, access_token: "two words" })),
        "the response its access_token has characters outside visible ASCII"
      )
      assert.include(yield* attempt(({ issued_token_type: _, ...a }) => a), "the response has no issued_token_type")
    }))

  it.effect("the IdP's refusal is a typed error naming the exchange, without the ID token; no grant is sent", () =>
    Effect.gen(function*() {
      const server = yield* authServer({
        idToken: ID_TOKEN,
        machineClient: { clientId: "xaa-client", clientSecret: "xaa-secret" }
      })
      const error = yield* Effect.flip(
        send(server.mcpUrl).pipe(Effect.provide(strategy(server.origin, "eyJ.stale-token.sig")))
      )
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "The token request (token-exchange)")
      assert.include(error.message, "invalid_request")
      assert.notInclude(JSON.stringify(error), "stale-token")
      assert.lengthOf(tokenRequests(server), 0)
    }))
})
