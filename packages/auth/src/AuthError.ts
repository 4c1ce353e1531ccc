/**
 * Everything that can go wrong while authorizing against a remote MCP server, as tagged errors with one-sentence
 * messages. No error carries a token, an authorization code, a PKCE verifier or a client secret: errors name
 * URLs (which never hold secrets: tokens are never put in URLs) and OAuth error codes only.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { UrlRefused } from "./UrlPolicy.ts"

/**
 * No metadata document could be found (Protected Resource Metadata or authorization-server metadata).
 * `tried` lists every URL asked, in order.
 *
 * @since 0.1.0
 * @category errors
 */
export class DiscoveryFailed extends Schema.TaggedError<DiscoveryFailed>("@mcp-fleet/auth/AuthError/DiscoveryFailed")(
  "DiscoveryFailed",
  {
    what: Schema.Literals(["protected resource metadata", "authorization server metadata"]),
    tried: Schema.Array(Schema.String),
    cause: Schema.optional(Schema.Defect())
  }
) {
  /** Permanent: no metadata was found at any of the well-known URLs. */
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `No ${this.what} was found (tried ${this.tried.join(", ")}).`
  }
}

/**
 * The Protected Resource Metadata names a different resource than the MCP server being authorized for.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResourceMismatch extends Schema.TaggedError<ResourceMismatch>(
  "@mcp-fleet/auth/AuthError/ResourceMismatch"
)("ResourceMismatch", { expected: Schema.String, advertised: Schema.String }) {
  /** Permanent: the metadata names another resource. */
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `The protected resource metadata is for ${this.advertised}, not for the MCP server ${this.expected}.`
  }
}

/**
 * The authorization server does not advertise PKCE with S256 (`code_challenge_methods_supported`), so the
 * authorization code flow is refused.
 *
 * @since 0.1.0
 * @category errors
 */
export class PkceUnsupported extends Schema.TaggedError<PkceUnsupported>("@mcp-fleet/auth/AuthError/PkceUnsupported")(
  "PkceUnsupported",
  { issuer: Schema.String, advertised: Schema.optional(Schema.Array(Schema.String)) }
) {
  /** Permanent: the authorization server does not offer S256. */
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return this.advertised === undefined
      ? `The authorization server ${this.issuer} does not advertise code_challenge_methods_supported, so PKCE cannot be assured.`
      : `The authorization server ${this.issuer} does not support PKCE with S256.`
  }
}

/**
 * No way to obtain a client id: no pre-registered credentials, no Client ID Metadata Document support, no
 * registration endpoint, or the registration endpoint refused.
 *
 * @since 0.1.0
 * @category errors
 */
export class RegistrationFailed extends Schema.TaggedError<RegistrationFailed>(
  "@mcp-fleet/auth/AuthError/RegistrationFailed"
)("RegistrationFailed", { issuer: Schema.String, reason: Schema.String, cause: Schema.optional(Schema.Defect()) }) {
  /** Permanent: no client id can be obtained without a configuration change. */
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `Could not register a client with the authorization server ${this.issuer}: ${this.reason}.`
  }
}

/**
 * The redirect back from the authorization server could not be trusted or carried an error: wrong `state`, a
 * missing or wrong `iss`, no code, or an OAuth `error` such as `access_denied`.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthorizationFailed extends Schema.TaggedError<AuthorizationFailed>(
  "@mcp-fleet/auth/AuthError/AuthorizationFailed"
)("AuthorizationFailed", { issuer: Schema.String, reason: Schema.String, cause: Schema.optional(Schema.Defect()) }) {
  /** Permanent: the user's authorization failed or was refused. */
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `Authorization at ${this.issuer} failed: ${this.reason}.`
  }
}

/**
 * The token endpoint refused a request (an OAuth `error` code such as `invalid_grant`), answered something that
 * is not a token response (HTML, bad JSON), could not be reached, or did not answer in time.
 *
 * @since 0.1.0
 * @category errors
 */
export class TokenRequestFailed extends Schema.TaggedError<TokenRequestFailed>(
  "@mcp-fleet/auth/AuthError/TokenRequestFailed"
)("TokenRequestFailed", {
  endpoint: Schema.String,
  grant: Schema.Literals(["authorization_code", "refresh_token"]),
  reason: Schema.String,
  oauthError: Schema.optional(Schema.String),
  cause: Schema.optional(Schema.Defect())
}) {
  /** Transient when the endpoint could not be reached, timed out or answered garbage (no OAuth `error`); permanent for an OAuth error such as `invalid_grant`. */
  get isRetryable(): boolean {
    return this.oauthError === undefined
  }
  override get message(): string {
    return `The token request (${this.grant}) to ${this.endpoint} failed: ${this.reason}.`
  }
}

/**
 * The MCP server is plain HTTP off the loopback interface: a bearer token is never sent to it (OAuth 2.1 §1.5,
 * RFC 6750 §5.3), so no authorization is attempted.
 *
 * @since 0.2.0
 * @category errors
 */
export class CleartextRefused extends Schema.TaggedError<CleartextRefused>(
  "@mcp-fleet/auth/AuthError/CleartextRefused"
)("CleartextRefused", { server: Schema.String }) {
  /** Permanent: the server's URL must change to HTTPS. */
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `The MCP server ${this.server} is plain HTTP off the loopback interface, and a bearer token is never sent over cleartext: use its https:// URL.`
  }
}

/**
 * Authorization is needed and could not be completed: the host must let the user authorize (for the CLI:
 * `mcp-fleet auth login <server>`). `reason` is the message of the error that stopped the flow.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthorizationRequired extends Schema.TaggedError<AuthorizationRequired>(
  "@mcp-fleet/auth/AuthError/AuthorizationRequired"
)("AuthorizationRequired", {
  resource: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /** Permanent: the user must authorize first (for the CLI: `mcp-fleet auth login`). */
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `The MCP server ${this.resource} needs authorization: ${this.reason}`
  }
}

/**
 * Every error of an authorization step.
 *
 * @since 0.1.0
 * @category errors
 */
export type AuthError =
  | CleartextRefused
  | UrlRefused
  | DiscoveryFailed
  | ResourceMismatch
  | PkceUnsupported
  | RegistrationFailed
  | AuthorizationFailed
  | TokenRequestFailed
