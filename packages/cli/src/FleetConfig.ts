/**
 * From a config file to a running manager: loads the `mcpServers` file with `${VAR}` expansion against the
 * CLI's environment, maps its entries onto `McpManager.layer`'s options (values passed through untouched:
 * the request timeout default stays in the transport), and runs an effect with the manager.
 *
 * @since 0.1.0
 */
import type { ConfigError } from "@mcp-fleet/config"
import { ConfigWatch, McpConfig } from "@mcp-fleet/config"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import * as Console from "effect/Console"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import { resolve } from "node:path"
import * as CliAuth from "./CliAuth.ts"
import { CliEnvironment } from "./CliEnvironment.ts"
import { ServerNotConfigured } from "./CliError.ts"
import * as RemoteHttp from "./RemoteHttp.ts"
import * as Shutdown from "./Shutdown.ts"

/**
 * Reads and decodes the config file (a relative path is resolved against the working directory), expanding
 * `${VAR}` against the CLI's environment and `${userHome}` to the home directory, and writes one
 * `mcp-fleet: <file>: …` line on stderr per warning: each ignored key (once, with a did-you-mean), each entry of
 * an unknown type.
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
    for (const warning of config.warnings) yield* Console.error(`mcp-fleet: ${config.path}: ${warning.message}`)
    return config
  })

/**
 * One config entry as the manager's server options. `env` stays `Redacted`; `requestTimeoutMs` is passed as
 * is (absent stays absent).
 *
 * @since 0.1.0
 * @category mapping
 */
export const toServerConfig = (entry: McpConfig.ServerEntry): ManagerOptions.StdioServerConfig => ({
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
 * One remote (`url`) entry as the manager's server options. The URL and headers stay `Redacted`. The file's
 * `"http"` (or no `type`, which the config reads as `"http"`) becomes `auto`: Streamable HTTP, falling back to the
 * legacy HTTP+SSE transport only when the server refuses `initialize` the way the spec's detection describes.
 *
 * @since 0.2.0
 * @category mapping
 */
export const toRemoteServerConfig = (entry: McpConfig.RemoteEntry): ManagerOptions.RemoteServerConfig => ({
  url: entry.url,
  headers: entry.headers,
  transport: entry.transport === "sse" ? "sse" : "auto",
  disabled: entry.disabled,
  curated: entry.curated,
  requestTimeout: entry.requestTimeoutMs
})

/**
 * The manager's options for every server of the config file, local and remote.
 *
 * @since 0.1.0
 * @category mapping
 */
export const toManagerOptions = (config: McpConfig.McpConfig): ManagerOptions.ManagerOptions => ({
  servers: Object.fromEntries([
    ...config.servers.map((entry) => [entry.name, toServerConfig(entry)] as const),
    ...config.remote.map((entry) => [entry.name, toRemoteServerConfig(entry)] as const)
  ]),
  authorizationAdvice: CliAuth.adviceFor(config.remote)
})

/**
 * The config reduced to one server (local or remote), so that commands about one server start only that one.
 * Fails when the file has no such server.
 *
 * @since 0.1.0
 * @category mapping
 */
export const only = (
  config: McpConfig.McpConfig,
  server: string
): Effect.Effect<McpConfig.McpConfig, ServerNotConfigured> => {
  const entry = config.servers.find((s) => s.name === server)
  if (entry !== undefined) return Effect.succeed({ ...config, servers: [entry], remote: [] })
  const remote = config.remote.find((s) => s.name === server)
  return remote !== undefined
    ? Effect.succeed({ ...config, servers: [], remote: [remote] })
    : Effect.fail(
      new ServerNotConfigured({
        server,
        configPath: config.path,
        known: [...config.servers, ...config.remote].map((s) => s.name)
      })
    )
}

/**
 * Runs `use` with a manager built from `options`; the servers are shut down when it ends, fails or is
 * interrupted (Ctrl-C: see `Shutdown.notice`). `remote` are the config's remote entries, for their `auth` settings.
 *
 * @since 0.1.0
 * @category running
 */
export const withManager = <A, E, R>(
  options: ManagerOptions.ManagerOptions,
  use: (manager: McpManager.Service) => Effect.Effect<A, E, R>,
  remote: ReadonlyArray<McpConfig.RemoteEntry> = []
): Effect.Effect<
  A,
  E,
  | Exclude<R, McpManager.McpManager>
  | ChildProcessSpawner.ChildProcessSpawner
  | CliEnvironment
  | FileSystem.FileSystem
  | Path.Path
> =>
  Effect.scoped(
    McpManager.McpManager.pipe(
      // Ctrl-C: a line names the servers slow to exit, and a second one kills them (Shutdown).
      Effect.flatMap((manager) => Shutdown.noticeOnInterrupt(manager, use(manager))),
      Effect.provide(McpManager.layer(options)),
      RemoteHttp.whenRemote(options, remote)
    )
  )

/**
 * Keeps `manager`'s fleet in step with the config file until interrupted: each settled edit is re-read and,
 * when valid, applied with `reconcile` (new servers added, deleted ones removed, changed ones updated, identical
 * ones left alone). An invalid or half-written edit is logged once and the running fleet is left as it was. If
 * the file cannot be watched, that is logged and the fleet simply stays as loaded.
 *
 * @since 0.2.0
 * @category running
 */
export const follow = (
  path: string,
  manager: McpManager.McpManager["Service"],
  options: {
    readonly debounce?: Duration.Input | undefined
    readonly onReady?: (() => void) | undefined
    /** How a re-read file becomes the fleet's servers: the same function that built the running fleet, so that an
     * unchanged entry compares equal and is left alone (default: `toManagerOptions`). */
    readonly servers?: ((config: McpConfig.McpConfig) => ManagerOptions.ManagerOptions["servers"]) | undefined
  } = {}
): Effect.Effect<void, never, FileSystem.FileSystem | Path.Path | CliEnvironment> =>
  Effect.gen(function*() {
    const { cwd, env, userHome } = yield* CliEnvironment
    const watching = yield* Deferred.make<void>()
    // At debug level (`--log-level debug`), say when edits start to be seen.
    yield* Deferred.await(watching).pipe(
      Effect.andThen(Effect.logDebug(`following ${path} for edits`)),
      Effect.forkChild
    )
    const onReady = () => {
      Deferred.doneUnsafe(watching, Exit.void)
      options.onReady?.()
    }
    const file = cwd === undefined ? path : resolve(cwd, path)
    yield* ConfigWatch.watch(file, { env, userHome, debounce: options.debounce, onReady }).pipe(
      Stream.runForEach((result) =>
        result._tag === "Success"
          ? manager.reconcile((options.servers ?? ((config) => toManagerOptions(config).servers))(result.success))
          : Effect.logWarning(
            `the edit of ${path} was not applied (the servers keep running as they were): ${result.failure.message}`
          )
      ),
      Effect.catch((error) => Effect.logWarning(`${path} cannot be watched for edits: ${error.message}`))
    )
  })
