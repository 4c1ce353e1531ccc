/**
 * The `mcpServers` config file that Claude Desktop, Cursor and VS Code use, decoded into typed server entries.
 *
 * ```json
 * { "mcpServers": { "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] } } }
 * ```
 *
 * Besides the common fields (`command`, `args`, `env`, `cwd`, `disabled`) an entry may carry mcp-fleet's own:
 * `curated` (tool names the host bridges by hand), `requestTimeoutMs` (passed through untouched) and `inheritEnv`
 * (default `false`). VS Code's `{ "servers": { … } }` is read the same way.
 *
 * Loading refuses — with a typed {@link ConfigError.ConfigError} — a missing or unreadable file, invalid JSON
 * (line and column), a value of the wrong shape (its JSON path), two servers with the same name (both lines:
 * `JSON.parse` would silently keep the second), non-stdio servers, and `${VAR}` placeholders whose variable is
 * unset. Env values come out as `Redacted`, so printing or serializing a config never shows them.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem } from "effect"
import type { Redacted } from "effect"
import * as ConfigError from "./ConfigError.ts"
import type * as EnvExpansion from "./EnvExpansion.ts"
import { parseJson } from "./internal/ParseJson.ts"
import { decodeServers } from "./internal/RawConfig.ts"
import { resolveServer } from "./internal/ResolveServer.ts"

/**
 * One stdio server, after `${VAR}` expansion and defaults.
 *
 * - `args`, `env`, `curated` default to empty; `disabled` and `inheritEnv` to `false`.
 * - `cwd` and `requestTimeoutMs` are absent when the file does not set them (no default of ours: the
 *   transport owns the request timeout default).
 * - `env` values are `Redacted`: read them with `Redacted.value` where the child is spawned, nowhere else.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerEntry {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, Redacted.Redacted<string>>>
  readonly cwd?: string
  readonly disabled: boolean
  readonly curated: ReadonlyArray<string>
  readonly requestTimeoutMs?: number
  readonly inheritEnv: boolean
}

/**
 * A decoded config file: where it came from and its servers, in the order of the servers object's keys.
 * Server names are unique (duplicates are refused while loading).
 *
 * @since 0.1.0
 * @category models
 */
export interface McpConfig {
  readonly path: string
  readonly servers: ReadonlyArray<ServerEntry>
}

/**
 * Options of {@link parse}: `path` names the source in errors; `env` is what `${VAR}` placeholders are expanded
 * against (pass `process.env` from the CLI; this library never reads it itself).
 *
 * @since 0.1.0
 * @category models
 */
export interface ParseOptions {
  readonly path: string
  readonly env: EnvExpansion.Environment
}

/**
 * Options of {@link load}: the environment `${VAR}` placeholders are expanded against.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadOptions {
  readonly env: EnvExpansion.Environment
}

/**
 * Decodes config text. Checks run in this order, and the first failure is reported: JSON syntax, duplicate keys,
 * the document's shape, transports, each entry's fields, then placeholder expansion.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpConfig } from "@mcp-fleet/config"
 *
 * const text = `{ "mcpServers": { "memory": { "command": "node", "args": ["\${HOME}/servers/memory.js"] } } }`
 * const program = McpConfig.parse(text, { path: "inline.json", env: { HOME: "/home/ada" } })
 * // Effect<McpConfig, ConfigError>: servers[0].args is ["/home/ada/servers/memory.js"]
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse: (text: string, options: ParseOptions) => Effect.Effect<McpConfig, ConfigError.ConfigError> = Effect
  .fn("McpConfig.parse")(function*(text: string, options: ParseOptions) {
    const { env, path } = options
    const document = yield* parseJson(text, path)
    const { entries, key } = yield* decodeServers(document, path)
    const servers: Array<ServerEntry> = []
    for (const [name, raw] of entries) {
      servers.push(yield* resolveServer(name, raw, { path, key, env }))
    }
    return { path, servers }
  })

/**
 * Reads and decodes a config file with effect's `FileSystem` (provide `NodeServices.layer` from
 * `@effect/platform-node`, or any `FileSystem` layer). A missing file is `ConfigFileNotFound`; any other read
 * failure is `ConfigFileUnreadable`; the text is then decoded by {@link parse}.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { McpConfig } from "@mcp-fleet/config"
 *
 * const program = McpConfig.load("claude_desktop_config.json", { env: process.env }).pipe(
 *   Effect.provide(NodeServices.layer)
 * )
 * ```
 *
 * @since 0.1.0
 * @category loading
 */
export const load: (
  path: string,
  options: LoadOptions
) => Effect.Effect<McpConfig, ConfigError.ConfigError, FileSystem.FileSystem> = Effect.fn("McpConfig.load")(
  function*(path: string, options: LoadOptions) {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((error) =>
        error.reason._tag === "NotFound"
          ? new ConfigError.ConfigFileNotFound({ path })
          : new ConfigError.ConfigFileUnreadable({ path, reason: error.reason._tag, cause: error })
      )
    )
    return yield* parse(text, { path, env: options.env })
  }
)
