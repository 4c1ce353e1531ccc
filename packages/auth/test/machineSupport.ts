/**
 * Test support for the machine strategies and DPoP: keys made with node:crypto (the fake server checks with
 * node:crypto too; the library signs with jose), and a request loop that does what the HTTP transport does with
 * `McpAuth`: headers for the method, on 401/403 `onChallenge` with the `DPoP-Nonce`, at most twice, then
 * `onSuccess` with the nonce of the answer.
 */
import { NodeHttpClient } from "@effect/platform-node"
import type { AuthServer } from "@mcp-fleet/fake-server/auth-server"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import { createPrivateKey, generateKeyPairSync, type JsonWebKey, sign } from "node:crypto"
import { McpAuth, TokenStore } from "../src/index.ts"

/** A fresh P-256 key: the private part as PKCS#8 PEM and as JWK, the public part as JWK. */
export const ecKey = () => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  return {
    pem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    privateJwk: privateKey.export({ format: "jwk" }),
    publicJwk: publicKey.export({ format: "jwk" }) satisfies JsonWebKey
  }
}

/** An ES256 JWT signed with node:crypto, as a workload's platform would issue it. */
export const signJwt = (pem: string, claims: Readonly<Record<string, unknown>>): string => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
  const input = `${encode({ alg: "ES256", typ: "JWT" })}.${encode(claims)}`
  const signature = sign("sha256", Buffer.from(input), { key: createPrivateKey(pem), dsaEncoding: "ieee-p1363" })
  return `${input}.${signature.toString("base64url")}`
}

/**
 * Sets the TestClock to the wall clock's time: the fake server checks a JWT's `exp` by its own clock, so a test that
 * sends one starts the TestClock where the server's clock is (and moves it with `TestClock.adjust` from there).
 */
export const startAtWallTime = Effect.suspend(() => TestClock.setTime(Date.now()))

/** A machine strategy's layer with an in-memory store (or the one given) over real undici. */
export const machineLayer = (
  layer: Layer.Layer<McpAuth.McpAuth, never, HttpClient.HttpClient | TokenStore.TokenStore>,
  store: Layer.Layer<TokenStore.TokenStore> = TokenStore.layerMemory
) => layer.pipe(Layer.provideMerge(store), Layer.provideMerge(NodeHttpClient.layerUndici))

/** One request as the transport makes it (see the header); the final status. */
export const send = (url: string, method: "POST" | "GET" = "POST") =>
  Effect.gen(function*() {
    const auth = yield* McpAuth.McpAuth
    const client = yield* HttpClient.HttpClient
    const once = Effect.gen(function*() {
      let request = HttpClientRequest.make(method)(url)
      for (const [name, value] of Object.entries(yield* auth.headers(url, { method }))) {
        request = HttpClientRequest.setHeader(request, name, Redacted.value(value))
      }
      const response = yield* client.execute(request)
      return {
        status: response.status,
        wwwAuthenticate: response.headers["www-authenticate"],
        dpopNonce: response.headers["dpop-nonce"]
      }
    }).pipe(Effect.scoped, Effect.orDie)
    let reply = yield* once
    for (let retry = 0; retry < 2 && (reply.status === 401 || reply.status === 403); retry++) {
      yield* auth.onChallenge(url, reply)
      reply = yield* once
    }
    if (reply.status < 400) yield* auth.onSuccess(url, { dpopNonce: reply.dpopNonce })
    return reply.status
  })

/** The token requests a server saw. */
export const tokenRequests = (server: AuthServer) => server.requests.filter((r) => r.path === "/token")
