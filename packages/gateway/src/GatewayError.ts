/**
 * The gateway's own errors, each with a one-sentence `message`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The profiles configuration does not decode: `issues` lists each problem with its path.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidProfiles extends Schema.TaggedError<InvalidProfiles>()("InvalidProfiles", {
  issues: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `The gateway's profiles configuration is invalid: ${this.issues.join("; ")}.`
  }
}

/**
 * No profile has that name (a `/mcp/<profile>` path or `--profile` flag that names none).
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownProfile extends Schema.TaggedError<UnknownProfile>()("UnknownProfile", {
  profile: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `No gateway profile is named "${this.profile}"; the profiles are ${
      this.known.length > 0 ? this.known.map((n) => `"${n}"`).join(", ") : "none"
    }.`
  }
}

/**
 * The arguments of one of the gateway's own tools (`search_tools`, `call_tool`) do not decode.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidArguments extends Schema.TaggedError<InvalidArguments>()("InvalidArguments", {
  tool: Schema.String,
  issue: Schema.String
}) {
  override get message(): string {
    return `Invalid arguments for ${this.tool}: ${this.issue}`
  }
}

/**
 * A stored result is not there: its id is unknown, it expired, or it was evicted to stay within the bounds.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResultNotFound extends Schema.TaggedError<ResultNotFound>()("ResultNotFound", {
  uri: Schema.String,
  ttlMillis: Schema.Number
}) {
  override get message(): string {
    return `The result ${this.uri} is unknown or no longer kept (results are kept ${
      Math.round(this.ttlMillis / 1000)
    } s, and the oldest go first when the store is full); call the tool again.`
  }
}

/**
 * A page of a stored result outside `1..pages`, or a `fleet://results/` URI that is not one.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidResultUri extends Schema.TaggedError<InvalidResultUri>()("InvalidResultUri", {
  uri: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.uri} is not a readable result page: ${this.reason}.`
  }
}

/**
 * The session key file cannot be used: `reason` names the line and what is wrong with it, never its content.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidSessionKeys extends Schema.TaggedError<InvalidSessionKeys>()("InvalidSessionKeys", {
  reason: Schema.String
}) {
  override get message(): string {
    return `The session key file is invalid: ${this.reason}; each line must be 32 random bytes in base64 (openssl rand -base64 32).`
  }
}

/**
 * A session id that does not open: not a sealed id (`malformed`), sealed under a key this gateway does not hold
 * (`unknown-key`), altered (`tampered`) or past its expiry (`expired`). A gateway answers it as an unknown session
 * (HTTP 404), and the host starts a new one. The message never contains the id.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionIdRefused extends Schema.TaggedError<SessionIdRefused>()("SessionIdRefused", {
  reason: Schema.Literals(["malformed", "unknown-key", "tampered", "expired"]),
  keyId: Schema.optionalKey(Schema.String),
  expiredAt: Schema.optionalKey(Schema.Number)
}) {
  override get message(): string {
    const restart = "send initialize to start a new session"
    switch (this.reason) {
      case "malformed":
        return `The session id is not one this gateway issued; ${restart}.`
      case "unknown-key":
        return `The session id was sealed under a key this gateway no longer holds (key ${this.keyId}); ${restart}.`
      case "tampered":
        return `The session id failed its integrity check (key ${this.keyId}); ${restart}.`
      case "expired":
        return `The session expired at ${
          this.expiredAt === undefined ? "an earlier time" : new Date(this.expiredAt).toISOString()
        }; ${restart}.`
    }
  }
}

/**
 * A session's state seals to an id longer than the gateway accepts (a host declared very large capabilities).
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionStateTooLarge extends Schema.TaggedError<SessionStateTooLarge>()("SessionStateTooLarge", {
  length: Schema.Number,
  maxLength: Schema.Number
}) {
  override get message(): string {
    return `The session's state seals to a ${this.length}-character id, over the gateway's limit of ${this.maxLength}; declare fewer capabilities or raise maxLength.`
  }
}

/**
 * Redis could not serve an operation: not connected now, or a command failed or timed out. The shared parts turn it
 * into their degraded behaviour; `reason` never holds the Redis URL's password.
 *
 * @since 0.1.0
 * @category errors
 */
export class RedisUnavailable extends Schema.TaggedError<RedisUnavailable>()("RedisUnavailable", {
  operation: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Redis could not serve ${this.operation}: ${this.reason}.`
  }
}

/**
 * A session's state that does not fit `SessionSeal.SessionState` (a capability that is not JSON, a log level that
 * is not one of MCP's); `issue` says where.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionStateInvalid extends Schema.TaggedError<SessionStateInvalid>()("SessionStateInvalid", {
  issue: Schema.String
}) {
  override get message(): string {
    return `The session's state cannot be sealed: ${this.issue}`
  }
}
