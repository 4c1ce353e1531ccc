/**
 * From a config file to a running manager: loads the `mcpServers` file with `${VAR}` expansion against the
 * CLI's environment, maps its entries onto `McpManager.layer`'s options (values passed through untouched:
 * the request timeout default stays in the transport), and runs an effect with the manager.
 *
 * @since 0.1.0
 */
import type { ConfigError } from "@mcp-fleet/config"
import { McpConfig } from "@mcp-fleet/config"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { Console, Effect } from "effect"
import type { FileSystem } from "effect"
import type { ChildProcessSpawner } from "effect/process"
import { resolve } from "node:path"
import { CliEnvironment } from "./CliEnvironment.ts"
import { RemoteServerNotRunnable, ServerNotConfigured } from "./CliError.ts"

/**
 * The warning line for a remote (`url`) entry: the CLI does not run remote servers yet, and skips them.
 *
 * @since 0.1.0
 * @category loading
 */
export const remoteSkipped = (entry: McpConfig.RemoteEntry): string =>
  `skipping server ${
    JSON.stringify(entry.name)
  }: it is a remote (${entry.transport}) server, and mcp-fleet runs only stdio servers for now`

/**
 * Reads and decodes the config file (a relative path is resolved against the working directory), expanding
 * `${VAR}` against the CLI's environment and `${userHome}` to the home directory, and writes one
 * `mcp-fleet: <file>: …` line on stderr per warning: each ignored key (once, with a did-you-mean), each entry of
 * an unknown type, each remote entry (skipped: the rest of the file still runs).
 *
 * @since 0.1.0
 * @category loading
 */
export const load = (
  path: string
): Effect.Effect<McpConfig.McpConfig, ConfigError.ConfigError, FileSystem.FileSystem | CliEnvironment> =>
  Effect.gen(function*() {
    const { cwd, env, userHome } = yield* CliEnvironment
    const config = yield* McpConfig.load(cwd === undefined ? path : resolve(cwd, path), { env, userHome })
    const lines = [...config.warnings.map((w) => w.message), ...config.remote.map(remoteSkipped)]
    for (const line of lines) yield* Console.error(`mcp-fleet: ${config.path}: ${line}`)
    return config
  })

/**
 * One config entry as the manager's server options. `env` stays `Redacted`; `requestTimeoutMs` is passed as
 * is (absent stays absent).
 *
 * @since 0.1.0
 * @category mapping
 */
export const toServerConfig = (entry: McpConfig.ServerEntry): ManagerOptions.ServerConfig => ({
  command: entry.command,
  args: entry.args,
  env: entry.env,
  cwd: entry.cwd,
  inheritEnv: entry.inheritEnv,
  disabled: entry.disabled,
  curated: entry.curated,
  requestTimeout: entry.requestTimeoutMs
})

/**
 * The manager's options for every server of the config file.
 *
 * @since 0.1.0
 * @category mapping
 */
export const toManagerOptions = (config: McpConfig.McpConfig): ManagerOptions.ManagerOptions => ({
  servers: Object.fromEntries(config.servers.map((entry) => [entry.name, toServerConfig(entry)]))
})

/**
 * The config reduced to one server, so that commands about one server start only that one. Fails when the
 * file has no such server, or when it is a remote server (not run yet).
 *
 * @since 0.1.0
 * @category mapping
 */
export const only = (
  config: McpConfig.McpConfig,
  server: string
): Effect.Effect<McpConfig.McpConfig, ServerNotConfigured | RemoteServerNotRunnable> => {
  const entry = config.servers.find((s) => s.name === server)
  if (entry !== undefined) return Effect.succeed({ ...config, servers: [entry], remote: [] })
  const remote = config.remote.find((s) => s.name === server)
  return remote !== undefined
    ? Effect.fail(new RemoteServerNotRunnable({ server, transport: remote.transport }))
    : Effect.fail(
      new ServerNotConfigured({ server, configPath: config.path, known: config.servers.map((s) => s.name) })
    )
}

/**
 * Runs `use` with a manager built from `options`; the servers are shut down when it ends, fails or is
 * interrupted (Ctrl-C).
 *
 * @since 0.1.0
 * @category running
 */
export const withManager = <A, E, R>(
  options: ManagerOptions.ManagerOptions,
  use: (manager: McpManager.Service) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, McpManager.McpManager> | ChildProcessSpawner.ChildProcessSpawner> =>
  McpManager.McpManager.pipe(
    Effect.flatMap(use),
    Effect.provide(McpManager.layer(options))
  )
