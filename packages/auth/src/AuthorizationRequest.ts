/**
 * The authorization request (code flow with PKCE S256, `state`, the resource indicator and the scope) and
 * the checks on what comes back: `state` must match, and `iss` (RFC 9207) must equal the issuer exactly when
 * present, and must be present when the server advertises it. On an `iss` mismatch the error fields are ignored.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import { AuthorizationFailed } from "./AuthError.ts"
import type { Callback } from "./AuthorizationPrompt.ts"
import type { AuthorizationServerMetadata } from "./AuthorizationServerMetadata.ts"
import type { Pkce } from "./Pkce.ts"

/**
 * The authorization URL to send the user to.
 *
 * @since 0.1.0
 * @category authorization
 */
export const url = (options: {
  readonly metadata: AuthorizationServerMetadata
  readonly clientId: string
  readonly redirectUri: string
  readonly pkce: Pkce
  readonly state: string
  readonly resource: string
  readonly scope: string | undefined
}): URL => {
  const url = new URL(options.metadata.authorization_endpoint)
  const params = url.searchParams
  params.set("response_type", "code")
  params.set("client_id", options.clientId)
  params.set("redirect_uri", options.redirectUri)
  params.set("code_challenge", options.pkce.challenge)
  params.set("code_challenge_method", options.pkce.method)
  params.set("state", options.state)
  params.set("resource", options.resource)
  if (options.scope !== undefined) params.set("scope", options.scope)
  return url
}

/** The server's text, cut to `max` characters. */
const bounded = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text)

/**
 * The code of a callback that passed every check.
 *
 * @since 0.1.0
 * @category authorization
 */
export const validate = (
  metadata: AuthorizationServerMetadata,
  expectedState: string,
  callback: Callback
): Effect.Effect<Redacted.Redacted<string>, AuthorizationFailed> => {
  const issuer = metadata.issuer
  const fail = (reason: string) => Effect.fail(new AuthorizationFailed({ issuer, reason }))
  if (callback.iss !== undefined && callback.iss !== issuer) {
    return fail(`the response's iss ${JSON.stringify(bounded(callback.iss, 200))} is not the issuer`)
  }
  if (callback.iss === undefined && metadata.authorization_response_iss_parameter_supported === true) {
    return fail("the response has no iss although the server advertises it")
  }
  if (callback.state !== expectedState) return fail("the response's state does not match the request")
  if (callback.error !== undefined) return fail(`the server answered error ${bounded(callback.error, 64)}`)
  if (callback.code === undefined) return fail("the response carries no authorization code")
  return Effect.succeed(callback.code)
}
