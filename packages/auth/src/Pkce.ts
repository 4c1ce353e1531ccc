/**
 * PKCE (RFC 7636) with S256, and the random `state` of an authorization request. Randomness comes from the
 * platform's Web Crypto (`globalThis.crypto`), available in Node, Deno, Bun and browsers.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Redacted from "effect/Redacted"
import { PkceUnsupported } from "./AuthError.ts"
import type { AuthorizationServerMetadata } from "./AuthorizationServerMetadata.ts"

/**
 * A verifier (secret until the token request) and its S256 challenge.
 *
 * @since 0.1.0
 * @category models
 */
export interface Pkce {
  readonly verifier: Redacted.Redacted<string>
  readonly challenge: string
  readonly method: "S256"
}

/**
 * `bytes` cryptographically random bytes, base64url without padding.
 *
 * @since 0.1.0
 * @category random
 */
export const randomToken = (bytes = 32): Effect.Effect<string> =>
  Effect.sync(() => Base64Url.encode(globalThis.crypto.getRandomValues(new Uint8Array(bytes))))

/**
 * The S256 challenge of a verifier: base64url(SHA-256(verifier)).
 *
 * @since 0.1.0
 * @category pkce
 */
export const challengeOf = (verifier: string): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).pipe(
    Effect.map((digest) => Base64Url.encode(new Uint8Array(digest)))
  )

/**
 * A fresh verifier (43 characters, the RFC's minimum entropy of 256 bits) and its challenge.
 *
 * @since 0.1.0
 * @category pkce
 */
export const make: Effect.Effect<Pkce> = Effect.gen(function*() {
  const verifier = yield* randomToken(32)
  const challenge = yield* challengeOf(verifier)
  return { verifier: Redacted.make(verifier), challenge, method: "S256" as const }
})

/**
 * Succeeds when the metadata advertises S256; an absent `code_challenge_methods_supported` is a refusal too.
 *
 * @since 0.1.0
 * @category pkce
 */
export const requireS256 = (metadata: AuthorizationServerMetadata): Effect.Effect<void, PkceUnsupported> => {
  const methods = metadata.code_challenge_methods_supported
  return methods !== undefined && methods.includes("S256")
    ? Effect.void
    : Effect.fail(
      new PkceUnsupported({ issuer: metadata.issuer, ...(methods === undefined ? {} : { advertised: methods }) })
    )
}
