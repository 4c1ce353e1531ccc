/**
 * The client assertion of `private_key_jwt` (RFC 7523 §2.2 and §3, as the MCP client-credentials extension and
 * RFC 7523bis use it): a short-lived JWT signed with the client's private key, whose `iss` and `sub` are the client
 * id and whose `aud` is the authorization server's issuer. A fresh one (new `jti`) is made for every token request.
 *
 * The private key is PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) or a private JWK (JSON with `d`). It is read through
 * its {@link CredentialSource} at every use, so a rotated key file is picked up; it is never logged, and errors name
 * its algorithm or format only.
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { CryptoKey, JWK } from "jose"
import { type CredentialUnavailable, SigningFailed } from "./AuthError.ts"
import type { CredentialSource } from "./CredentialSource.ts"
import * as Jose from "./internal/jose.ts"
import * as Pkce from "./Pkce.ts"

/**
 * The `client_assertion_type` of a JWT client assertion.
 *
 * @since 0.2.0
 * @category constants
 */
export const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

/**
 * The signing algorithm when neither the host nor the key names one.
 *
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_ALGORITHM = "ES256"

/**
 * How long an assertion is valid: long enough for one token request, short enough that a captured one is of no use.
 *
 * @since 0.2.0
 * @category constants
 */
export const LIFETIME_SECONDS = 60

/**
 * A client's signing key.
 *
 * @since 0.2.0
 * @category models
 */
export interface SigningKey {
  readonly privateKey: CredentialSource
  /** The JWS algorithm (`ES256`, `RS256`, `PS256`, `EdDSA`, …); default: the JWK's `alg`, else `ES256`. */
  readonly algorithm?: string | undefined
  /** The `kid` header, when the authorization server needs it to pick the key. */
  readonly keyId?: string | undefined
}

/** A JSON value that is a private JWK: an object with `kty` and the private part `d`. */
const isPrivateJwk = (value: unknown): value is JWK & { readonly d: string } =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  typeof Reflect.get(value, "kty") === "string" && typeof Reflect.get(value, "d") === "string"

/**
 * Reads the key and imports it for signing; the algorithm it was imported for comes back with it.
 *
 * @since 0.2.0
 * @category keys
 */
export const importKey: (
  key: SigningKey
) => Effect.Effect<{ readonly key: CryptoKey; readonly algorithm: string }, CredentialUnavailable | SigningFailed> =
  Effect.fnUntraced(function*(
    key: SigningKey
  ) {
    const text = Redacted.value(yield* key.privateKey)
    const fail = (reason: string) => new SigningFailed({ what: "client assertion", reason })
    if (text.startsWith("{")) {
      const jwk = yield* Effect.try({
        try: (): unknown => JSON.parse(text),
        catch: () => fail("the private key is not valid JSON")
      })
      if (!isPrivateJwk(jwk)) {
        return yield* fail("the private key is a JSON document but not a private JWK (no \"d\")")
      }
      const algorithm = key.algorithm ?? jwk.alg ?? DEFAULT_ALGORITHM
      const imported = yield* Jose.importJwk(jwk, algorithm).pipe(
        Effect.mapError((e) =>
          fail(`the JWK cannot be used for ${algorithm} (${e.code}); set the signing algorithm to match the key`)
        )
      )
      return { key: imported, algorithm }
    }
    const algorithm = key.algorithm ?? DEFAULT_ALGORITHM
    if (!text.includes("-----BEGIN PRIVATE KEY-----")) {
      return yield* fail(
        text.includes("-----BEGIN")
          ? "the private key is PEM but not PKCS#8 (convert it: openssl pkcs8 -topk8 -nocrypt)"
          : "the private key is neither PKCS#8 PEM nor a private JWK"
      )
    }
    const imported = yield* Jose.importPkcs8(text, algorithm).pipe(
      Effect.mapError((e) =>
        fail(`the PKCS#8 key cannot be used for ${algorithm} (${e.code}); set the signing algorithm to match the key`)
      )
    )
    return { key: imported, algorithm }
  })

/**
 * A fresh assertion for `clientId` with audience `audience` (the authorization server's issuer).
 *
 * @since 0.2.0
 * @category signing
 */
export const sign: (
  key: SigningKey,
  options: { readonly clientId: string; readonly audience: string }
) => Effect.Effect<Redacted.Redacted<string>, CredentialUnavailable | SigningFailed> = Effect.fnUntraced(function*(
  key: SigningKey,
  options: { readonly clientId: string; readonly audience: string }
) {
  const imported = yield* importKey(key)
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const jti = yield* Pkce.randomToken(16)
  const jwt = yield* Jose.signJwt(
    { alg: imported.algorithm, typ: "JWT", ...(key.keyId === undefined ? {} : { kid: key.keyId }) },
    {
      iss: options.clientId,
      sub: options.clientId,
      aud: options.audience,
      jti,
      iat: now,
      exp: now + LIFETIME_SECONDS
    },
    imported.key
  ).pipe(
    Effect.mapError((e) =>
      new SigningFailed({ what: "client assertion", reason: `signing with ${imported.algorithm} failed (${e.code})` })
    )
  )
  return Redacted.make(jwt, { label: "client_assertion" })
})
