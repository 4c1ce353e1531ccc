/**
 * OAuth 2.0 Token Exchange (RFC 8693 §2): trading a security token (the subject token: an ID token, a SAML
 * assertion) at a token endpoint for another token of a requested type. Enterprise-managed authorization uses it
 * to get an Identity Assertion JWT Authorization Grant (ID-JAG) from the enterprise IdP.
 *
 * The subject token and the client's secrets travel only in the form body or the Authorization header; an error the
 * server sends back is scrubbed of them and bounded.
 *
 * @since 0.2.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { type CredentialUnavailable, type SigningFailed, TokenRequestFailed } from "./AuthError.ts"
import * as ClientAuthentication from "./ClientAuthentication.ts"
import { exchangeJson, MAX_BODY_BYTES } from "./internal/httpJson.ts"
import * as Secrets from "./internal/secrets.ts"
import { isSecure } from "./internal/secureUrl.ts"
import * as TokenEndpoint from "./TokenEndpoint.ts"
import * as TokenResponse from "./TokenResponse.ts"

/**
 * The grant type of RFC 8693.
 *
 * @since 0.2.0
 * @category constants
 */
export const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange"

/**
 * Token type identifiers (RFC 8693 §3, and the ID-JAG of the identity assertion authorization grant).
 *
 * @since 0.2.0
 * @category constants
 */
export const TokenTypes = {
  idToken: "urn:ietf:params:oauth:token-type:id_token",
  saml2: "urn:ietf:params:oauth:token-type:saml2",
  accessToken: "urn:ietf:params:oauth:token-type:access_token",
  idJag: "urn:ietf:params:oauth:token-type:id-jag"
} as const

const decodeIssuedType = Schema.decodeUnknownOption(Schema.Struct({ issued_token_type: Schema.String }))
const decodeOAuthError = Schema.decodeUnknownOption(Schema.Struct({ error: Schema.String }))

/**
 * The options of one exchange.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly endpoint: string
  /** How the client authenticates at this endpoint; `audience` of a `private_key_jwt` assertion is `issuer`. */
  readonly client: ClientAuthentication.ClientAuthentication
  /** The endpoint's issuer, when known (default: the endpoint URL). */
  readonly issuer?: string | undefined
  readonly subjectToken: Redacted.Redacted<string>
  readonly subjectTokenType: string
  readonly requestedTokenType: string
  readonly audience?: string | undefined
  readonly resource?: string | undefined
  readonly scope?: string | undefined
  readonly timeout?: Duration.Input | undefined
}

/**
 * What came back: the issued token (`Redacted`) and its type.
 *
 * @since 0.2.0
 * @category models
 */
export interface Exchanged {
  readonly token: Redacted.Redacted<string>
  readonly issuedTokenType: string
  readonly expiresIn: number | undefined
  readonly scope: string | undefined
}

/**
 * Exchanges the subject token. The answer is checked as a token response (`TokenResponse.validate`: the issued
 * token is bounded, header-safe ASCII, and so on) and must be of the requested type; anything else (another type, an
 * OAuth error, HTML, no answer within the deadline) is `TokenRequestFailed` with grant `token-exchange`.
 *
 * @since 0.2.0
 * @category exchange
 */
export const exchange: (
  options: Options
) => Effect.Effect<Exchanged, TokenRequestFailed | CredentialUnavailable | SigningFailed, HttpClient.HttpClient> =
  Effect.fnUntraced(function*(
    options: Options
  ) {
    const endpoint = options.endpoint
    const fail = (reason: string, extra: { oauthError?: string; cause?: unknown } = {}) =>
      new TokenRequestFailed({ endpoint, grant: "token-exchange", reason, ...extra })
    if (!isSecure(endpoint)) return yield* fail("the endpoint is neither HTTPS nor on localhost")
    const applied = yield* ClientAuthentication.apply(options.client, { issuer: options.issuer ?? endpoint })
    const subjectToken = Redacted.value(options.subjectToken)
    const optional = (name: string, value: string | undefined): Array<readonly [string, string]> =>
      value === undefined ? [] : [[name, value]]
    const params: Array<readonly [string, string]> = [
      ["grant_type", GRANT_TYPE],
      ["requested_token_type", options.requestedTokenType],
      ...optional("audience", options.audience),
      ...optional("resource", options.resource),
      ...optional("scope", options.scope),
      ["subject_token", subjectToken],
      ["subject_token_type", options.subjectTokenType],
      ...applied.params
    ]
    const request = HttpClientRequest.post(endpoint).pipe(
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyUrlParams(params),
      HttpClientRequest.setHeaders(applied.headers)
    )
    const reply = yield* exchangeJson(request, options.timeout ?? TokenEndpoint.DEFAULT_TIMEOUT).pipe(
      Effect.mapError((e) => fail(`the endpoint ${e.reason}`, e.cause === undefined ? {} : { cause: e.cause }))
    )
    if (reply.status < 200 || reply.status >= 300) {
      const oauthError = Option.map(
        Option.flatMap(reply.body, decodeOAuthError),
        (e) => Secrets.scrub(e.error, [subjectToken, ...applied.secrets], 64)
      )
      return yield* Option.isSome(oauthError)
        ? fail(`the server answered HTTP ${reply.status} with error ${oauthError.value}`, {
          oauthError: oauthError.value
        })
        : fail(`the server answered HTTP ${reply.status}`)
    }
    if (Option.isNone(reply.body)) {
      return yield* reply.oversize
        ? fail(`the response is larger than ${MAX_BODY_BYTES / 1024} KiB`)
        : fail(
          `the response is not JSON (content type ${Secrets.scrub(reply.contentType || "none", [subjectToken], 64)})`
        )
    }
    const checked = TokenResponse.validate(reply.body.value)
    if (Result.isFailure(checked)) return yield* fail(`the response ${checked.failure}`)
    const issued = Option.getOrUndefined(decodeIssuedType(reply.body.value))?.issued_token_type
    if (issued !== options.requestedTokenType) {
      return yield* fail(
        issued === undefined
          ? "the response has no issued_token_type"
          : `the issued token type is ${Secrets.scrub(issued, [subjectToken], 64)}, not ${options.requestedTokenType}`
      )
    }
    return {
      token: Redacted.make(Redacted.value(checked.success.accessToken), { label: "issued_token" }),
      issuedTokenType: issued,
      expiresIn: checked.success.expiresIn,
      scope: checked.success.scope
    }
  })
