/**
 * `mcp-fleet status [--config F] [--wait D] [--watch]`: the status ledger of the config file's servers.
 *
 * Without `--watch` it starts every server, waits until each has settled (ready, degraded, disabled, or
 * offline with reconnection given up) or `--wait` has passed, prints the manager's `statusLines()` text on
 * stdout — exactly that text — and names on stderr the servers that had not settled. Then it shuts the
 * servers down and exits 0. With `--watch` it shows the ledger live until Ctrl-C (see `Watch`), and follows
 * the config file: a valid edit is applied to the running fleet (`FleetConfig.follow`), an invalid one is
 * reported and changes nothing.
 *
 * @since 0.1.0
 */
import type { ConfigError } from "@mcp-fleet/config"
import type { Duration, FileSystem, Path, Terminal } from "effect"
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import type { ChildProcessSpawner } from "effect/process"
import type { CliEnvironment } from "./CliEnvironment.ts"
import * as CliFlags from "./CliFlags.ts"
import * as DurationText from "./DurationText.ts"
import * as FleetConfig from "./FleetConfig.ts"
import { awaitSettled } from "./Settle.ts"
import * as Watch from "./Watch.ts"

/**
 * The parsed flags of `status`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly config: string
  readonly wait: Duration.Duration
  readonly watch: boolean
}

/**
 * The `status` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command.Command<
  "status",
  Input,
  {},
  ConfigError.ConfigError,
  CliEnvironment | FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner | Terminal.Terminal
> = Command.make(
  "status",
  {
    config: CliFlags.config,
    wait: CliFlags.wait("How long to wait for the servers to settle before printing the ledger."),
    watch: Flag.Boolean("watch").pipe(
      Flag.withAlias("w"),
      Flag.withDescription(
        "Keep running and show every change of the ledger (redrawn in place on a terminal, appended lines otherwise) until Ctrl-C."
      ),
      Flag.withDefault(false)
    )
  },
  Effect.fn("mcp-fleet status")(function*({ config, wait, watch }) {
    const file = yield* FleetConfig.load(config)
    yield* FleetConfig.withManager(FleetConfig.toManagerOptions(file), (manager) =>
      watch
        ? Effect.all([Watch.run(manager), FleetConfig.follow(config, manager)], {
          concurrency: "unbounded",
          discard: true
        })
        : Effect.gen(function*() {
          const unsettled = yield* awaitSettled(manager, wait)
          yield* Console.log(manager.statusLines())
          if (unsettled.length > 0) {
            const names = unsettled.map((h) => `${h.name} (${h.state})`).join(", ")
            yield* Console.error(`mcp-fleet: not settled after ${DurationText.format(wait)}: ${names}`)
          }
        }))
  })
).pipe(
  Command.withDescription(
    "Start the servers of the config file, wait for them to settle, and print the status ledger."
  ),
  Command.withExamples([
    { command: "mcp-fleet status --config ~/.cursor/mcp.json", description: "The ledger of Cursor's servers" },
    { command: "mcp-fleet status --watch", description: "Watch the servers of ./.mcp.json start, live" }
  ])
)
