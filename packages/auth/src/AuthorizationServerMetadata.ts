/**
 * Authorization-server metadata (RFC 8414, OpenID Connect Discovery), found at the well-known URLs in the
 * order the MCP authorization spec gives, with path insertion for an issuer that has a path. The issuer and every
 * endpoint are URLs the MCP server handed out (directly or through its metadata), so each is judged by the
 * {@link UrlPolicy} against the MCP server's URL: an issuer it refuses is not asked at all, and a document whose
 * `issuer` is not exactly the issuer asked for, or with an endpoint the policy refuses, is discarded.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DiscoveryFailed } from "./AuthError.ts"
import { fetchDocument } from "./internal/httpJson.ts"
import * as UrlPolicy from "./UrlPolicy.ts"

/**
 * The fields of authorization-server metadata that an MCP client uses.
 *
 * @since 0.1.0
 * @category models
 */
export const AuthorizationServerMetadata = Schema.Struct({
  issuer: Schema.String,
  authorization_endpoint: Schema.String,
  token_endpoint: Schema.String,
  registration_endpoint: Schema.optionalKey(Schema.String),
  scopes_supported: Schema.optionalKey(Schema.Array(Schema.String)),
  code_challenge_methods_supported: Schema.optionalKey(Schema.Array(Schema.String)),
  token_endpoint_auth_methods_supported: Schema.optionalKey(Schema.Array(Schema.String)),
  grant_types_supported: Schema.optionalKey(Schema.Array(Schema.String)),
  client_id_metadata_document_supported: Schema.optionalKey(Schema.Boolean),
  authorization_response_iss_parameter_supported: Schema.optionalKey(Schema.Boolean),
  token_endpoint_auth_signing_alg_values_supported: Schema.optionalKey(Schema.Array(Schema.String)),
  dpop_signing_alg_values_supported: Schema.optionalKey(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category models
 */
export type AuthorizationServerMetadata = typeof AuthorizationServerMetadata.Type

const decode = Schema.decodeUnknownOption(AuthorizationServerMetadata)

/**
 * The metadata URLs for `issuer`, in the spec's order. With a path:
 * `oauth-authorization-server` and `openid-configuration` with path insertion, then `<issuer>/.well-known/openid-configuration`.
 * Without: `oauth-authorization-server`, then `openid-configuration`.
 *
 * @since 0.1.0
 * @category urls
 */
export const candidateUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/$/, "")
  if (path === "") {
    return [
      `${url.origin}/.well-known/oauth-authorization-server`,
      `${url.origin}/.well-known/openid-configuration`
    ]
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`
  ]
}

/**
 * The default endpoints of a 2025-03-26 server that publishes no metadata: `/authorize`, `/token` and
 * `/register` at the server's origin, PKCE S256 assumed (that revision's rule).
 *
 * @since 0.1.0
 * @category discovery
 */
export const legacyDefaults = (origin: string): AuthorizationServerMetadata => ({
  issuer: origin,
  authorization_endpoint: `${origin}/authorize`,
  token_endpoint: `${origin}/token`,
  registration_endpoint: `${origin}/register`,
  code_challenge_methods_supported: ["S256"]
})

const endpointsOf = (
  metadata: AuthorizationServerMetadata
): ReadonlyArray<readonly [UrlPolicy.Purpose, string]> => [
  ["authorization endpoint", metadata.authorization_endpoint],
  ["token endpoint", metadata.token_endpoint],
  ...(metadata.registration_endpoint === undefined
    ? []
    : [["registration endpoint", metadata.registration_endpoint] as const])
]

/** The first endpoint of `metadata` that the policy refuses for the MCP server at `server`, with why. */
const refusedEndpoint = (metadata: AuthorizationServerMetadata, server: string) => {
  for (const [purpose, url] of endpointsOf(metadata)) {
    const verdict = UrlPolicy.judge(purpose, url, server)
    if (verdict._tag === "Refused") return { purpose, url: UrlPolicy.show(url), reason: verdict.reason }
  }
  return undefined
}

/**
 * Finds the metadata of `issuer` for the MCP server at `server`, trying {@link candidateUrls} in order and
 * discarding any document whose `issuer` differs (exact string comparison) or that names an endpoint the
 * {@link UrlPolicy} refuses.
 *
 * @since 0.1.0
 * @category discovery
 */
export const discover: (
  issuer: string,
  server: string
) => Effect.Effect<AuthorizationServerMetadata, DiscoveryFailed, HttpClient.HttpClient> = Effect.fnUntraced(function*(
  issuer: string,
  server: string
) {
  const tried: Array<string> = []
  const verdict = UrlPolicy.judge("authorization server", issuer, server)
  if (verdict._tag === "Refused" || URL.parse(issuer) === null) {
    const reason = verdict._tag === "Refused" ? verdict.reason : "it is not an absolute URL"
    yield* Effect.logWarning("Refused an authorization server named for the MCP server").pipe(
      Effect.annotateLogs({ server, issuer: UrlPolicy.show(issuer), reason })
    )
    return yield* new DiscoveryFailed({
      what: "authorization server metadata",
      tried: [`${UrlPolicy.show(issuer)} (refused: ${reason})`]
    })
  }
  for (const candidate of candidateUrls(issuer)) {
    tried.push(candidate)
    const metadata = yield* fetchDocument(candidate, decode)
    if (Option.isNone(metadata)) continue
    if (metadata.value.issuer !== issuer) {
      yield* Effect.logWarning("Discarded authorization server metadata whose issuer does not match").pipe(
        Effect.annotateLogs({ url: candidate, expected: issuer, advertised: UrlPolicy.show(metadata.value.issuer) })
      )
      continue
    }
    const refused = refusedEndpoint(metadata.value, server)
    if (refused !== undefined) {
      tried[tried.length - 1] = `${candidate} (its ${refused.purpose} ${refused.url} was refused: ${refused.reason})`
      yield* Effect.logWarning("Discarded authorization server metadata with an endpoint the URL policy refuses")
        .pipe(
          Effect.annotateLogs({ url: candidate, endpoint: refused.url, reason: refused.reason })
        )
      continue
    }
    return metadata.value
  }
  return yield* new DiscoveryFailed({ what: "authorization server metadata", tried })
})
