/**
 * The token endpoint: exchanging an authorization code (with the PKCE verifier) and refreshing, with client
 * authentication `client_secret_basic`, `client_secret_post` or `none`, and the resource indicator (RFC 8707)
 * on every request. Secrets travel only in the form body or the Authorization header, never in a URL.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { TokenRequestFailed } from "./AuthError.ts"
import type { AuthorizationServerMetadata } from "./AuthorizationServerMetadata.ts"
import { exchangeJson, MAX_BODY_BYTES } from "./internal/httpJson.ts"
import * as Secrets from "./internal/secrets.ts"
import * as TokenResponse from "./TokenResponse.ts"
import type { ClientCredentials, Tokens } from "./TokenStore.ts"

const decodeOAuthError = Schema.decodeUnknownOption(Schema.Struct({ error: Schema.String }))

/**
 * A grant to send to the token endpoint.
 *
 * @since 0.1.0
 * @category models
 */
export type Grant =
  | {
    readonly _tag: "authorization_code"
    readonly code: Redacted.Redacted<string>
    readonly verifier: Redacted.Redacted<string>
    readonly redirectUri: string
  }
  | {
    readonly _tag: "refresh_token"
    readonly refreshToken: Redacted.Redacted<string>
    readonly scope?: string | undefined
  }

/**
 * How long a token request may take before it fails.
 *
 * @since 0.1.0
 * @category defaults
 */
export const DEFAULT_TIMEOUT: Duration.Input = "30 seconds"

const SECRET_PARAMS: ReadonlySet<string> = new Set(["code", "code_verifier", "refresh_token", "client_secret"])

const formEncode = (value: string): string => encodeURIComponent(value).replace(/%20/g, "+")

/**
 * Sends `grant` for `resource` and returns the tokens. A refresh that returns no new refresh token keeps the
 * old one (rotation is handled: a new one replaces it).
 *
 * @since 0.1.0
 * @category token
 */
export const request = (options: {
  readonly metadata: AuthorizationServerMetadata
  readonly client: ClientCredentials
  readonly resource: string
  readonly grant: Grant
  readonly requestedScope?: string | undefined
  readonly timeout?: Duration.Input | undefined
}): Effect.Effect<Tokens, TokenRequestFailed, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const { client, grant, metadata, resource } = options
    const endpoint = metadata.token_endpoint
    const fail = (reason: string, extra: { oauthError?: string; cause?: unknown } = {}) =>
      new TokenRequestFailed({ endpoint, grant: grant._tag, reason, ...extra })
    const params: Array<[string, string]> = grant._tag === "authorization_code"
      ? [
        ["grant_type", "authorization_code"],
        ["code", Redacted.value(grant.code)],
        ["redirect_uri", grant.redirectUri],
        ["code_verifier", Redacted.value(grant.verifier)]
      ]
      : [
        ["grant_type", "refresh_token"],
        ["refresh_token", Redacted.value(grant.refreshToken)],
        ...(grant.scope === undefined ? [] : [["scope", grant.scope] as [string, string]])
      ]
    params.push(["resource", resource])
    if (client.authMethod !== "client_secret_basic") params.push(["client_id", client.clientId])
    if (client.authMethod === "client_secret_post" && client.clientSecret !== undefined) {
      params.push(["client_secret", Redacted.value(client.clientSecret)])
    }
    let req = HttpClientRequest.post(endpoint).pipe(
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyUrlParams(params)
    )
    // Every secret this request carries, in the body or the Authorization header: the server's text is scrubbed
    // of each before it is shown (a hostile server may echo what it was sent).
    const sent = params.filter(([name]) => SECRET_PARAMS.has(name)).map(([, value]) => value)
    if (client.authMethod === "client_secret_basic") {
      const secret = client.clientSecret === undefined ? "" : Redacted.value(client.clientSecret)
      const basic = Base64.encode(`${formEncode(client.clientId)}:${formEncode(secret)}`)
      req = HttpClientRequest.setHeader(req, "authorization", `Basic ${basic}`)
      sent.push(secret, formEncode(secret), basic)
    }
    const reply = yield* exchangeJson(req, options.timeout ?? DEFAULT_TIMEOUT).pipe(
      Effect.mapError((e) => fail(`the endpoint ${e.reason}`, e.cause === undefined ? {} : { cause: e.cause }))
    )
    if (reply.status < 200 || reply.status >= 300) {
      // The error code is the server's text: a hostile server could echo what was sent; scrub and bound it.
      const oauthError = Option.map(Option.flatMap(reply.body, decodeOAuthError), (e) => ({
        error: Secrets.scrub(e.error, sent, 64)
      }))
      return yield* Option.isSome(oauthError)
        ? fail(`the server answered HTTP ${reply.status} with error ${oauthError.value.error}`, {
          oauthError: oauthError.value.error
        })
        : fail(`the server answered HTTP ${reply.status}`)
    }
    if (Option.isNone(reply.body)) {
      return yield* reply.oversize
        ? fail(`the response is larger than ${MAX_BODY_BYTES / 1024} KiB`)
        : fail(`the response is not JSON (content type ${Secrets.scrub(reply.contentType || "none", sent, 64)})`)
    }
    const checked = TokenResponse.validate(reply.body.value)
    if (Result.isFailure(checked)) return yield* fail(`the response ${checked.failure}`)
    const tokens = checked.success
    if (tokens.tokenType.toLowerCase() !== "bearer") {
      return yield* fail(`the token type is ${Secrets.scrub(tokens.tokenType, sent, 64)}, not Bearer`)
    }
    return TokenResponse.toTokens(tokens, {
      issuer: metadata.issuer,
      now: yield* Clock.currentTimeMillis,
      requestedScope: options.requestedScope,
      keptRefreshToken: grant._tag === "refresh_token" ? grant.refreshToken : undefined
    })
  })
