/**
 * The machine strategies' secrets (client secrets, Basic credentials, private keys, client assertions, workload
 * assertions, ID tokens, ID-JAGs, DPoP proofs and proof keys, access tokens) appear in no log, no error and no
 * rendering of headers or stored tokens, even when the authorization server or the IdP echoes them back.
 */
import { assert, it } from "@effect/vitest"
import { Cause, Effect, Layer, Logger, Option, Redacted, References } from "effect"
import { ClientCredentials, CredentialSource, EnterpriseManaged, JwtBearer, McpAuth, TokenStore } from "../src/index.ts"
import { ecKey, machineLayer, send, signJwt, startAtWallTime } from "./machineSupport.ts"
import { authServer } from "./support.ts"

const logged: Array<string> = []
const capture = Logger.make((options) => {
  const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
  logged.push(`${JSON.stringify(options.message)} ${JSON.stringify(annotations)} ${Cause.pretty(options.cause)}`)
})
const captureLayer = Layer.mergeAll(Logger.layer([capture]), Layer.succeed(References.MinimumLogLevel, "Debug"))

const value = (text: string) => CredentialSource.value(Redacted.make(text))

/** Pieces of a secret that must not show: itself when short, else every 16-character slice of it (a truncated echo
 * of a long token would still leak its start). A JWT's header segment is public, so only its payload and signature
 * count. */
const slices = (secret: string): ReadonlyArray<string> => {
  const body = /^eyJ[^.]*\.(.+)$/.exec(secret)?.[1] ?? secret
  if (body.length <= 16) return [body]
  const out: Array<string> = []
  for (let i = 0; i + 16 <= body.length; i += 8) out.push(body.slice(i, i + 16))
  return out
}

it.effect("no machine secret shows in a log, an error, or a rendering of headers and stored tokens", () =>
  Effect.gen(function*() {
    yield* startAtWallTime
    const now = Math.floor(Date.now() / 1000)
    const key = ecKey()
    const echo = yield* authServer({
      echoMachineSecrets: true,
      idToken: "eyJhbGciOiJFUzI1NiJ9.id-token-payload-of-the-user.signature-part",
      machineClient: { clientId: "svc", clientSecret: "client-secret-value-1", publicJwk: key.publicJwk }
    })
    const workload = signJwt(key.pem, { sub: "wl", aud: echo.issuer, exp: now + 600 })
    const failures = yield* Effect.all([
      send(echo.mcpUrl).pipe(Effect.provide(machineLayer(ClientCredentials.layer({
        client: { method: "private_key_jwt", clientId: "svc", key: { privateKey: value(key.pem) } }
      })))),
      send(echo.mcpUrl).pipe(Effect.provide(machineLayer(ClientCredentials.layer({
        client: { method: "client_secret_basic", clientId: "svc", clientSecret: value("client-secret-value-1") }
      })))),
      send(echo.mcpUrl).pipe(Effect.provide(machineLayer(ClientCredentials.layer({
        client: { method: "client_secret_post", clientId: "svc", clientSecret: value("client-secret-value-1") }
      })))),
      send(echo.mcpUrl).pipe(Effect.provide(machineLayer(JwtBearer.layer({ assertion: value(workload) })))),
      send(echo.mcpUrl).pipe(Effect.provide(machineLayer(EnterpriseManaged.layer({
        idp: {
          tokenEndpoint: `${echo.origin}/idp/token`,
          client: { method: "client_secret_post", clientId: "sso", clientSecret: value("idp-secret-value-2") },
          idToken: value("eyJhbGciOiJFUzI1NiJ9.id-token-payload-of-the-user.signature-part")
        },
        client: { method: "client_secret_basic", clientId: "svc", clientSecret: value("client-secret-value-1") }
      })))),
      send(echo.mcpUrl).pipe(Effect.provide(machineLayer(ClientCredentials.layer({
        client: {
          method: "private_key_jwt",
          clientId: "svc",
          key: { privateKey: value(key.pem.replace("BEGIN PRIVATE KEY", "BEGIN RSA PRIVATE KEY")) }
        }
      }))))
    ].map(Effect.flip))
    // Every echo was sent and refused (the last one, a non-PKCS#8 key, before sending).
    assert.isTrue(failures.every((e) => e._tag === "AuthorizationRequired"))

    // A DPoP-bound token obtained and used, with the proof key in the store.
    const dpop = yield* authServer({
      dpop: true,
      machineClient: { clientId: "svc", clientSecret: "client-secret-value-1" }
    })
    const { dpopKeyD, rendered } = yield* Effect.gen(function*() {
      assert.strictEqual(yield* send(dpop.mcpUrl), 200)
      const auth = yield* McpAuth.McpAuth
      const headers = yield* auth.headers(dpop.mcpUrl, { method: "POST" })
      const store = yield* TokenStore.TokenStore
      const tokens = Option.getOrThrow(yield* store.getTokens(dpop.mcpUrl))
      const jwk: unknown = JSON.parse(Redacted.value(tokens.dpopKey ?? Redacted.make("{}")))
      return {
        dpopKeyD: String(typeof jwk === "object" && jwk !== null ? Reflect.get(jwk, "d") : ""),
        rendered: [
          String(headers["authorization"]),
          String(headers["dpop"]),
          JSON.stringify(headers),
          JSON.stringify(tokens),
          String(tokens.dpopKey),
          String(tokens.accessToken)
        ]
      }
    }).pipe(Effect.provide(machineLayer(ClientCredentials.layer({
      client: { method: "client_secret_basic", clientId: "svc", clientSecret: value("client-secret-value-1") }
    }))))

    const sent = [...echo.requests, ...dpop.requests].flatMap((r) => [
      r.form["client_secret"],
      r.form["client_assertion"],
      r.form["assertion"],
      r.form["subject_token"],
      typeof r.headers["authorization"] === "string" ? r.headers["authorization"].replace(/^\S+ /, "") : undefined,
      typeof r.headers["dpop"] === "string" ? r.headers["dpop"] : undefined
    ]).filter((s): s is string => s !== undefined && s.length > 0)
    const secrets = [
      "client-secret-value-1",
      "idp-secret-value-2",
      "id-token-payload-of-the-user",
      workload,
      ...key.pem.split("\n").filter((line) => !line.startsWith("-----") && line.length > 0),
      String(key.privateJwk.d),
      dpopKeyD,
      ...sent
    ].filter((s) => s !== "")
    assert.isAtLeast(sent.length, 10)
    assert.isAtLeast(dpopKeyD.length, 40)
    assert.isTrue(sent.some((s) => s.split(".").length === 3 && s.startsWith("eyJ")), "a JWT was sent")
    const text = [
      ...logged,
      ...failures.flatMap((e) => [e.message, String(e), JSON.stringify(e), Cause.pretty(Cause.fail(e))]),
      ...rendered
    ].join("\n")
    assert.include(text, "***") // the echoes were seen, and scrubbed
    for (const secret of secrets) {
      for (const slice of slices(secret)) assert.notInclude(text, slice, "a slice of a secret")
    }
  }).pipe(Effect.provide(captureLayer)))
