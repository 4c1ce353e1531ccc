/**
 * Everything that can go wrong while loading an MCP config file, as tagged errors a person can act on.
 *
 * Every error carries the config file's `path` and has a one-sentence `message` that says what is wrong and
 * where. No error carries or prints an env value (or any other value from the file that could be a secret):
 * errors about values name the server and the field only.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const describeFile = (path: string): string => `MCP config file ${path}`

/**
 * The config file does not exist.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigFileNotFound extends Schema.TaggedError<ConfigFileNotFound>(
  "@mcp-fleet/config/ConfigError/ConfigFileNotFound"
)("ConfigFileNotFound", {
  path: Schema.String
}) {
  override get message(): string {
    return `${describeFile(this.path)} does not exist.`
  }
}

/** Plain words for the platform's error kinds a person is likely to meet when reading a file. */
const READ_FAILURES: Readonly<Record<string, string>> = {
  PermissionDenied: "permission denied",
  BadResource: "it is not a readable file (is it a directory?)",
  BadArgument: "the path or its encoding is invalid",
  InvalidData: "its contents are not valid text",
  Busy: "the file is busy",
  TimedOut: "reading timed out"
}

/**
 * The config file exists but could not be read (permissions, a directory, an I/O error).
 * `reason` is the platform's error kind (e.g. `PermissionDenied`), put into words in the message.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigFileUnreadable extends Schema.TaggedError<ConfigFileUnreadable>(
  "@mcp-fleet/config/ConfigError/ConfigFileUnreadable"
)("ConfigFileUnreadable", {
  path: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return `${describeFile(this.path)} could not be read: ${READ_FAILURES[this.reason] ?? this.reason}.`
  }
}

/**
 * The file is not valid JSON. `line` and `column` are 1-based; `reason` says what was expected there and never
 * quotes the file's text.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigJsonInvalid extends Schema.TaggedError<ConfigJsonInvalid>(
  "@mcp-fleet/config/ConfigError/ConfigJsonInvalid"
)("ConfigJsonInvalid", {
  path: Schema.String,
  line: Schema.Number,
  column: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `${describeFile(this.path)} is not valid JSON at line ${this.line}, column ${this.column}: ${this.reason}.`
  }
}

/**
 * The JSON does not have the shape of an MCP config. `jsonPath` points at the offending value
 * (e.g. `mcpServers.fs.args[1]`, empty for the whole document) and `issue` says what was expected.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigSchemaInvalid extends Schema.TaggedError<ConfigSchemaInvalid>(
  "@mcp-fleet/config/ConfigError/ConfigSchemaInvalid"
)("ConfigSchemaInvalid", {
  path: Schema.String,
  jsonPath: Schema.String,
  issue: Schema.String
}) {
  override get message(): string {
    const where = this.jsonPath === "" ? "" : `${this.jsonPath}: `
    return `${describeFile(this.path)} is invalid: ${where}${this.issue}.`
  }
}

/**
 * Two servers have the same name. `JSON.parse` would silently keep the second; this is refused instead,
 * with the lines of both definitions.
 *
 * @since 0.1.0
 * @category errors
 */
export class DuplicateServerName extends Schema.TaggedError<DuplicateServerName>(
  "@mcp-fleet/config/ConfigError/DuplicateServerName"
)("DuplicateServerName", {
  path: Schema.String,
  server: Schema.String,
  firstLine: Schema.Number,
  secondLine: Schema.Number
}) {
  override get message(): string {
    return `${describeFile(this.path)} is invalid: server ${
      JSON.stringify(this.server)
    } is defined twice: line ${this.firstLine} and line ${this.secondLine}.`
  }
}

/**
 * The same key appears twice in one object somewhere other than the server list (e.g. `command` twice in
 * one server, or one env variable twice). `jsonPath` is the object holding the key (empty for the top level).
 *
 * @since 0.1.0
 * @category errors
 */
export class DuplicateKey extends Schema.TaggedError<DuplicateKey>(
  "@mcp-fleet/config/ConfigError/DuplicateKey"
)("DuplicateKey", {
  path: Schema.String,
  jsonPath: Schema.String,
  key: Schema.String,
  firstLine: Schema.Number,
  secondLine: Schema.Number
}) {
  override get message(): string {
    const where = this.jsonPath === "" ? "at the top level" : `in ${this.jsonPath}`
    return `${describeFile(this.path)} is invalid: key ${
      JSON.stringify(this.key)
    } is defined twice ${where}: line ${this.firstLine} and line ${this.secondLine}.`
  }
}

/**
 * A server entry whose `type` is none mcp-fleet knows (`"stdio"`, `"http"`, `"streamable-http"`, `"sse"`).
 * Loading no longer fails with it: such an entry is skipped with a `ConfigWarning.UnknownTransport` (kept for
 * callers that match on the tag). `transport` is the `type` given, or `"url"` when the entry only has a `url`.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsupportedTransport extends Schema.TaggedError<UnsupportedTransport>(
  "@mcp-fleet/config/ConfigError/UnsupportedTransport"
)("UnsupportedTransport", {
  path: Schema.String,
  server: Schema.String,
  transport: Schema.String,
  viaUrl: Schema.Boolean
}) {
  override get message(): string {
    const what = this.viaUrl ? "has a \"url\" and no \"command\"" : `has "type": ${JSON.stringify(this.transport)}`
    return `${describeFile(this.path)} is invalid: server ${
      JSON.stringify(this.server)
    } ${what}, but only stdio servers (started with a "command") are supported.`
  }
}

/**
 * A `${VAR}` placeholder names a variable that is not set in the environment and has no `:-default`.
 * `field` is where it was used (`command`, `cwd`, `args[2]`, `env.API_KEY`).
 *
 * @since 0.1.0
 * @category errors
 */
export class MissingEnvVar extends Schema.TaggedError<MissingEnvVar>(
  "@mcp-fleet/config/ConfigError/MissingEnvVar"
)("MissingEnvVar", {
  path: Schema.String,
  server: Schema.String,
  field: Schema.String,
  variable: Schema.String
}) {
  override get message(): string {
    return `${describeFile(this.path)}: server ${
      JSON.stringify(this.server)
    } uses \${${this.variable}} in ${this.field}, but ${this.variable} is not set (set it, or write \${${this.variable}:-default}).`
  }
}

/**
 * A `${` in a value does not form a valid placeholder (`${NAME}`, `${NAME:-default}`, `${env:NAME}`; write `$$`
 * for a literal dollar). The value itself is not shown: it may be a secret.
 *
 * @since 0.1.0
 * @category errors
 */
export class MalformedPlaceholder extends Schema.TaggedError<MalformedPlaceholder>(
  "@mcp-fleet/config/ConfigError/MalformedPlaceholder"
)("MalformedPlaceholder", {
  path: Schema.String,
  server: Schema.String,
  field: Schema.String
}) {
  override get message(): string {
    return `${describeFile(this.path)}: server ${
      JSON.stringify(this.server)
    } has a malformed placeholder in ${this.field} (write \${NAME}, \${NAME:-default}, or $$ for a literal dollar).`
  }
}

/**
 * A VS Code `${input:ID}` prompt input: VS Code asks the user for it when the server starts; mcp-fleet has
 * nobody to ask. The message suggests reading the value from the environment instead (`${ID}` upper-cased).
 *
 * @since 0.1.0
 * @category errors
 */
export class PromptInputPlaceholder extends Schema.TaggedError<PromptInputPlaceholder>(
  "@mcp-fleet/config/ConfigError/PromptInputPlaceholder"
)("PromptInputPlaceholder", {
  path: Schema.String,
  server: Schema.String,
  field: Schema.String,
  input: Schema.String,
  suggestion: Schema.String
}) {
  override get message(): string {
    return `${describeFile(this.path)}: server ${
      JSON.stringify(this.server)
    } uses \${input:${this.input}} in ${this.field}, a VS Code prompt input that mcp-fleet cannot ask for; write \${${this.suggestion}} and set ${this.suggestion} in the environment instead.`
  }
}

/**
 * A server's `envFile` could not be read. `envFile` is the path as resolved (relative to the config file's
 * folder); `reason` is the platform's error kind (`NotFound`, `PermissionDenied`, …).
 *
 * @since 0.1.0
 * @category errors
 */
export class EnvFileUnreadable extends Schema.TaggedError<EnvFileUnreadable>(
  "@mcp-fleet/config/ConfigError/EnvFileUnreadable"
)("EnvFileUnreadable", {
  path: Schema.String,
  server: Schema.String,
  envFile: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    const why = this.reason === "NotFound" ? "it does not exist" : READ_FAILURES[this.reason] ?? this.reason
    return `${describeFile(this.path)}: server ${JSON.stringify(this.server)} has "envFile": ${
      JSON.stringify(this.envFile)
    }, which could not be read: ${why}.`
  }
}

/**
 * Any error that loading or parsing a config can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type ConfigError =
  | ConfigFileNotFound
  | ConfigFileUnreadable
  | ConfigJsonInvalid
  | ConfigSchemaInvalid
  | DuplicateServerName
  | DuplicateKey
  | UnsupportedTransport
  | MissingEnvVar
  | MalformedPlaceholder
  | PromptInputPlaceholder
  | EnvFileUnreadable
