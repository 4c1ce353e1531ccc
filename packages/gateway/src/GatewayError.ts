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
