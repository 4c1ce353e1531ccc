/**
 * `mcp-fleet tools [--config F] [--server S] [--json] [--wait D] [--verbose]`: the tools of every ready server,
 * or of one.
 *
 * Text output is one line per tool — `server__tool` (the name `call` takes), the read-only hint as `ro` / `rw` /
 * `?`, the first line of the description — and on stderr a note naming the servers whose tools are not listed
 * and why each is not ready. With `--json`, stdout is one JSON document `{ tools, unavailable }` (see
 * `ToolListing.ListingJson`). With `--server S` only that server is started, and a server that does not become
 * ready is an error (exit 1) that says why.
 *
 * @since 0.1.0
 */
import type { ConfigError } from "@mcp-fleet/config"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type { CliEnvironment } from "../CliEnvironment.ts"
import type { ServerNotConfigured, ServerNotUsable } from "../CliError.ts"
import * as CliFlags from "../CliFlags.ts"
import { isStateSettled } from "../Settle.ts"
import * as ToolListing from "../ToolListing.ts"
import * as Vocabulary from "../Vocabulary.ts"
import * as Prelude from "./Prelude.ts"

const print = (session: Prelude.Settled, json: boolean): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { manager, waited } = session
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
    for (const line of session.explainNotReady(waited)) yield* Console.error(line)
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
  readonly verbose: boolean
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
  | ServerNotUsable

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
  CliEnvironment | FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner
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
    wait: CliFlags.wait("How long to wait for the servers to settle before listing."),
    verbose: CliFlags.verbose
  },
  Effect.fn("mcp-fleet tools")(function*({ config, json, server, verbose, wait }) {
    const file = yield* Prelude.load(config, server)
    const target = { _tag: "Fleet", only: server, settled: isStateSettled } as const
    yield* Prelude.run({ file, verbose, wait, target }, (session) => print(session, json))
  })
).pipe(
  Command.withDescription(
    `List the tools of every ready server as server__tool (the name call takes), with the read-only hint. ${Vocabulary.MARKERS}`
  ),
  Command.withExamples([
    { command: "mcp-fleet tools", description: "Every tool of every ready server in ./.mcp.json" },
    { command: "mcp-fleet tools --server memory --json", description: "One server's tools as JSON" }
  ])
)
