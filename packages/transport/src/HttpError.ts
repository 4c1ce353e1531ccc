/**
 * The errors only remote (HTTP) servers can cause, as Schema-based tagged errors.
 *
 * Like every error of this package, each carries the `server` label it concerns and reads as one sentence
 * through `message`. URLs in them have their credentials redacted (see `RemoteUrl.redact`).
 *
 * @since 0.2.0
 */
import * as AuthError from "@mcp-fleet/auth/AuthError"
import * as Schema from "effect/Schema"
import * as ErrorKind from "./ErrorKind.ts"

/**
 * The server could not be reached: connection refused, DNS failure, a reset before any answer, a TLS error.
 *
 * @since 0.2.0
 * @category errors
 */
export class ConnectionFailed extends Schema.TaggedError<ConnectionFailed>()("ConnectionFailed", {
  server: Schema.String,
  method: Schema.String,
  url: Schema.String,
  reason: Schema.String
}) {
  /** Transient: the server may be restarting or the network may come back (connection refused, DNS, reset). */
  get kind(): ErrorKind.Transient {
    return ErrorKind.transient
  }
  override get message(): string {
    return `MCP server "${this.server}" at ${this.url} could not be reached for ${this.method}: ${this.reason}.`
  }
}

/** Why a plain 401 needs the user: no `McpAuth` answered it (with one, it becomes `AuthorizationRequired`). */
const UNAUTHORIZED = "the server answered HTTP 401 and no authorization (McpAuth) is configured for it."

/**
 * The server answered with an HTTP status that is not a success. `wwwAuthenticate` (401/403) and `retryAfter`
 * (429/503) are the server's headers, kept so that a caller can authenticate or wait.
 *
 * @since 0.2.0
 * @category errors
 */
export class HttpStatusError extends Schema.TaggedError<HttpStatusError>()("HttpStatusError", {
  server: Schema.String,
  method: Schema.String,
  status: Schema.Number,
  detail: Schema.String,
  wwwAuthenticate: Schema.optionalKey(Schema.String),
  retryAfter: Schema.optionalKey(Schema.String)
}) {
  /**
   * Transient for 5xx, 408 and 429 (server trouble, overload, rate limit); a 401 needs the user (no `McpAuth` answered
   * it: with one, it would have become `AuthorizationRequired`); the server's for good for other statuses (400, 403,
   * 404…).
   */
  get kind(): ErrorKind.Transient | ErrorKind.NeedsUser | ErrorKind.ServerFault {
    if (this.status >= 500 || this.status === 408 || this.status === 429) return ErrorKind.transient
    return this.status === 401 ? ErrorKind.needsUser(UNAUTHORIZED) : ErrorKind.serverFault
  }
  override get message(): string {
    const auth = this.wwwAuthenticate !== undefined ? ` (WWW-Authenticate: ${this.wwwAuthenticate})` : ""
    const wait = this.retryAfter !== undefined ? ` (Retry-After: ${this.retryAfter})` : ""
    const detail = this.detail === "" ? "" : `: ${this.detail}`
    return `MCP server "${this.server}" answered ${this.method} with HTTP ${this.status}${auth}${wait}${detail}`
  }
}

/**
 * The server no longer knows the session this call was sent in (HTTP 404, or 400 "no valid session"). The client
 * re-initializes a new session by itself: the call was not run, and retrying it is safe.
 *
 * @since 0.2.0
 * @category errors
 */
export class SessionExpired extends Schema.TaggedError<SessionExpired>()("SessionExpired", {
  server: Schema.String,
  method: Schema.String
}) {
  /** Transient: the client opens a new session, so the same call can be made again. */
  get kind(): ErrorKind.Transient {
    return ErrorKind.transient
  }
  override get message(): string {
    return `MCP server "${this.server}" ended the session while ${this.method} was waiting; the client opens a new session, so retry the call.`
  }
}

/**
 * The server forgot every session the client made: each new session was lost (HTTP 404, or 400 naming the session)
 * before one request succeeded on it, and renewing them on a backoff did not help. The usual cause is a deployment
 * whose instances do not share sessions behind a load balancer that does not keep a client on one instance. The
 * client ends; a manager reconnects it on its schedule.
 *
 * @since 0.3.0
 * @category errors
 */
export class SessionsForgotten extends Schema.TaggedError<SessionsForgotten>()("SessionsForgotten", {
  server: Schema.String,
  /** New sessions lost in a row before a request succeeded on any of them. */
  losses: Schema.Number
}) {
  /** The server's (its deployment's) for good: this client has ended, and retrying at once meets the same server. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    return `MCP server "${this.server}" forgets its sessions; is it behind a load balancer without session affinity? ${this.losses} new sessions in a row were lost before a request succeeded on any of them.`
  }
}

/**
 * A server-sent event stream ended before the answer it was carrying, and resuming it (`Last-Event-ID`) did not
 * bring the answer either.
 *
 * @since 0.2.0
 * @category errors
 */
export class StreamEnded extends Schema.TaggedError<StreamEnded>()("StreamEnded", {
  server: Schema.String,
  method: Schema.String,
  reason: Schema.String
}) {
  /** Transient: the connection was lost before the answer. */
  get kind(): ErrorKind.Transient {
    return ErrorKind.transient
  }
  override get message(): string {
    return `MCP server "${this.server}" ended the stream of ${this.method} before its answer: ${this.reason}.`
  }
}

/**
 * The server redirected a request to another origin; only same-origin redirects are followed, so that headers
 * (credentials among them) never go to a host the user did not name.
 *
 * @since 0.2.0
 * @category errors
 */
export class RedirectRefused extends Schema.TaggedError<RedirectRefused>()("RedirectRefused", {
  server: Schema.String,
  method: Schema.String,
  location: Schema.String
}) {
  /** Permanent: the server keeps redirecting to another origin. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    return `MCP server "${this.server}" redirected ${this.method} to ${this.location}, another origin or too many hops; the redirect was not followed.`
  }
}

/**
 * The server wants OAuth authorization (HTTP 401, or a 403 `insufficient_scope` that step-ups did not satisfy)
 * and `McpAuth` could not complete it: no prompt is available, the user declined, a refresh was refused and no new
 * authorization could be made, or the authorization server misbehaved. `reason` says which, without any secret;
 * `server`, `method` and `status` say which request was refused. Retrying will not help until the user authorizes
 * (for the CLI: `mcp-fleet auth login <server>`).
 *
 * The same class as `@mcp-fleet/auth`'s `AuthError.AuthorizationRequired`: one failure, one class.
 *
 * @since 0.2.0
 * @category errors
 */
export const AuthorizationRequired: typeof AuthError.AuthorizationRequired = AuthError.AuthorizationRequired

/**
 * @since 0.2.0
 * @category errors
 */
export type AuthorizationRequired = AuthError.AuthorizationRequired

/**
 * The errors the HTTP transports add to those of any request.
 *
 * @since 0.2.0
 * @category errors
 */
export type HttpError =
  | ConnectionFailed
  | HttpStatusError
  | SessionExpired
  | SessionsForgotten
  | StreamEnded
  | RedirectRefused
  | AuthorizationRequired

/**
 * The server's URL is not an absolute `http:` or `https:` URL.
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidUrl extends Schema.TaggedError<InvalidUrl>()("InvalidUrl", {
  server: Schema.String,
  url: Schema.String,
  reason: Schema.String
}) {
  /** Permanent: the URL is unusable until the configuration changes. */
  get kind(): ErrorKind.ConfigFault {
    return ErrorKind.configFault
  }
  override get message(): string {
    return `MCP server "${this.server}" has an unusable URL ${this.url}: ${this.reason}.`
  }
}
