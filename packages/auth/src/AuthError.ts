/**
 * Everything that can go wrong while authorizing against a remote MCP server, as tagged errors with one-sentence
 * messages. No error carries a token, an authorization code, a PKCE verifier or a client secret: errors name
 * URLs (which never hold secrets: tokens are never put in URLs) and OAuth error codes only.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Kind from "./internal/Kind.ts"
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
  /** The server's for good: no metadata was found at any of the well-known URLs. */
  get kind(): Kind.ServerFault {
    return Kind.serverFault
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
  /** The server's for good: the metadata names another resource. */
  get kind(): Kind.ServerFault {
    return Kind.serverFault
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
  /** The server's for good: the authorization server does not offer S256. */
  get kind(): Kind.ServerFault {
    return Kind.serverFault
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
  /** A configuration fault: no client id can be obtained without a configuration change. */
  get kind(): Kind.ConfigFault {
    return Kind.configFault
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
  /** Needs the user: their authorization failed or was refused, so they must authorize again. */
  get kind(): Kind.NeedsUser {
    return Kind.needsUser(this.message)
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
  grant: Schema.Literals(["authorization_code", "refresh_token", "client_credentials", "jwt-bearer", "token-exchange"]),
  reason: Schema.String,
  oauthError: Schema.optional(Schema.String),
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * Transient when the endpoint could not be reached, timed out or answered garbage (no OAuth `error`); an OAuth
   * error such as `invalid_grant` needs the user (the grant is dead: they must authorize again).
   */
  get kind(): Kind.Transient | Kind.NeedsUser {
    return this.oauthError === undefined ? Kind.transient : Kind.needsUser(this.message)
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
  /** A configuration fault: the server's URL must change to HTTPS. */
  get kind(): Kind.ConfigFault {
    return Kind.configFault
  }
  override get message(): string {
    return `The MCP server ${this.server} is plain HTTP off the loopback interface, and a bearer token is never sent over cleartext: use its https:// URL.`
  }
}

/**
 * A credential the host configured could not be had: a private key, client secret, assertion or ID token file
 * that is missing or unreadable, or an app-provided source that failed. `source` names where it was looked for
 * (a path, or `the application`), never its content.
 *
 * @since 0.2.0
 * @category errors
 */
export class CredentialUnavailable extends Schema.TaggedError<CredentialUnavailable>(
  "@mcp-fleet/auth/AuthError/CredentialUnavailable"
)("CredentialUnavailable", {
  what: Schema.Literals(["client secret", "private key", "assertion", "ID token"]),
  source: Schema.String,
  reason: Schema.String
}) {
  /** Permanent until the host fixes its configuration (a rotated file is read afresh on the next attempt). */
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `The ${this.what} from ${this.source} could not be read: ${this.reason}.`
  }
}

/**
 * A JWT could not be made: a client assertion (`private_key_jwt`, RFC 7523) or a DPoP proof (RFC 9449). The
 * reason names the key's algorithm or format, never the key.
 *
 * @since 0.2.0
 * @category errors
 */
export class SigningFailed extends Schema.TaggedError<SigningFailed>("@mcp-fleet/auth/AuthError/SigningFailed")(
  "SigningFailed",
  { what: Schema.Literals(["client assertion", "DPoP proof", "DPoP key"]), reason: Schema.String }
) {
  /** Permanent: the key or the algorithm must change. */
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `The ${this.what} could not be made: ${this.reason}.`
  }
}

/**
 * Authorization is needed and could not be completed: the host must let the user authorize (for the CLI:
 * `mcp-fleet auth login <server>`). `reason` is the message of the error that stopped the flow, without any secret.
 *
 * The one class for this failure in every package: `McpAuth` raises it with the `resource` it authorizes for, and the
 * transport, when a request to a server was refused, adds which one: `server` (its label), `method` and the HTTP
 * `status` (401, or a 403 `insufficient_scope` that step-ups did not satisfy). Retrying will not help until the
 * user authorizes.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthorizationRequired extends Schema.TaggedError<AuthorizationRequired>(
  "@mcp-fleet/auth/AuthError/AuthorizationRequired"
)("AuthorizationRequired", {
  reason: Schema.String,
  /** The protected resource (the MCP server's canonical URL), when `McpAuth` raised it. */
  resource: Schema.optionalKey(Schema.String),
  /** The server's label, when a request to it was refused. */
  server: Schema.optionalKey(Schema.String),
  /** The request that was refused. */
  method: Schema.optionalKey(Schema.String),
  /** The HTTP status that refused it. */
  status: Schema.optionalKey(Schema.Number),
  cause: Schema.optional(Schema.Defect())
}) {
  /** Needs the user: nothing succeeds until they authorize (for the CLI: `mcp-fleet auth login`). */
  get kind(): Kind.NeedsUser {
    return Kind.needsUser(this.reason)
  }
  override get message(): string {
    if (this.server === undefined) return `The MCP server ${this.resource ?? ""} needs authorization: ${this.reason}`
    const refused = this.method === undefined
      ? ""
      : ` (${this.method} was answered HTTP ${this.status === undefined ? "401" : this.status})`
    return `MCP server "${this.server}" needs authorization${refused}: ${this.reason}`
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
  | CredentialUnavailable
  | SigningFailed
