/**
 * The MCP reference servers from npm (`@modelcontextprotocol/server-*`), ready to start over stdio: for
 * each one, the command line and environment that run its installed `dist/index.js` with the current
 * Node — never `npx`, never the network.
 *
 * Paths come from the packages installed beside this module (they are devDependencies of
 * `@mcp-fleet/interop`, pinned in the workspace catalog), resolved through their `package.json`.
 *
 * @example
 * ```ts
 * import { ReferenceServers } from "@mcp-fleet/interop"
 * import { McpClient } from "@mcp-fleet/transport"
 *
 * const { command, args, env } = ReferenceServers.command("memory", "/tmp/some-temp-dir")
 * const client = McpClient.make({ command, args, env, name: "memory" })
 * ```
 *
 * @since 0.1.0
 */
import { createRequire } from "node:module"
import * as Path from "node:path"

/**
 * The reference servers this module knows.
 *
 * @since 0.1.0
 * @category models
 */
export type Name = "everything" | "filesystem" | "memory" | "sequential-thinking"

/**
 * Every {@link Name}.
 *
 * @since 0.1.0
 * @category constants
 */
export const names: ReadonlyArray<Name> = ["everything", "filesystem", "memory", "sequential-thinking"]

/**
 * What starts one server: the executable (`process.execPath`), its arguments, and the variables the
 * server needs on top of whatever base environment the caller gives every child. The shape spreads into
 * `McpClient.make` options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Command {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
}

/**
 * The npm package of a reference server.
 *
 * @since 0.1.0
 * @category constants
 */
export const packageName = (name: Name): string => `@modelcontextprotocol/server-${name}`

const require = createRequire(import.meta.url)

const manifestPath = (name: Name): string => require.resolve(`${packageName(name)}/package.json`)

/**
 * The directory where a reference server's package is installed.
 *
 * @since 0.1.0
 * @category paths
 */
export const packageDir = (name: Name): string => Path.dirname(manifestPath(name))

/**
 * The installed version of a reference server's package (read from its `package.json`).
 *
 * @since 0.1.0
 * @category paths
 */
export const version = (name: Name): string => {
  const manifest: unknown = require(manifestPath(name))
  return typeof manifest === "object" && manifest !== null && "version" in manifest &&
      typeof manifest.version === "string"
    ? manifest.version
    : "unknown"
}

/**
 * The server's entry point, `<package>/dist/index.js` (the file its `bin` names).
 *
 * @since 0.1.0
 * @category paths
 */
export const entryPoint = (name: Name): string => Path.join(packageDir(name), "dist", "index.js")

/**
 * The file `memory` keeps its knowledge graph in, for a given temp dir.
 *
 * @since 0.1.0
 * @category paths
 */
export const memoryFile = (tempDir: string): string => Path.join(tempDir, "memory.jsonl")

/**
 * The command that starts a reference server over stdio, with its state under `tempDir`:
 *
 * - `everything`: `index.js stdio`; no state.
 * - `filesystem`: `index.js <tempDir>`: `tempDir` is the only directory it may touch (it must exist).
 * - `memory`: `MEMORY_FILE_PATH=<tempDir>/memory.jsonl` (created on first write).
 * - `sequential-thinking`: `DISABLE_THOUGHT_LOGGING=true` (no thought boxes on stderr); no state.
 *
 * @since 0.1.0
 * @category constructors
 */
export const command = (name: Name, tempDir: string): Command => {
  const entry = entryPoint(name)
  switch (name) {
    case "everything":
      return { command: process.execPath, args: [entry, "stdio"], env: {} }
    case "filesystem":
      return { command: process.execPath, args: [entry, tempDir], env: {} }
    case "memory":
      return { command: process.execPath, args: [entry], env: { MEMORY_FILE_PATH: memoryFile(tempDir) } }
    case "sequential-thinking":
      return { command: process.execPath, args: [entry], env: { DISABLE_THOUGHT_LOGGING: "true" } }
  }
}

/**
 * The commands of every reference server, each keeping its state under `tempDir`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const all = (tempDir: string): Readonly<Record<Name, Command>> => ({
  everything: command("everything", tempDir),
  filesystem: command("filesystem", tempDir),
  memory: command("memory", tempDir),
  "sequential-thinking": command("sequential-thinking", tempDir)
})
