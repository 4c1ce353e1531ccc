/**
 * The `mcpServers` config file that Claude Desktop, Cursor and VS Code use, decoded into typed server entries.
 *
 * ```json
 * { "mcpServers": { "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] } } }
 * ```
 *
 * Besides the common fields (`command`, `args`, `env`, `envFile`, `cwd`, `disabled`, `timeout`) an entry may
 * carry mcp-fleet's own: `curated` (tool names the host bridges by hand), `requestTimeoutMs` (passed through
 * untouched) and `inheritEnv` (default `false`). VS Code's `{ "servers": { … } }` is read the same way, comments
 * and trailing commas included (JSONC). Remote entries (`url`, `type: "http" | "streamable-http" | "sse"`) are
 * decoded into {@link RemoteEntry}s, apart from the stdio servers.
 *
 * Loading refuses — with a typed {@link ConfigError.ConfigError} — a missing or unreadable file, invalid JSON
 * (line and column), a value of the wrong shape (its JSON path), two servers with the same name (both lines:
 * `JSON.parse` would silently keep the second), `${VAR}` placeholders whose variable is unset, VS Code's
 * `${input:…}` prompts, and an `envFile` that cannot be read. What it only notices — keys it does not read, an
 * entry of an unknown `type` (skipped) — comes back as {@link McpConfig.warnings}. Env and header values come
 * out as `Redacted`, so printing or serializing a config never shows them.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Redacted from "effect/Redacted"
import { parseEnv } from "node:util"
import * as ConfigError from "./ConfigError.ts"
import type * as ConfigWarning from "./ConfigWarning.ts"
import type * as EnvExpansion from "./EnvExpansion.ts"
import { parseJson } from "./internal/ParseJson.ts"
import { decodeServers } from "./internal/RawConfig.ts"
import { resolveRemote, resolveServer } from "./internal/ResolveServer.ts"
import type * as RemoteAuth from "./RemoteAuth.ts"

/**
 * One stdio server, after `${VAR}` expansion and defaults.
 *
 * - `args`, `env`, `curated` default to empty; `disabled` and `inheritEnv` to `false`.
 * - A `command` that contains a `/` (`./server.js`, `bin/server`), a `cwd` and an `envFile` are relative to the
 *   config file's folder (as in Claude Code); a bare command name (`npx`) is looked up on `PATH` when spawned.
 * - `cwd` and `requestTimeoutMs` are absent when the file does not set them (no default of ours: the
 *   transport owns the request timeout default). `requestTimeoutMs` comes from the file's `requestTimeoutMs`,
 *   else from its `timeout` (up to 3600: seconds, as Cline and Roo Code write it; above: milliseconds, as
 *   Gemini CLI does).
 * - `env` values are `Redacted`: read them with `Redacted.value` where the child is spawned, nowhere else.
 *   After {@link load}, they include the `envFile`'s variables (the file's `env` wins over it); `envFile` is the
 *   resolved path of that file.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerEntry {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, Redacted.Redacted<string>>>
  readonly envFile?: string
  readonly cwd?: string
  readonly disabled: boolean
  readonly curated: ReadonlyArray<string>
  readonly requestTimeoutMs?: number
  readonly inheritEnv: boolean
}

/**
 * One remote server (a `url` entry): Streamable HTTP (`type` `"http"`, `"streamable-http"` or absent) or the
 * older HTTP+SSE transport (`"sse"`). `url` and header values are expanded and `Redacted` (both often carry
 * tokens). `auth`, when the entry has one, says how the server authorizes (see `RemoteAuth`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RemoteEntry {
  readonly name: string
  readonly transport: "http" | "sse"
  readonly url: Redacted.Redacted<string>
  readonly headers: Readonly<Record<string, Redacted.Redacted<string>>>
  readonly disabled: boolean
  readonly curated: ReadonlyArray<string>
  readonly requestTimeoutMs?: number
  readonly auth?: RemoteAuth.RemoteAuth
}

/**
 * A decoded config file: where it came from, its stdio servers and its remote servers (each in the order of the
 * servers object's keys), and what loading noticed. Server names are unique across both lists (duplicates are
 * refused while loading).
 *
 * @since 0.1.0
 * @category models
 */
export interface McpConfig {
  readonly path: string
  readonly servers: ReadonlyArray<ServerEntry>
  readonly remote: ReadonlyArray<RemoteEntry>
  readonly warnings: ReadonlyArray<ConfigWarning.ConfigWarning>
}

/**
 * Options of {@link parse}: `path` names the source in errors, and its folder is the base of relative paths and
 * `${workspaceFolder}` (for a file in a `.vscode` folder, the folder above it); `env` is what `${VAR}` placeholders are expanded against (pass `process.env` from the
 * CLI; this library never reads it itself); `userHome` is `${userHome}` (pass `os.homedir()`; when absent,
 * `${userHome}` is looked up in `env`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ParseOptions {
  readonly path: string
  readonly env: EnvExpansion.Environment
  readonly userHome?: string | undefined
}

/**
 * Options of {@link load}: as {@link ParseOptions}, without the path.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadOptions {
  readonly env: EnvExpansion.Environment
  readonly userHome?: string | undefined
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
    const { env, path, userHome } = options
    const document = yield* parseJson(text, path)
    const { entries, key, warnings } = yield* decodeServers(document, path)
    const servers: Array<ServerEntry> = []
    const remote: Array<RemoteEntry> = []
    const context = { path, key, env, userHome }
    for (const entry of entries) {
      if (entry.kind === "stdio") servers.push(yield* resolveServer(entry.name, entry.raw, context))
      else remote.push(yield* resolveRemote(entry.name, entry.raw, context))
    }
    return { path, servers, remote, warnings }
  })

/**
 * Reads and decodes a config file with effect's `FileSystem` (provide `NodeServices.layer` from
 * `@effect/platform-node`, or any `FileSystem` layer). A missing file is `ConfigFileNotFound`; any other read
 * failure is `ConfigFileUnreadable`; the text is then decoded by {@link parse}. Each server's `envFile` is then
 * read (dotenv syntax, as Node's `util.parseEnv` reads it: `KEY=value`, `#` comments, quotes, `export` is not
 * part of it) and merged under the server's `env`, values `Redacted`; one that cannot be read is
 * `EnvFileUnreadable`.
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
    const config = yield* parse(text, { path, env: options.env, userHome: options.userHome })
    const servers: Array<ServerEntry> = []
    for (const server of config.servers) {
      const envFile = server.envFile
      if (envFile === undefined) {
        servers.push(server)
        continue
      }
      const dotenv = yield* fs.readFileString(envFile).pipe(
        Effect.mapError((error) =>
          new ConfigError.EnvFileUnreadable({ path, server: server.name, envFile, reason: error.reason._tag })
        )
      )
      const fromFile = Object.entries(parseEnv(dotenv)).flatMap(([key, value]) =>
        typeof value === "string" ? [[key, Redacted.make(value, { label: key })] as const] : []
      )
      servers.push({ ...server, env: { ...Object.fromEntries(fromFile), ...server.env } })
    }
    return { ...config, servers }
  }
)
