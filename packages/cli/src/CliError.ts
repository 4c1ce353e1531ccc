/**
 * The CLI's own failures. Config errors (`@mcp-fleet/config`), manager errors (`@mcp-fleet/manager`) and
 * transport errors (`@mcp-fleet/transport`) pass through unchanged; `ExitCode` decides how each one ends the
 * process.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * `--args` is not a JSON object.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidArguments extends Schema.TaggedError<InvalidArguments>()("InvalidArguments", {
  reason: Schema.String
}) {
  override get message(): string {
    return `--args must be a JSON object: ${this.reason}.`
  }
}

/**
 * No server of that name is in the config file (checked before anything is started).
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerNotConfigured extends Schema.TaggedError<ServerNotConfigured>()("ServerNotConfigured", {
  server: Schema.String,
  configPath: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message(): string {
    const known = this.known.length > 0 ? this.known.map((n) => JSON.stringify(n)).join(", ") : "none"
    return `${this.configPath} has no server named ${JSON.stringify(this.server)}; its servers are ${known}.`
  }
}

/**
 * The server a command needs is not ready: the message says why, from the facts (see `Advice.explain`), and may
 * end with an indented block of the server's last stderr lines.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerNotUsable extends Schema.TaggedError<ServerNotUsable>()("ServerNotUsable", {
  server: Schema.String,
  state: Schema.String,
  explanation: Schema.String
}) {
  override get message(): string {
    return this.explanation
  }
}

/**
 * `status --strict`: a server is offline, or had not settled when the wait ended.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotAllUp extends Schema.TaggedError<NotAllUp>()("NotAllUp", {
  servers: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `--strict: not every server is up: ${this.servers.join(", ")}.`
  }
}

/**
 * `call` names a tool the (ready) server does not list; `suggestion` is a near miss among its tools.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", {
  server: Schema.String,
  tool: Schema.String,
  suggestion: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    const hint = this.suggestion === undefined ? "" : `; did you mean ${JSON.stringify(this.suggestion)}?`
    return `MCP server ${JSON.stringify(this.server)} has no tool ${
      JSON.stringify(this.tool)
    }${hint} (see \`mcp-fleet tools --server ${this.server}\`)`
  }
}

/**
 * `call server__tool` (one argument) that matches no server of the config file.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownQualifiedName extends Schema.TaggedError<UnknownQualifiedName>()("UnknownQualifiedName", {
  name: Schema.String,
  configPath: Schema.String
}) {
  override get message(): string {
    return `call needs <server> <tool>, or server__tool as \`mcp-fleet tools\` prints it; ${
      JSON.stringify(this.name)
    } starts with no server of ${this.configPath} followed by "__".`
  }
}

/**
 * `call --output FILE` for a result that has no image, audio or binary resource block.
 *
 * @since 0.1.0
 * @category errors
 */
export class NoBinaryContent extends Schema.TaggedError<NoBinaryContent>()("NoBinaryContent", {
  tool: Schema.String,
  path: Schema.String
}) {
  override get message(): string {
    return `--output ${this.path}: the result of ${
      JSON.stringify(this.tool)
    } has no image, audio or binary resource block to write.`
  }
}

/**
 * `call --output FILE` could not write the file.
 *
 * @since 0.1.0
 * @category errors
 */
export class OutputUnwritable extends Schema.TaggedError<OutputUnwritable>()("OutputUnwritable", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `--output ${this.path} could not be written (${this.reason}).`
  }
}

/**
 * The server was still starting when the wait (`--wait`) ran out.
 *
 * @since 0.1.0
 * @category errors
 */
export class StillStarting extends Schema.TaggedError<StillStarting>()("StillStarting", {
  server: Schema.String,
  waitedMs: Schema.Number,
  lastError: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    const why = this.lastError !== undefined ? ` (${this.lastError})` : ""
    return `MCP server ${
      JSON.stringify(this.server)
    } was still starting after ${this.waitedMs} ms${why}; wait longer with --wait.`
  }
}

/**
 * The tool ran and reported a failure (`isError: true`); `text` is what it said.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolReportedError extends Schema.TaggedError<ToolReportedError>()("ToolReportedError", {
  server: Schema.String,
  tool: Schema.String,
  text: Schema.String
}) {
  override get message(): string {
    const said = this.text.length > 0 ? `: ${this.text}` : " (it gave no text)."
    return `Tool ${JSON.stringify(this.tool)} on MCP server ${JSON.stringify(this.server)} reported an error${said}`
  }
}

/**
 * The demo could not run, or a step of it did not happen as narrated.
 *
 * @since 0.1.0
 * @category errors
 */
export class DemoFailed extends Schema.TaggedError<DemoFailed>()("DemoFailed", {
  reason: Schema.String
}) {
  override get message(): string {
    return `The demo failed: ${this.reason}`
  }
}

/**
 * `read` without `--output` of a resource whose contents are binary: bytes are not printed on a terminal.
 *
 * @since 0.3.0
 * @category errors
 */
export class BinaryResource extends Schema.TaggedError<BinaryResource>()("BinaryResource", {
  uri: Schema.String
}) {
  override get message(): string {
    return `${
      JSON.stringify(this.uri)
    } has binary contents; write them with --output FILE (or print them as base64 with --json).`
  }
}

/**
 * `auth login|logout` named a server that runs as a local process: only remote (`url`) servers use OAuth.
 *
 * @since 0.2.0
 * @category errors
 */
export class NotRemote extends Schema.TaggedError<NotRemote>()("NotRemote", { server: Schema.String }) {
  override get message(): string {
    return `${JSON.stringify(this.server)} is a local (command) server; only remote (url) servers sign in with OAuth.`
  }
}

/**
 * `auth login` could not authorize: the server or its authorization server refused, or nobody came back to the
 * loopback listener in time. The reason carries no token, code or secret.
 *
 * @since 0.2.0
 * @category errors
 */
export class LoginFailed extends Schema.TaggedError<LoginFailed>()("LoginFailed", {
  server: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Could not authorize ${JSON.stringify(this.server)}: ${this.reason}`
  }
}
