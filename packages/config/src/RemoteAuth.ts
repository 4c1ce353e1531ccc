/**
 * How a remote server authorizes, as its entry's `auth` object says: a pre-registered client for the interactive
 * flow, or a machine grant for a host with no user (a service account, CI, an agent).
 *
 * ```jsonc
 * "reports": {
 *   "url": "https://reports.example.com/mcp",
 *   "auth": {
 *     "grant": "client_credentials",          // default "authorization_code" (the browser flow)
 *     "clientId": "svc-reports",
 *     "clientSecret": "${REPORTS_SECRET}",    // or "privateKeyFile": "keys/svc.pem" (private_key_jwt)
 *     "scope": "reports:read",
 *     "dpop": "always"                        // "auto" (default), "always", "never"
 *   }
 * }
 * ```
 *
 * - `grant`: `authorization_code` (the interactive flow; `clientId`/`clientSecret` pre-register the client, so no
 *   Dynamic Client Registration), `client_credentials`, `jwt_bearer` (workload identity: the token in
 *   `assertionFile`, read afresh at every token request), or `enterprise` (enterprise-managed authorization: the
 *   user's ID token in `idp.idTokenFile` is exchanged at `idp.tokenEndpoint` for an ID-JAG, then for an access token).
 * - The client authenticates with `clientSecret` (`client_secret_basic`, or `client_secret_post` when the server
 *   only takes that) or `privateKeyFile` (PKCS#8 PEM or a private JWK: `private_key_jwt`, with `signingAlgorithm`,
 *   default `ES256`, and `keyId`); `tokenEndpointAuthMethod` pins the method.
 * - Secrets are `${VAR}`-expanded and `Redacted`; file paths are relative to the config file's folder, and the files
 *   are read when a token is requested, never at load.
 *
 * @since 0.2.0
 */
import type * as Redacted from "effect/Redacted"

/**
 * How the client authenticates at the token endpoint.
 *
 * @since 0.2.0
 * @category models
 */
export type ClientCredential =
  | { readonly method: "none" }
  | {
    /** `client_secret`: basic, or post when the server lists only post. */
    readonly method: "client_secret" | "client_secret_basic" | "client_secret_post"
    readonly secret: Redacted.Redacted<string>
  }
  | {
    readonly method: "private_key_jwt"
    readonly privateKeyFile: string
    readonly signingAlgorithm?: string
    readonly keyId?: string
  }

/**
 * The settings every grant shares.
 *
 * @since 0.2.0
 * @category models
 */
export interface Common {
  /** DPoP (RFC 9449); absent: the library's default (`auto`). */
  readonly dpop?: "auto" | "always" | "never"
}

/**
 * The interactive flow with a pre-registered client (or only DPoP settings, with `clientId` absent).
 *
 * @since 0.2.0
 * @category models
 */
export interface AuthorizationCode extends Common {
  readonly grant: "authorization_code"
  readonly clientId?: string
  readonly clientSecret?: Redacted.Redacted<string>
  /** The authorization server the client is registered at; absent: any. */
  readonly issuer?: string
}

/**
 * The `client_credentials` grant.
 *
 * @since 0.2.0
 * @category models
 */
export interface ClientCredentials extends Common {
  readonly grant: "client_credentials"
  readonly clientId: string
  readonly credential: Exclude<ClientCredential, { readonly method: "none" }>
  readonly scope?: string
}

/**
 * The JWT bearer grant (workload identity).
 *
 * @since 0.2.0
 * @category models
 */
export interface JwtBearer extends Common {
  readonly grant: "jwt_bearer"
  /** The workload's token, read at every token request. */
  readonly assertionFile: string
  readonly clientId?: string
  readonly credential: ClientCredential
  readonly scope?: string
}

/**
 * Enterprise-managed authorization.
 *
 * @since 0.2.0
 * @category models
 */
export interface Enterprise extends Common {
  readonly grant: "enterprise"
  readonly clientId: string
  readonly credential: ClientCredential
  readonly scope?: string
  readonly idp: {
    readonly tokenEndpoint: string
    readonly issuer?: string
    readonly clientId?: string
    readonly credential: ClientCredential
    /** The user's ID token, read at every exchange. */
    readonly idTokenFile: string
  }
}

/**
 * A remote server's `auth` settings.
 *
 * @since 0.2.0
 * @category models
 */
export type RemoteAuth = AuthorizationCode | ClientCredentials | JwtBearer | Enterprise
