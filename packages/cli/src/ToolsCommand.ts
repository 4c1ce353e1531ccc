/**
 * `mcp-fleet tools [--config F] [--server S] [--json] [--wait D]`: the tools of every ready server, or of one.
 *
 * Text output is one line per tool — `server__tool`, the read-only hint as `ro` / `rw` / `?`, the first line
 * of the description — and a note on stderr naming the servers whose tools are not listed (not ready). With
 * `--json`, stdout is one JSON document `{ tools, unavailable }` (see `ToolListing.ListingJson`). With
 * `--server S` only that server is started, and a server that does not become ready is an error (exit 1).
 *
 * @since 0.1.0
 */
import type { ConfigError } from "@mcp-fleet/config"
import { ManagerError } from "@mcp-fleet/manager"
import type { McpManager } from "@mcp-fleet/manager"
import { Console, Duration, Effect, Option } from "effect"
import type { FileSystem } from "effect"
import { Command, Flag } from "effect/cli"
import type { ChildProcessSpawner } from "effect/process"
import type { CliEnvironment } from "./CliEnvironment.ts"
import type { RemoteServerNotRunnable, ServerNotConfigured } from "./CliError.ts"
import { StillStarting } from "./CliError.ts"
import * as CliFlags from "./CliFlags.ts"
import * as FleetConfig from "./FleetConfig.ts"
import { awaitSettled, isSettled } from "./Settle.ts"
import * as ToolListing from "./ToolListing.ts"

const print = (manager: McpManager.Service, json: boolean): Effect.Effect<void> =>
  Effect.gen(function*() {
    const tools = manager.tools()
    const unavailable = manager.health().filter((h) => h.state !== "ready")
    if (json) {
      yield* Console.log(JSON.stringify(ToolListing.toJson(tools, unavailable), null, 2))
      return
    }
    if (tools.length > 0) yield* Console.log(ToolListing.renderText(tools))
    if (unavailable.length > 0) {
      const names = unavailable.map((h) => `${h.name} (${h.state})`).join(", ")
      yield* Console.error(`mcp-fleet: no tools listed for ${names}`)
    }
  })

const oneServer = (manager: McpManager.Service, server: string, wait: Duration.Duration) =>
  Effect.gen(function*() {
    yield* awaitSettled(manager, wait)
    const h = yield* manager.serverHealth(server)
    if (h.state === "ready") return
    if (!isSettled(h)) {
      return yield* new StillStarting({
        server,
        waitedMs: Math.round(Duration.toMillis(wait)),
        ...(h.lastError !== undefined ? { lastError: h.lastError } : {})
      })
    }
    return yield* new ManagerError.ServerNotReady({
      server,
      state: h.state,
      ...(h.lastError !== undefined ? { lastError: h.lastError } : {})
    })
  })

/**
 * The parsed flags of `tools`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly config: string
  readonly server: Option.Option<string>
  readonly json: boolean
  readonly wait: Duration.Duration
}

/**
 * Every way `tools` can fail.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolsError =
  | ConfigError.ConfigError
  | ServerNotConfigured
  | RemoteServerNotRunnable
  | StillStarting
  | ManagerError.ServerNotReady
  | ManagerError.UnknownServer

/**
 * The `tools` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command.Command<
  "tools",
  Input,
  {},
  ToolsError,
  CliEnvironment | FileSystem.FileSystem | ChildProcessSpawner.ChildProcessSpawner
> = Command.make(
  "tools",
  {
    config: CliFlags.config,
    server: Flag.String("server").pipe(
      Flag.withAlias("s"),
      Flag.withMetavar("NAME"),
      Flag.withDescription("Only this server (only it is started); fails if it does not become ready."),
      Flag.optional
    ),
    json: CliFlags.json,
    wait: CliFlags.wait("How long to wait for the servers to settle before listing.")
  },
  Effect.fn("mcp-fleet tools")(function*({ config, json, server, wait }) {
    const loaded = yield* FleetConfig.load(config)
    const file = Option.isSome(server) ? yield* FleetConfig.only(loaded, server.value) : loaded
    yield* FleetConfig.withManager(FleetConfig.toManagerOptions(file), (manager) =>
      Effect.gen(function*() {
        if (Option.isSome(server)) yield* oneServer(manager, server.value, wait)
        else yield* awaitSettled(manager, wait)
        yield* print(manager, json)
      }))
  })
).pipe(
  Command.withDescription(
    "List the tools of every ready server as server__tool, with the read-only hint: ro (read-only), rw (writes), ? (not stated: treat as a write)."
  ),
  Command.withExamples([
    { command: "mcp-fleet tools", description: "Every tool of every ready server in ./.mcp.json" },
    { command: "mcp-fleet tools --server memory --json", description: "One server's tools as JSON" }
  ])
)
