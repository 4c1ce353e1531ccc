import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { inspect } from "node:util"
import * as McpConfig from "../src/McpConfig.ts"

const PATH = "/home/ada/.config/mcp-fleet/mcp.json"

const withAuth = (auth: unknown) => JSON.stringify({ mcpServers: { reports: { url: "https://r.example/mcp", auth } } })

const parse = (auth: unknown, env: Record<string, string | undefined> = {}) =>
  McpConfig.parse(withAuth(auth), { path: PATH, env })

const authOf = (auth: unknown, env: Record<string, string | undefined> = {}) =>
  Effect.map(parse(auth, env), (config) => config.remote[0]?.auth)

const refusal = (auth: unknown, env: Record<string, string | undefined> = {}) =>
  Effect.map(Effect.flip(parse(auth, env)), (error) => error.message)

describe("a remote entry's auth", () => {
  it.effect("client_credentials with a secret from the environment: Redacted, method left to the server", () =>
    Effect.gen(function*() {
      const auth = yield* authOf(
        { grant: "client_credentials", clientId: "svc", clientSecret: "${SECRET}", scope: "r:read", dpop: "always" },
        { SECRET: "s3cr3t-value" }
      )
      assert.deepInclude(auth, { grant: "client_credentials", clientId: "svc", scope: "r:read", dpop: "always" })
      if (auth?.grant !== "client_credentials" || auth.credential.method === "private_key_jwt") {
        return assert.fail("expected a secret")
      }
      assert.strictEqual(auth.credential.method, "client_secret")
      assert.strictEqual(Redacted.value(auth.credential.secret), "s3cr3t-value")
      // Printing the config shows no secret.
      const config = yield* parse({ grant: "client_credentials", clientId: "svc", clientSecret: "s3cr3t-value" })
      assert.notInclude(
        `${inspect(config, { depth: 10 })} ${JSON.stringify(config)} ${String(config.remote[0]?.auth)}`,
        "s3cr3t-value"
      )
    }))

  it.effect("private_key_jwt: the key path relative to the config's folder, not read at load", () =>
    Effect.gen(function*() {
      const auth = yield* authOf({
        grant: "client_credentials",
        clientId: "svc",
        privateKeyFile: "keys/svc.pem",
        signingAlgorithm: "PS256",
        keyId: "k1"
      })
      assert.deepStrictEqual(auth, {
        grant: "client_credentials",
        clientId: "svc",
        credential: {
          method: "private_key_jwt",
          privateKeyFile: "/home/ada/.config/mcp-fleet/keys/svc.pem",
          signingAlgorithm: "PS256",
          keyId: "k1"
        }
      })
    }))

  it.effect("jwt_bearer, enterprise, and a pre-registered client for the browser flow", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* authOf({ grant: "jwt_bearer", assertionFile: "/var/run/secrets/token" }), {
        grant: "jwt_bearer",
        assertionFile: "/var/run/secrets/token",
        credential: { method: "none" }
      })
      const enterprise = yield* authOf({
        grant: "enterprise",
        clientId: "xaa",
        clientSecret: "xaa-secret",
        idp: { tokenEndpoint: "https://idp.example/token", clientId: "sso", idTokenFile: "id-token" }
      })
      assert.deepInclude(enterprise, { grant: "enterprise", clientId: "xaa" })
      if (enterprise?.grant !== "enterprise") return assert.fail("expected enterprise")
      assert.deepStrictEqual(enterprise.idp, {
        tokenEndpoint: "https://idp.example/token",
        clientId: "sso",
        credential: { method: "none" },
        idTokenFile: "/home/ada/.config/mcp-fleet/id-token"
      })
      const interactive = yield* authOf({ clientId: "pre-1", clientSecret: "pre-secret", issuer: "https://as.example" })
      assert.deepInclude(interactive, { grant: "authorization_code", clientId: "pre-1", issuer: "https://as.example" })
      assert.deepStrictEqual(yield* authOf({ dpop: "never" }), { grant: "authorization_code", dpop: "never" })
    }))

  it.effect("each setting that does not fit is refused with its path, and no secret in the message", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [
          { grant: "client_credentials", clientId: "svc" },
          "mcpServers.reports.auth: grant \"client_credentials\" needs clientSecret or privateKeyFile."
        ],
        [
          { grant: "client_credentials", clientSecret: "hunter2-secret" },
          "mcpServers.reports.auth: grant \"client_credentials\" needs clientId."
        ],
        [
          { grant: "client_credentials", clientId: "svc", clientSecret: "hunter2-secret", privateKeyFile: "k.pem" },
          "mcpServers.reports.auth: give clientSecret or privateKeyFile, not both."
        ],
        [
          {
            grant: "client_credentials",
            clientId: "svc",
            clientSecret: "hunter2-secret",
            tokenEndpointAuthMethod: "private_key_jwt"
          },
          "mcpServers.reports.auth.tokenEndpointAuthMethod: \"private_key_jwt\" needs privateKeyFile."
        ],
        [
          { grant: "client_credentials", clientId: "svc", clientSecret: "hunter2-secret", signingAlgorithm: "ES256" },
          "mcpServers.reports.auth.signingAlgorithm: is read only with privateKeyFile."
        ],
        [
          { grant: "jwt_bearer" },
          "mcpServers.reports.auth: grant \"jwt_bearer\" needs assertionFile (the workload's token)."
        ],
        [
          { grant: "enterprise", clientId: "x" },
          "mcpServers.reports.auth: grant \"enterprise\" needs idp (tokenEndpoint and idTokenFile)."
        ],
        [
          { clientId: "c", scope: "a" },
          "mcpServers.reports.auth.scope: is not read with grant \"authorization_code\"."
        ],
        [
          { clientSecret: "hunter2-secret" },
          "mcpServers.reports.auth.clientSecret: is not read with grant \"authorization_code\"."
        ],
        [
          { grant: "client_credentials", clientId: "svc", clientSecert: "hunter2-secret" },
          "mcpServers.reports.auth: unknown key \"clientSecert\" (did you mean \"clientSecret\"?)."
        ],
        [
          {
            grant: "enterprise",
            clientId: "x",
            idp: { tokenEndpoint: "https://i", idTokenFile: "f", idToken: "hunter2-secret" }
          },
          "mcpServers.reports.auth.idp: unknown key \"idToken\"."
        ],
        [
          { grant: "jwt_bearer", assertionFile: "t", clientSecret: "hunter2-secret" },
          "mcpServers.reports.auth: a clientSecret or privateKeyFile needs the clientId it belongs to."
        ],
        [{ grant: "password" }, "mcpServers.reports.auth.grant: expected"]
      ]
      for (const [auth, expected] of cases) {
        const message = yield* refusal(auth)
        assert.include(message, expected)
        assert.notInclude(message, "hunter2-secret")
      }
      assert.include(
        yield* refusal({ grant: "client_credentials", clientId: "svc", clientSecret: "${MISSING}" }),
        "uses ${MISSING} in auth.clientSecret, but MISSING is not set"
      )
    }))
})
