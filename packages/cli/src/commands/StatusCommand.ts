/**
 * `mcp-fleet status [--config F] [--wait D] [--watch] [--json] [--strict] [--verbose]`: the status ledger of
 * the config file's servers.
 *
 * Without `--watch` it starts every server, waits until each has settled (ready, degraded, disabled, or
 * offline with reconnection given up) or `--wait` has passed, prints the manager's `statusLines()` text on
 * stdout — exactly that text — or with `--json` the `StatusJson` document, and says on stderr which servers had
 * not settled and why each server that is not ready is not (see `Advice`). Then it shuts the servers down and
 * exits 0, or with `--strict` 1 when a server is offline or has not settled. With `--watch` it shows the ledger
 * live until Ctrl-C (see `Watch`), and follows the config file: a valid edit is applied to the running fleet
 * (`FleetConfig.follow`), an invalid one is reported and changes nothing.
 *
 * @since 0.1.0
 */
import type { ConfigError, McpConfig } from "@mcp-fleet/config"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Terminal from "effect/Terminal"
import type { CliEnvironment } from "../CliEnvironment.ts"
import { NotAllUp } from "../CliError.ts"
import * as CliFlags from "../CliFlags.ts"
import * as Diagnostics from "../Diagnostics.ts"
import * as FleetConfig from "../FleetConfig.ts"
import * as OneShot from "../OneShot.ts"
import { isSettled } from "../Settle.ts"
import * as StatusJson from "../StatusJson.ts"
import * as Vocabulary from "../Vocabulary.ts"
import * as Watch from "../Watch.ts"
import * as Prelude from "./Prelude.ts"

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
  readonly json: boolean
  readonly strict: boolean
  readonly verbose: boolean
}

/**
 * Every way `status` can fail.
 *
 * @since 0.1.0
 * @category models
 */
export type StatusError = ConfigError.ConfigError | NotAllUp

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
  StatusError,
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
    ),
    json: CliFlags.json,
    strict: Flag.Boolean("strict").pipe(
      Flag.withDescription(
        "Exit 1 when a server is offline or has not settled when the wait ends (for scripts and health checks)."
      ),
      Flag.withDefault(false)
    ),
    verbose: CliFlags.verbose
  },
  Effect.fn("mcp-fleet status")(function*({ config, json, strict, verbose, wait, watch }) {
    const file = yield* FleetConfig.load(config)
    if (watch) {
      // The manager's own reconnection policy: a watch runs for as long as it is left running. The config file
      // is followed: a valid edit is applied to the running fleet, an invalid one is reported.
      const diagnostics = Diagnostics.make({ verbose })
      const options = { ...OneShot.managerOptions(file, diagnostics), reconnect: undefined }
      // An edited file's servers are built the same way, so that an unchanged entry is left running.
      const servers = (edited: McpConfig.McpConfig) => OneShot.managerOptions(edited, diagnostics).servers
      return yield* FleetConfig.withManager(
        options,
        (manager) =>
          Effect.all([Watch.run(manager), FleetConfig.follow(config, manager, { servers })], {
            concurrency: "unbounded",
            discard: true
          }),
        file.remote
      )
    }
    const target = { _tag: "All" } as const
    yield* Prelude.run(
      { file, verbose, wait, target },
      ({ diagnostics, explain, explainNotReady, manager, unsettled, waited }) =>
        Effect.gen(function*() {
          const healths = manager.health()
          if (json) {
            yield* Console.log(
              JSON.stringify(StatusJson.toJson(healths, (h) => explain(h, waited), diagnostics.stderrOf), null, 2)
            )
          } else {
            yield* Console.log(manager.statusLines())
            const legend = Vocabulary.legend(healths)
            if (legend !== undefined) yield* Console.error(`mcp-fleet: ${legend}`)
          }
          if (unsettled.length > 0) {
            const names = unsettled.map((h) =>
              `${h.name} (${h.state}${
                h.listing === undefined ? "" : h.listing.map((k) => `, ${k}: listing…`).join("")
              })`
            ).join(", ")
            yield* Console.error(`mcp-fleet: not settled after ${waited}: ${names}`)
          }
          for (const line of explainNotReady(waited)) yield* Console.error(line)
          const down = healths.filter((h) => h.state === "offline" || !isSettled(h))
          if (strict && down.length > 0) {
            return yield* new NotAllUp({ servers: down.map((h) => `${h.name} (${h.state})`) })
          }
        })
    )
  })
).pipe(
  Command.withDescription(
    `Start the servers of the config file, wait for them to settle, and print the status ledger. ${Vocabulary.EXPLAINED}`
  ),
  Command.withExamples([
    { command: "mcp-fleet status --config ~/.cursor/mcp.json", description: "The ledger of Cursor's servers" },
    { command: "mcp-fleet status --watch", description: "Watch the servers of ./.mcp.json start, live" },
    { command: "mcp-fleet status --strict --json", description: "For a script: JSON, exit 1 unless all are up" }
  ])
)
