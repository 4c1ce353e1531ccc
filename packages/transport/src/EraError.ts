/**
 * The typed errors of MCP's modern era (2026-07-28): refusals the server states with the era's own error codes,
 * methods that no longer exist, and the bounds of multi-round-trip requests (`input_required`).
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"
import * as ErrorKind from "./ErrorKind.ts"
import { oneLine } from "./internal/ServerText.ts"

/**
 * The method does not exist in the era this server speaks (`ping` and `logging/setLevel` were removed in
 * 2026-07-28; liveness is the process and the streams).
 *
 * @since 0.3.0
 * @category errors
 */
export class NotInEra extends Schema.TaggedError<NotInEra>()("NotInEra", {
  server: Schema.String,
  method: Schema.String,
  protocolVersion: Schema.String
}) {
  override get message(): string {
    return `MCP server "${this.server}" speaks ${this.protocolVersion}, which has no ${this.method} method.`
  }

  /** Permanent: the method does not exist in this era. */
  get kind(): ErrorKind.CallerFault {
    return ErrorKind.callerFault
  }
}

/**
 * The server refused a request because the client did not declare a capability it requires (error `-32021`).
 *
 * @since 0.3.0
 * @category errors
 */
export class MissingClientCapability extends Schema.TaggedError<MissingClientCapability>()(
  "MissingClientCapability",
  { server: Schema.String, method: Schema.String, detail: Schema.String }
) {
  override get message(): string {
    return `MCP server "${this.server}" refused ${this.method}: it requires a client capability this client did not declare (${
      oneLine(this.detail)
    }).`
  }

  /** Permanent: the same request without the capability is refused again. */
  get kind(): ErrorKind.ConfigFault {
    return ErrorKind.configFault
  }
}

/**
 * The server refused a request because its HTTP headers disagree with its body (error `-32020`).
 *
 * @since 0.3.0
 * @category errors
 */
export class HeaderMismatch extends Schema.TaggedError<HeaderMismatch>()("HeaderMismatch", {
  server: Schema.String,
  method: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `MCP server "${this.server}" refused ${this.method}: its headers do not match its body (${
      oneLine(this.detail)
    }).`
  }

  /** Permanent: the same request carries the same headers. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
}

/**
 * The server kept answering `input_required` past the client's bound on rounds.
 *
 * @since 0.3.0
 * @category errors
 */
export class InputRoundsExceeded extends Schema.TaggedError<InputRoundsExceeded>()("InputRoundsExceeded", {
  server: Schema.String,
  method: Schema.String,
  rounds: Schema.Number
}) {
  override get message(): string {
    return `MCP server "${this.server}" still asked for input after ${this.rounds} rounds of ${this.method}; the client stopped.`
  }

  /** Permanent: the server keeps asking for input. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
}

/**
 * The server asked for input (`input_required`) that the client cannot give: a capability it did not declare, an
 * input request it does not know, or a handler that failed.
 *
 * @since 0.3.0
 * @category errors
 */
export class InputUnavailable extends Schema.TaggedError<InputUnavailable>()("InputUnavailable", {
  server: Schema.String,
  method: Schema.String,
  /** The input request's method (`elicitation/create`, `sampling/createMessage`, `roots/list`). */
  inputMethod: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `MCP server "${this.server}" asked for ${
      oneLine(this.inputMethod, 80)
    } during ${this.method}, which this client cannot answer: ${oneLine(this.reason)}.`
  }

  /** Permanent: the client still cannot answer. */
  get kind(): ErrorKind.ConfigFault {
    return ErrorKind.configFault
  }
}

/**
 * Every modern-era error.
 *
 * @since 0.3.0
 * @category errors
 */
export type EraError = NotInEra | MissingClientCapability | HeaderMismatch | InputRoundsExceeded | InputUnavailable
