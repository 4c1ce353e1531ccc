/**
 * Enterprise-managed authorization (the MCP extension built on the Identity Assertion Authorization Grant): a user
 * signed in to the host through the enterprise IdP; the host trades that ID token at the IdP for an ID-JAG (RFC 8693
 * token exchange, `requested_token_type` `urn:ietf:params:oauth:token-type:id-jag`, `audience` the MCP server's
 * authorization server, `resource` the MCP server), then presents the ID-JAG to the authorization server as a JWT
 * bearer grant (RFC 7523 §2.1) with its pre-registered client credentials. No browser, no consent screen: the IdP's
 * policy decides.
 *
 * The ID token comes from a {@link CredentialSource} (the host's SSO session: a value, or a file it keeps fresh).
 * When the authorization server issues a refresh token it is used for renewal; otherwise the exchange is made again.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Layer from "effect/Layer"
import type * as ClientAuthentication from "./ClientAuthentication.ts"
import type { CredentialSource } from "./CredentialSource.ts"
import * as Machine from "./internal/machine.ts"
import type * as MachineGrant from "./MachineGrant.ts"
import type * as McpAuth from "./McpAuth.ts"
import * as TokenEndpoint from "./TokenEndpoint.ts"
import * as TokenExchange from "./TokenExchange.ts"
import type { TokenStore } from "./TokenStore.ts"

/**
 * The enterprise IdP: where the exchange is made, how the host authenticates there, and the user's ID token.
 *
 * @since 0.2.0
 * @category models
 */
export interface IdentityProvider {
  readonly tokenEndpoint: string
  /** The IdP's issuer (the audience of a `private_key_jwt` assertion there); default: the token endpoint. */
  readonly issuer?: string | undefined
  /** How the host authenticates at the IdP (its SSO client): often `none` with the SSO client id, or a secret. */
  readonly client: ClientAuthentication.ClientAuthentication
  /** The subject token: the user's ID token (or SAML assertion, with `subjectTokenType`). */
  readonly idToken: CredentialSource
  /** Default `urn:ietf:params:oauth:token-type:id_token`. */
  readonly subjectTokenType?: string | undefined
}

/**
 * The options: the IdP, the host's pre-registered client at the MCP server's authorization server, and the shared
 * options.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends Machine.CommonOptions {
  readonly idp: IdentityProvider
  readonly client: ClientAuthentication.ClientAuthentication
}

/**
 * The grant: the exchange at the IdP, then the JWT bearer grant at the authorization server.
 *
 * @since 0.2.0
 * @category grants
 */
export const grant = (options: Options): MachineGrant.MachineGrant => ({
  name: "enterprise-managed",
  authentication: options.client,
  obtain: (request) =>
    Effect.gen(function*() {
      const scope = Machine.scopeOf(options, request.scope)
      const idJag = yield* TokenExchange.exchange({
        endpoint: options.idp.tokenEndpoint,
        issuer: options.idp.issuer,
        client: options.idp.client,
        subjectToken: yield* options.idp.idToken,
        subjectTokenType: options.idp.subjectTokenType ?? TokenExchange.TokenTypes.idToken,
        requestedTokenType: TokenExchange.TokenTypes.idJag,
        audience: request.metadata.issuer,
        resource: request.resource,
        scope,
        timeout: request.timeout
      })
      return yield* TokenEndpoint.request({
        metadata: request.metadata,
        client: options.client,
        resource: request.resource,
        grant: { _tag: "jwt-bearer", assertion: idJag.token, scope },
        requestedScope: idJag.scope ?? scope,
        timeout: request.timeout,
        dpop: request.dpop
      })
    })
})

/**
 * `McpAuth` with enterprise-managed authorization.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<McpAuth.Service, never, HttpClient.HttpClient | TokenStore> =>
  Machine.make(grant(options), options)

/**
 * {@link make} as the `McpAuth` layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<McpAuth.McpAuth, never, HttpClient.HttpClient | TokenStore> =>
  Machine.layer(grant(options), options)
