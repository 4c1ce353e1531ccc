/**
 * The token endpoint: exchanging an authorization code (with the PKCE verifier), refreshing, and the machine grants
 * (`client_credentials`; the JWT bearer grant of RFC 7523 §2.1), with client authentication `client_secret_basic`,
 * `client_secret_post`, `private_key_jwt` or `none` (see `ClientAuthentication`), the resource indicator (RFC 8707)
 * on every request, and a DPoP proof when the caller binds the token to a key (RFC 9449 §5, with one retry on
 * `use_dpop_nonce`). Secrets travel only in the form body or the Authorization header, never in a URL.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { type CredentialUnavailable, type SigningFailed, TokenRequestFailed } from "./AuthError.ts"
import type { AuthorizationServerMetadata } from "./AuthorizationServerMetadata.ts"
import * as ClientAuthentication from "./ClientAuthentication.ts"
import * as Dpop from "./Dpop.ts"
import { exchangeJson, type JsonReply, MAX_BODY_BYTES } from "./internal/httpJson.ts"
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
  | { readonly _tag: "client_credentials"; readonly scope?: string | undefined }
  | {
    /** RFC 7523 §2.1: a JWT from a third party (a workload identity token, an ID-JAG) as the grant. */
    readonly _tag: "jwt-bearer"
    readonly assertion: Redacted.Redacted<string>
    readonly scope?: string | undefined
  }

/**
 * How long a token request may take before it fails.
 *
 * @since 0.1.0
 * @category defaults
 */
export const DEFAULT_TIMEOUT: Duration.Input = "30 seconds"

const SECRET_PARAMS: ReadonlySet<string> = new Set([
  "code",
  "code_verifier",
  "refresh_token",
  "client_secret",
  "assertion",
  "client_assertion"
])

/** The grant type sent for each grant. */
const GRANT_TYPES: Record<Grant["_tag"], string> = {
  authorization_code: "authorization_code",
  refresh_token: "refresh_token",
  client_credentials: "client_credentials",
  "jwt-bearer": "urn:ietf:params:oauth:grant-type:jwt-bearer"
}

const grantParams = (grant: Grant): Array<[string, string]> => {
  const scope = (value: string | undefined): Array<[string, string]> => value === undefined ? [] : [["scope", value]]
  switch (grant._tag) {
    case "authorization_code":
      return [
        ["grant_type", GRANT_TYPES[grant._tag]],
        ["code", Redacted.value(grant.code)],
        ["redirect_uri", grant.redirectUri],
        ["code_verifier", Redacted.value(grant.verifier)]
      ]
    case "refresh_token":
      return [
        ["grant_type", GRANT_TYPES[grant._tag]],
        ["refresh_token", Redacted.value(grant.refreshToken)],
        ...scope(grant.scope)
      ]
    case "client_credentials":
      return [["grant_type", GRANT_TYPES[grant._tag]], ...scope(grant.scope)]
    case "jwt-bearer":
      return [
        ["grant_type", GRANT_TYPES[grant._tag]],
        ["assertion", Redacted.value(grant.assertion)],
        ...scope(grant.scope)
      ]
  }
}

/**
 * What the caller binds the token to (RFC 9449): the proof key, and where the authorization server's nonce is kept.
 *
 * @since 0.2.0
 * @category models
 */
export interface DpopBinding {
  readonly key: Dpop.DpopKey
  readonly nonces: Dpop.Nonces
}

const oauthErrorOf = (reply: JsonReply): string | undefined =>
  Option.getOrUndefined(Option.map(Option.flatMap(reply.body, decodeOAuthError), (e) => e.error))

/**
 * What `request` takes.
 *
 * @since 0.2.0
 * @category token
 */
export interface RequestOptions {
  readonly metadata: AuthorizationServerMetadata
  /** A registered client (it authenticates as it was registered), or how a machine client authenticates. */
  readonly client: ClientCredentials | ClientAuthentication.ClientAuthentication
  readonly resource: string
  readonly grant: Grant
  readonly requestedScope?: string | undefined
  readonly timeout?: Duration.Input | undefined
  /** Binds the token to a DPoP key (the proof goes in the `DPoP` header). */
  readonly dpop?: DpopBinding | undefined
}

/**
 * Sends `grant` for `resource` and returns the tokens. A refresh that returns no new refresh token keeps the
 * old one (rotation is handled: a new one replaces it).
 *
 * @since 0.1.0
 * @category token
 */
export const request: (
  options: RequestOptions
) => Effect.Effect<Tokens, TokenRequestFailed | CredentialUnavailable | SigningFailed, HttpClient.HttpClient> = Effect
  .fnUntraced(function*(options: RequestOptions) {
    const { client, grant, metadata, resource } = options
    const endpoint = metadata.token_endpoint
    const fail = (reason: string, extra: { oauthError?: string; cause?: unknown } = {}) =>
      new TokenRequestFailed({ endpoint, grant: grant._tag, reason, ...extra })
    const authentication = "method" in client ? client : ClientAuthentication.fromClient(client)
    /** One request: a fresh client assertion and DPoP proof each time (both carry a one-time `jti`). */
    const send = Effect.fnUntraced(function*(nonce: string | undefined) {
      const applied = yield* ClientAuthentication.apply(authentication, metadata)
      const params: Array<readonly [string, string]> = [
        ...grantParams(grant),
        ["resource", resource],
        ...applied.params
      ]
      const sent = [
        ...params.filter(([name]) => SECRET_PARAMS.has(name)).map(([, value]) => value),
        ...applied.secrets
      ]
      let req = HttpClientRequest.post(endpoint).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.bodyUrlParams(params),
        HttpClientRequest.setHeaders(applied.headers)
      )
      if (options.dpop !== undefined) {
        const proof = yield* Dpop.proof(options.dpop.key, { method: "POST", url: endpoint, nonce })
        req = HttpClientRequest.setHeader(req, "dpop", Redacted.value(proof))
      }
      const reply = yield* exchangeJson(req, options.timeout ?? DEFAULT_TIMEOUT).pipe(
        Effect.mapError((e) => fail(`the endpoint ${e.reason}`, e.cause === undefined ? {} : { cause: e.cause }))
      )
      return { reply, sent }
    })
    const dpop = options.dpop
    const first = dpop === undefined ? undefined : yield* dpop.nonces.get(endpoint)
    let { reply, sent } = yield* send(first)
    // RFC 9449 §8: the server wants a nonce. Retry once, with a nonce it gave that differs from the one sent.
    if (dpop !== undefined && reply.status === 400 && oauthErrorOf(reply) === "use_dpop_nonce") {
      const nonce = reply.dpopNonce
      if ((yield* dpop.nonces.remember(endpoint, nonce)) && nonce !== first) ({ reply, sent } = yield* send(nonce))
    } else if (dpop !== undefined) {
      yield* dpop.nonces.remember(endpoint, reply.dpopNonce)
    }
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
    const tokenType = tokens.tokenType.toLowerCase()
    // A DPoP-bound token only when a proof was sent; an authorization server without DPoP may answer Bearer.
    if (tokenType !== "bearer" && !(tokenType === "dpop" && dpop !== undefined)) {
      return yield* fail(
        `the token type is ${Secrets.scrub(tokens.tokenType, sent, 64)}, not ${
          dpop === undefined ? "Bearer" : "DPoP or Bearer"
        }`
      )
    }
    const issued = TokenResponse.toTokens(tokens, {
      issuer: metadata.issuer,
      now: yield* Clock.currentTimeMillis,
      requestedScope: options.requestedScope,
      keptRefreshToken: grant._tag === "refresh_token" ? grant.refreshToken : undefined
    })
    return tokenType === "dpop" && dpop !== undefined
      ? { ...issued, tokenType: "DPoP" as const, dpopKey: Dpop.serialize(dpop.key) }
      : issued
  })
