/**
 * DPoP (RFC 9449): access tokens bound to a key the client holds, proven on every request with a fresh signed
 * proof (`DPoP` header: `typ` `dpop+jwt`, the public key in `jwk`, claims `jti`, `htm`, `htu`, `iat`, the server's
 * `nonce` when it asked for one, and `ath`, the access token's hash, at a resource server).
 *
 * The proof key is ES256 (P-256), made by Web Crypto through jose. It lives with the tokens it is bound to
 * (`Tokens.dpopKey`, its private JWK, `Redacted`): in memory with the memory store, on disk with a persistent one,
 * so that a DPoP-bound token read back from the store can still be used and refreshed.
 *
 * Servers may demand a nonce (`400 use_dpop_nonce` from the authorization server, `401` with
 * `DPoP error="use_dpop_nonce"` from the resource server, each with a `DPoP-Nonce` header). {@link Nonces} keeps the
 * latest nonce per origin; a request is retried with a new nonce at most once, and never with the nonce it already
 * carried.
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import type { CryptoKey, JWK } from "jose"
import { SigningFailed } from "./AuthError.ts"
import type { AuthorizationServerMetadata } from "./AuthorizationServerMetadata.ts"
import * as Jose from "./internal/jose.ts"
import * as Pkce from "./Pkce.ts"
import * as WwwAuthenticate from "./WwwAuthenticate.ts"

/**
 * The proof algorithm (the one every DPoP server must accept in practice, and the one jose makes everywhere).
 *
 * @since 0.2.0
 * @category constants
 */
export const ALGORITHM = "ES256"

/**
 * A proof key: the private key (never exported but as {@link serialize}), its public JWK and thumbprint.
 *
 * @since 0.2.0
 * @category models
 */
export interface DpopKey {
  readonly privateKey: CryptoKey
  readonly publicJwk: JWK
  /** The RFC 7638 thumbprint of the public key: the `jkt` the token is bound to. */
  readonly thumbprint: string
  /** The private JWK as JSON, as {@link serialize} gives it. */
  readonly serialized: Redacted.Redacted<string>
}

const failed = (what: SigningFailed["what"], reason: string) => (e: Jose.JoseFailed) =>
  new SigningFailed({ what, reason: `${reason} (${e.code})` })

const fromPrivateJwk: (jwk: JWK, privateKey: CryptoKey) => Effect.Effect<DpopKey, SigningFailed> = Effect.fnUntraced(
  function*(jwk: JWK, privateKey: CryptoKey) {
    if (jwk.x === undefined || jwk.y === undefined) {
      return yield* new SigningFailed({ what: "DPoP key", reason: "the key has no public coordinates" })
    }
    const publicJwk: JWK = { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }
    const thumbprint = yield* Jose.thumbprint(publicJwk).pipe(Effect.mapError(failed("DPoP key", "no thumbprint")))
    return {
      privateKey,
      publicJwk,
      thumbprint,
      serialized: Redacted.make(JSON.stringify({ ...jwk, alg: ALGORITHM }), { label: "dpop_key" })
    }
  }
)

/**
 * A fresh proof key.
 *
 * @since 0.2.0
 * @category keys
 */
export const generate: Effect.Effect<DpopKey, SigningFailed> = Effect.gen(function*() {
  const pair = yield* Jose.generateKeyPair(ALGORITHM).pipe(
    Effect.mapError(failed("DPoP key", "Web Crypto could not make a P-256 key"))
  )
  const jwk = yield* Jose.exportJwk(pair.privateKey).pipe(Effect.mapError(failed("DPoP key", "the key cannot be kept")))
  return yield* fromPrivateJwk(jwk, pair.privateKey)
})

/**
 * The key as it is kept with the tokens: its private JWK, `Redacted`.
 *
 * @since 0.2.0
 * @category keys
 */
export const serialize = (key: DpopKey): Redacted.Redacted<string> => key.serialized

/**
 * A key back from {@link serialize}.
 *
 * @since 0.2.0
 * @category keys
 */
export const deserialize: (stored: Redacted.Redacted<string>) => Effect.Effect<DpopKey, SigningFailed> = Effect
  .fnUntraced(function*(stored: Redacted.Redacted<string>) {
    const invalid = new SigningFailed({ what: "DPoP key", reason: "the stored proof key is not a P-256 private JWK" })
    const jwk = yield* Effect.try({ try: (): unknown => JSON.parse(Redacted.value(stored)), catch: () => invalid })
    if (
      typeof jwk !== "object" || jwk === null || Reflect.get(jwk, "kty") !== "EC" ||
      Reflect.get(jwk, "crv") !== "P-256" || typeof Reflect.get(jwk, "d") !== "string"
    ) {
      return yield* invalid
    }
    const key: JWK = {
      kty: "EC",
      crv: "P-256",
      x: String(Reflect.get(jwk, "x")),
      y: String(Reflect.get(jwk, "y")),
      d: String(Reflect.get(jwk, "d"))
    }
    const privateKey = yield* Jose.importJwk(key, ALGORITHM).pipe(
      Effect.mapError(failed("DPoP key", "the stored proof key cannot be imported"))
    )
    return yield* fromPrivateJwk(key, privateKey)
  })

/**
 * The `htu` of a request: its URL without query and fragment (RFC 9449 §4.2).
 *
 * @since 0.2.0
 * @category proofs
 */
export const targetUri = (url: string): string => {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

/**
 * What a proof is for.
 *
 * @since 0.2.0
 * @category models
 */
export interface ProofRequest {
  readonly method: string
  readonly url: string
  readonly nonce?: string | undefined
  /** The access token sent with the proof (a resource request): its hash becomes `ath`. */
  readonly accessToken?: Redacted.Redacted<string> | undefined
}

const sha256 = (text: string): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(
    Effect.map((digest) => Base64Url.encode(new Uint8Array(digest)))
  )

/**
 * A fresh proof (new `jti`, `iat` now by the effect `Clock`).
 *
 * @since 0.2.0
 * @category proofs
 */
export const proof: (key: DpopKey, request: ProofRequest) => Effect.Effect<Redacted.Redacted<string>, SigningFailed> =
  Effect.fnUntraced(function*(key: DpopKey, request: ProofRequest) {
    const iat = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const jti = yield* Pkce.randomToken(16)
    const ath = request.accessToken === undefined ? undefined : yield* sha256(Redacted.value(request.accessToken))
    const jwt = yield* Jose.signJwt(
      { typ: "dpop+jwt", alg: ALGORITHM, jwk: key.publicJwk },
      {
        jti,
        htm: request.method.toUpperCase(),
        htu: targetUri(request.url),
        iat,
        ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
        ...(ath === undefined ? {} : { ath })
      },
      key.privateKey
    ).pipe(Effect.mapError(failed("DPoP proof", "signing failed")))
    return Redacted.make(jwt, { label: "dpop" })
  })

/**
 * Whether the authorization server takes DPoP proofs this client can make (`dpop_signing_alg_values_supported`
 * lists ES256, RFC 9449 §5.1).
 *
 * @since 0.2.0
 * @category metadata
 */
export const supportedBy = (metadata: AuthorizationServerMetadata): boolean =>
  metadata.dpop_signing_alg_values_supported?.includes(ALGORITHM) === true

/**
 * What a `DPoP` challenge tells a client (RFC 9449 §7.1).
 *
 * @since 0.2.0
 * @category models
 */
export interface DpopChallenge {
  readonly error: string | undefined
  readonly resourceMetadata: string | undefined
  readonly scope: string | undefined
  readonly algs: ReadonlyArray<string> | undefined
}

/**
 * The first `DPoP` challenge of a `WWW-Authenticate` value, if any.
 *
 * @since 0.2.0
 * @category challenges
 */
export const challenge = (header: string | undefined): Option.Option<DpopChallenge> => {
  if (header === undefined) return Option.none()
  const found = WwwAuthenticate.parse(header).find((c) => c.scheme.toLowerCase() === "dpop")
  if (found === undefined) return Option.none()
  const algs = found.params["algs"]
  return Option.some({
    error: found.params["error"],
    resourceMetadata: found.params["resource_metadata"],
    scope: found.params["scope"],
    algs: algs === undefined ? undefined : algs.split(" ").filter((a) => a !== "")
  })
}

/** RFC 9449 §8.1: `nonce = 1*NQCHAR`; anything else (or longer than this) is not kept. */
const NONCE = /^[\x21\x23-\x5b\x5d-\x7e]{1,1024}$/

/**
 * The latest nonce each server (by origin) asked for.
 *
 * @since 0.2.0
 * @category models
 */
export interface Nonces {
  readonly get: (url: string) => Effect.Effect<string | undefined>
  /** Keeps `nonce` for the origin of `url`; false when it is not a valid nonce (it is then ignored). */
  readonly remember: (url: string, nonce: string | undefined) => Effect.Effect<boolean>
}

/** Origins kept at most: a client talks to few servers; a flood of origins only resets the cache. */
const MAX_ORIGINS = 256

/**
 * An empty nonce cache.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeNonces: Effect.Effect<Nonces> = Effect.map(Ref.make(new Map<string, string>()), (ref) => ({
  get: (url) => Effect.map(Ref.get(ref), (m) => m.get(new URL(url).origin)),
  remember: (url, nonce) =>
    nonce === undefined || !NONCE.test(nonce)
      ? Effect.succeed(false)
      : Ref.update(ref, (m) => {
        const next = m.size >= MAX_ORIGINS ? new Map<string, string>() : new Map(m)
        return next.set(new URL(url).origin, nonce)
      }).pipe(Effect.as(true))
}))

/**
 * A key read from its serialized form once and then kept (a token's key is needed on every request).
 *
 * @since 0.2.0
 * @category models
 */
export interface Keyring {
  readonly load: (serialized: Redacted.Redacted<string>) => Effect.Effect<DpopKey, SigningFailed>
}

/**
 * An empty keyring (holds at most a few keys: one per token set in use).
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeKeyring: Effect.Effect<Keyring> = Effect.map(Ref.make(new Map<string, DpopKey>()), (ref) => ({
  load: (serialized) =>
    Effect.gen(function*() {
      const text = Redacted.value(serialized)
      const known = (yield* Ref.get(ref)).get(text)
      if (known !== undefined) return known
      const key = yield* deserialize(serialized)
      yield* Ref.update(ref, (m) => (m.size >= MAX_ORIGINS ? new Map([[text, key]]) : new Map(m).set(text, key)))
      return key
    })
}))
