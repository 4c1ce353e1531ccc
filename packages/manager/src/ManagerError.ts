/**
 * The manager's own errors. Failures of a server's transport (timeouts, remote errors, `ErrIndexBuilding`…)
 * pass through unchanged, as `@mcp-fleet/transport`'s `McpError`s.
 *
 * @since 0.1.0
 */
import { ErrorKind } from "@mcp-fleet/transport"
import * as Schema from "effect/Schema"

/**
 * No server of that name is configured.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownServer extends Schema.TaggedError<UnknownServer>()("UnknownServer", {
  server: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  /** The caller's: no server of that name is configured. */
  get kind(): ErrorKind.CallerFault {
    return ErrorKind.callerFault
  }
  override get message(): string {
    return `No MCP server is named "${this.server}"; the configured servers are ${
      this.known.length > 0 ? this.known.map((n) => `"${n}"`).join(", ") : "none"
    }.`
  }
}

/**
 * The server cannot take calls: it is offline or disabled. The message says why.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerUnavailable extends Schema.TaggedError<ServerUnavailable>()("ServerUnavailable", {
  server: Schema.String,
  state: Schema.String,
  lastError: Schema.optionalKey(Schema.String),
  attempt: Schema.Number,
  gaveUp: Schema.Boolean
}) {
  /**
   * Transient while the manager may still bring the server back; a configuration fault when it is disabled; the
   * server's fault once reconnection gave up.
   */
  get kind(): ErrorKind.Transient | ErrorKind.ConfigFault | ErrorKind.ServerFault {
    if (this.state === "disabled") return ErrorKind.configFault
    return this.gaveUp ? ErrorKind.serverFault : ErrorKind.transient
  }
  override get message(): string {
    if (this.state === "disabled") return `MCP server "${this.server}" is disabled in the configuration.`
    if (this.state === "unauthorized") {
      const why = (this.lastError ?? "needs authorization").replace(/\.?$/, ".")
      return `MCP server "${this.server}" ${why}`
    }
    if (this.state === "starting") return `MCP server "${this.server}" is restarting; try again in a moment.`
    const why = this.lastError !== undefined ? ` Last error: ${this.lastError}` : ""
    const what = this.gaveUp
      ? `is offline: reconnection gave up after ${this.attempt} attempts; restart it to try again.`
      : this.attempt > 0
      ? `is offline and reconnecting (attempt ${this.attempt}).`
      : "is offline."
    return `MCP server "${this.server}" ${what}${why}`
  }
}

/**
 * `waitForReady` found the server settled in a state other than `ready` (degraded, disabled, or given up).
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerNotReady extends Schema.TaggedError<ServerNotReady>()("ServerNotReady", {
  server: Schema.String,
  state: Schema.String,
  lastError: Schema.optionalKey(Schema.String)
}) {
  /** The server's: it settled in a state that is not ready. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    return `MCP server "${this.server}" settled as ${this.state}, not ready${
      this.lastError !== undefined ? `: ${this.lastError}` : "."
    }`
  }
}

/**
 * `add` was given a name the fleet already has.
 *
 * @since 0.2.0
 * @category errors
 */
export class DuplicateServer extends Schema.TaggedError<DuplicateServer>()("DuplicateServer", {
  server: Schema.String
}) {
  /** The caller's: a server of that name is already in the fleet. */
  get kind(): ErrorKind.CallerFault {
    return ErrorKind.callerFault
  }
  override get message(): string {
    return `An MCP server named "${this.server}" is already in the fleet; remove it or update it instead.`
  }
}

/**
 * @since 0.1.0
 * @category errors
 */
export type ManagerError = UnknownServer | ServerUnavailable | ServerNotReady | DuplicateServer
