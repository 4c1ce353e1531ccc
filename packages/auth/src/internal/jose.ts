/**
 * JWT signing and key handling with jose (https://github.com/panva/jose, MIT, no dependencies, Web Crypto only):
 * PKCS#8 and JWK import, key-pair generation, JWK export and thumbprints (RFC 7638), compact JWS. Each part is
 * loaded on its first use, so a program that never signs (no DPoP, no `private_key_jwt`) never pays its import.
 *
 * Failures are `JoseFailed` with jose's error code (`ERR_JOSE_NOT_SUPPORTED`, …) or the error's name: never its
 * message, which may quote the input, and never the input itself.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { CryptoKey, JWK, JWTHeaderParameters, JWTPayload } from "jose"

/** A jose operation failed; `code` is jose's error code or the error's name. */
export class JoseFailed extends Data.TaggedError("JoseFailed")<{ readonly code: string }> {}

const codeOf = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null) {
    const code: unknown = Reflect.get(cause, "code")
    if (typeof code === "string") return code
    const name: unknown = Reflect.get(cause, "name")
    if (typeof name === "string") return name
  }
  return "unknown"
}

const attempt = <A>(run: () => Promise<A>): Effect.Effect<A, JoseFailed> =>
  Effect.tryPromise({ try: run, catch: (cause) => new JoseFailed({ code: codeOf(cause) }) })

/** A private key from PKCS#8 PEM text, for `algorithm`. */
export const importPkcs8 = (pem: string, algorithm: string): Effect.Effect<CryptoKey, JoseFailed> =>
  attempt(() => import("jose/key/import").then((jose) => jose.importPKCS8(pem, algorithm)))

/** A key from a JWK, for `algorithm`. */
export const importJwk = (jwk: JWK, algorithm: string): Effect.Effect<CryptoKey, JoseFailed> =>
  attempt(() =>
    import("jose/key/import").then((jose) => jose.importJWK(jwk, algorithm)).then((key) => {
      if (key instanceof Uint8Array) throw new TypeError("a symmetric key")
      return key
    })
  )

/** A fresh extractable key pair for `algorithm`. */
export const generateKeyPair = (
  algorithm: string
): Effect.Effect<{ readonly privateKey: CryptoKey; readonly publicKey: CryptoKey }, JoseFailed> =>
  attempt(() =>
    import("jose/key/generate/keypair").then((jose) => jose.generateKeyPair(algorithm, { extractable: true }))
  )

/** A key as a JWK (a private key's JWK holds its private part). */
export const exportJwk = (key: CryptoKey): Effect.Effect<JWK, JoseFailed> =>
  attempt(() => import("jose/key/export").then((jose) => jose.exportJWK(key)))

/** The RFC 7638 SHA-256 thumbprint of a public JWK, base64url. */
export const thumbprint = (jwk: JWK): Effect.Effect<string, JoseFailed> =>
  attempt(() => import("jose/jwk/thumbprint").then((jose) => jose.calculateJwkThumbprint(jwk, "sha256")))

/** A compact JWS of `payload` with `header` (which names `alg`), signed with `key`. */
export const signJwt = (
  header: JWTHeaderParameters,
  payload: JWTPayload,
  key: CryptoKey
): Effect.Effect<string, JoseFailed> =>
  attempt(() => import("jose/jwt/sign").then((jose) => new jose.SignJWT(payload).setProtectedHeader(header).sign(key)))
