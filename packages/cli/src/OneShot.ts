/**
 * The common run of the one-shot commands (`status`, `tools`, `call`): load the config, start its servers with
 * their stderr fed to `Diagnostics` and a reconnection policy that answers quickly, show progress while waiting,
 * and explain the servers that are not ready.
 *
 * One-shot commands retry a crashed server at most twice (after 0.2 s and 0.4 s) instead of the manager's default
 * policy: a server that exits at every start is reported as such within a second or two, rather than as "still
 * reconnecting" when the wait runs out.
 *
 * @since 0.1.0
 */
import type { McpConfig } from "@mcp-fleet/config"
import type { ManagerOptions, ServerHealth } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import type { ClientHandlers, ProtocolFeatures } from "@mcp-fleet/transport"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Advice from "./Advice.ts"
import * as CliAuth from "./CliAuth.ts"
import { CliEnvironment } from "./CliEnvironment.ts"
import { ServerNotUsable } from "./CliError.ts"
import * as Diagnostics from "./Diagnostics.ts"
import * as FleetConfig from "./FleetConfig.ts"
import * as OutputScrub from "./OutputScrub.ts"
import * as RemoteHttp from "./RemoteHttp.ts"
import * as Shutdown from "./Shutdown.ts"

/**
 * The reconnection policy of one-shot commands.
 *
 * @since 0.1.0
 * @category constants
 */
export const RECONNECT: ManagerOptions.ReconnectPolicy = {
  initialDelay: "200 millis",
  maxDelay: "1 second",
  maxAttempts: 2
}

/**
 * A running fleet of a one-shot command.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session {
  readonly manager: McpManager.McpManager["Service"]
  readonly config: McpConfig.McpConfig
  readonly diagnostics: Diagnostics.Diagnostics
  /** Why `h` is not ready (see `Advice.explain`). */
  readonly explain: (h: ServerHealth.ServerHealth, waited: string) => string
  /** Fails with `ServerNotUsable` (explained) unless `server` is in one of the `accepted` states (default ready). */
  readonly requireReady: (
    server: string,
    waited: string,
    accepted?: ReadonlyArray<ServerHealth.ServerHealth["state"]>
  ) => Effect.Effect<void, ServerNotUsable>
  /**
   * The explanation of every server that is not ready, except disabled ones and those still starting that wrote
   * nothing on stderr (the "not settled" line names those), one `mcp-fleet: …` block each.
   */
  readonly explainNotReady: (waited: string) => ReadonlyArray<string>
}

/**
 * The RFC 5424 level asked of servers for the CLI's `--log-level`: `all`/`trace`/`debug` → `debug`, `fatal` →
 * `critical`, `none` → `emergency`.
 *
 * @since 0.3.0
 * @category mapping
 */
export const toServerLogLevel = (level: LogLevel.LogLevel): ProtocolFeatures.LoggingLevel => {
  switch (level) {
    case "All":
    case "Trace":
    case "Debug":
      return "debug"
    case "Info":
      return "info"
    case "Warn":
      return "warning"
    case "Error":
      return "error"
    case "Fatal":
      return "critical"
    case "None":
      return "emergency"
  }
}

/**
 * The manager's options for a config, with each server's stderr fed to `diagnostics`.
 *
 * @since 0.1.0
 * @category mapping
 */
export const managerOptions = (
  config: McpConfig.McpConfig,
  diagnostics: Diagnostics.Diagnostics,
  logLevel: Option.Option<LogLevel.LogLevel> = Option.none()
): ManagerOptions.ManagerOptions => ({
  ...(Option.isSome(logLevel) ? { serverLogLevel: toServerLogLevel(logLevel.value) } : {}),
  servers: Object.fromEntries([
    ...config.servers.map((entry) =>
      [entry.name, {
        ...FleetConfig.toServerConfig(entry),
        client: { onStderrLine: diagnostics.onStderrLine(entry.name), ...Shutdown.clientOptions }
      }] as const
    ),
    // A remote server has no stderr to feed.
    ...config.remote.map((entry) => [entry.name, FleetConfig.toRemoteServerConfig(entry)] as const)
  ]),
  reconnect: RECONNECT,
  authorizationAdvice: CliAuth.adviceFor(config.remote)
})

/**
 * Starts the servers of `config` and runs `use` with them; progress is drawn until `use` ends (or calls
 * `diagnostics.stop`), and the servers are shut down when it ends, fails or is interrupted. `handlers` answer what
 * the servers ask of the client (the manager's fleet-wide handlers).
 *
 * @since 0.1.0
 * @category running
 */
export const run = <A, E, R>(
  config: McpConfig.McpConfig,
  verbose: boolean,
  use: (session: Session) => Effect.Effect<A, E, R>,
  handlers?: ClientHandlers.ClientHandlers
): Effect.Effect<
  A,
  E,
  R | CliEnvironment | ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function*() {
    const { terminalStderr } = yield* CliEnvironment
    const diagnostics = Diagnostics.make({
      verbose,
      progress: terminalStderr === undefined ? undefined : (text) => Effect.sync(() => terminalStderr(text))
    })
    const explain = (h: ServerHealth.ServerHealth, waited: string) =>
      Advice.explain(h, config.servers.find((s) => s.name === h.name), diagnostics.stderrOf(h.name), waited)
    // `--log-level` (a global flag) is forwarded to the servers that declare `logging`.
    const logLevel = Option.flatten(yield* Effect.serviceOption(GlobalFlag.LogLevel))
    const options = { ...managerOptions(config, diagnostics, logLevel), handlers }
    return yield* Effect.scoped(
      Effect.gen(function*() {
        const manager = yield* McpManager.McpManager
        yield* diagnostics.watch(manager)
        const requireReady = (
          server: string,
          waited: string,
          accepted: ReadonlyArray<ServerHealth.ServerHealth["state"]> = ["ready"]
        ) =>
          Effect.gen(function*() {
            const h = manager.health().find((s) => s.name === server)
            if (h === undefined || accepted.includes(h.state)) return
            return yield* new ServerNotUsable({ server, state: h.state, explanation: explain(h, waited) })
          })
        const explainNotReady = (waited: string) =>
          manager.health().flatMap((h) => {
            const quiet = h.state === "starting" && diagnostics.stderrOf(h.name).length === 0
            return h.state === "ready" || h.state === "disabled" || quiet ? [] : [`mcp-fleet: ${explain(h, waited)}`]
          })
        // Ctrl-C: a line names the servers slow to exit, and a second one kills them (Shutdown).
        return yield* Shutdown.noticeOnInterrupt(
          manager,
          use({ manager, config, diagnostics, explain, requireReady, explainNotReady })
        )
      }).pipe(Effect.provide(McpManager.layer(options)), RemoteHttp.whenRemote(options, config.remote))
    ).pipe(
      // Whatever is printed while the servers run (results, tool lists, logs) holds none of the secrets sent them.
      OutputScrub.scrubbing(config)
    )
  })
