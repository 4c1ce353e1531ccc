/**
 * `mcp-fleet tasks --server S [--json] [--config F] [--wait D] [--verbose]`: the tasks a server keeps for this client
 * (`tasks/list`, 2025-11-25).
 *
 * Text output is one line per task — its id, its status, when it last changed, and its status message — or, on
 * stderr, that there are none. With `--json`, stdout is one document `{ server, tasks }` (each task as `Tasks.Task`).
 * A task lives in its server: a stdio server is started for this command, so the list is of that fresh process (its
 * tasks die with it, and a note on stderr says so); a remote server lists what it keeps for this client. A server
 * that does not declare `tasks.list`, or speaks 2026-07-28 (whose tasks extension has no `tasks/list`), is an error
 * that says so (exit 1). Everything printed is scrubbed of the secrets sent to the server (see `OutputScrub`).
 *
 * @since 0.5.0
 */
import type { ConfigError } from "@mcp-fleet/config"
import type { ManagerError } from "@mcp-fleet/manager"
import type { McpError, Tasks } from "@mcp-fleet/transport"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type { CliEnvironment } from "../CliEnvironment.ts"
import type { ServerNotConfigured, ServerNotUsable } from "../CliError.ts"
import * as CliFlags from "../CliFlags.ts"
import * as ExitCode from "../ExitCode.ts"
import * as FleetConfig from "../FleetConfig.ts"
import * as OutputScrub from "../OutputScrub.ts"
import * as Prelude from "./Prelude.ts"

/**
 * One task's line: id, status, last change, message.
 *
 * @since 0.5.0
 * @category rendering
 */
export const renderTask = (task: Tasks.Task): string =>
  [task.taskId, task.status, task.lastUpdatedAt, task.statusMessage?.replace(/\s+/g, " ") ?? ""].join("  ").trimEnd()

/**
 * What `--json` prints.
 *
 * @since 0.5.0
 * @category models
 */
export interface TasksJson {
  readonly server: string
  readonly tasks: ReadonlyArray<Tasks.Task>
}

/**
 * The parsed flags of `tasks`.
 *
 * @since 0.5.0
 * @category models
 */
export interface Input {
  readonly server: string
  readonly json: boolean
  readonly config: string
  readonly wait: Duration.Duration
  readonly verbose: boolean
}

/**
 * Every way `tasks` can fail.
 *
 * @since 0.5.0
 * @category models
 */
export type TasksError =
  | ConfigError.ConfigError
  | ServerNotConfigured
  | ServerNotUsable
  | ManagerError.UnknownServer
  | ManagerError.ServerUnavailable
  | McpError.ListToolsError
  | McpError.CapabilityNotSupported
  | ExitCode.ExitStatus

/**
 * The `tasks` command.
 *
 * @since 0.5.0
 * @category commands
 */
export const command: Command.Command<
  "tasks",
  Input,
  {},
  TasksError,
  CliEnvironment | FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner
> = Command.make(
  "tasks",
  {
    server: Flag.String("server").pipe(
      Flag.withAlias("s"),
      Flag.withMetavar("NAME"),
      Flag.withDescription("The server whose tasks to list (only it is started).")
    ),
    json: CliFlags.json,
    config: CliFlags.config,
    wait: CliFlags.wait("How long to wait for the server to start before listing."),
    verbose: CliFlags.verbose
  },
  Effect.fn("mcp-fleet tasks")(function*({ config, json, server, verbose, wait }) {
    const loaded = yield* FleetConfig.load(config)
    const file = yield* FleetConfig.only(loaded, server)
    const redaction = OutputScrub.redaction(yield* OutputScrub.secretsOf(file, server))
    const scrubbed = Console.consoleWith((inner) => Effect.succeed(OutputScrub.console(inner, () => redaction)))
    yield* Prelude.run(
      { file, verbose, wait, target: { _tag: "Server", server } },
      (session) =>
        Effect.gen(function*() {
          const client = yield* session.manager.client(server)
          const { tasks } = yield* client.listTasks()
          if (json) {
            const document: TasksJson = { server, tasks }
            return yield* Console.log(JSON.stringify(redaction.value(document), null, 2))
          }
          if (tasks.length > 0) yield* Console.log(tasks.map(renderTask).join("\n"))
          else yield* Console.error(`mcp-fleet: ${server} has no tasks`)
          if (client.transport === "stdio") {
            yield* Console.error(
              `mcp-fleet: ${server} runs over stdio and was started for this command: its tasks live only as long as this process`
            )
          }
        })
    ).pipe(
      Effect.catch((error) =>
        ExitCode.printError(error.message).pipe(
          Effect.andThen(Effect.fail(new ExitCode.ExitStatus({ code: ExitCode.forError(error) })))
        )
      ),
      Effect.provideServiceEffect(Console.Console, scrubbed)
    )
  })
).pipe(
  Command.withDescription(
    "List the tasks a server keeps for this client (tasks/list): id, status, last change, message. A stdio server is started for the command, so its list is of that fresh process; a remote server lists what it keeps."
  ),
  Command.withExamples([
    { command: "mcp-fleet tasks --server research", description: "The tasks of the research server" },
    { command: "mcp-fleet tasks --server research --json", description: "As JSON: { server, tasks }" }
  ])
)
