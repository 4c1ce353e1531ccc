/**
 * The `mcp-fleet` command line: `status`, `tools`, `call` and `demo` under one root, run with Unix
 * conventions — data on stdout, diagnostics and logs on stderr, exit codes from `ExitCode`.
 *
 * @since 0.1.0
 */
import { BaseEnvironment } from "@mcp-fleet/transport"
import * as CliConfig from "effect/cli/CliConfig"
import * as Command from "effect/cli/Command"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as References from "effect/References"
import type * as Stdio from "effect/Stdio"
import type * as Terminal from "effect/Terminal"
import { CliEnvironment } from "./CliEnvironment.ts"
import type { DemoFailed } from "./CliError.ts"
import * as CliFlags from "./CliFlags.ts"
import * as CliLogger from "./CliLogger.ts"
import * as CliPresenter from "./CliPresenter.ts"
import * as AuthCommand from "./commands/AuthCommand.ts"
import * as CallCommand from "./commands/CallCommand.ts"
import * as DemoCommand from "./commands/DemoCommand.ts"
import * as PromptsCommand from "./commands/PromptsCommand.ts"
import * as ResourcesCommand from "./commands/ResourcesCommand.ts"
import * as ServeCommand from "./commands/ServeCommand.ts"
import * as StatusCommand from "./commands/StatusCommand.ts"
import * as TasksCommand from "./commands/TasksCommand.ts"
import * as ToolsCommand from "./commands/ToolsCommand.ts"
import * as ExitCode from "./ExitCode.ts"

/**
 * The version `--version` prints.
 *
 * @since 0.1.0
 * @category constants
 */
export const VERSION = "0.1.0"

/**
 * The root command with its subcommands.
 *
 * @since 0.1.0
 * @category commands
 */
export const root: Command.Command<
  "mcp-fleet",
  {},
  {},
  | CallCommand.CallError
  | ToolsCommand.ToolsError
  | StatusCommand.StatusError
  | DemoFailed
  | ResourcesCommand.ResourcesError
  | PromptsCommand.PromptsError
  | AuthCommand.AuthError
  | ServeCommand.ServeError
  | TasksCommand.TasksError,
  | CliEnvironment
  | FileSystem.FileSystem
  | Path.Path
  | ChildProcessSpawner.ChildProcessSpawner
  | Terminal.Terminal
  | Stdio.Stdio
> = Command.make("mcp-fleet").pipe(
  Command.withDescription(
    "Run the MCP servers of an mcpServers config file (Claude Desktop, Cursor, Claude Code, VS Code) with @mcp-fleet/manager: their status ledger, their tools, a tool call, or a narrated demo."
  ),
  Command.withSubcommands([
    StatusCommand.command,
    ToolsCommand.command,
    CallCommand.command,
    DemoCommand.command,
    ResourcesCommand.list,
    ResourcesCommand.read,
    PromptsCommand.list,
    PromptsCommand.get,
    AuthCommand.command,
    ServeCommand.command,
    TasksCommand.command
  ])
)

/**
 * The built-in global flags kept: `--help`, `--version`, `--completions` and `--log-level` (effect/cli's
 * interactive `--wizard` is left out).
 *
 * @since 0.1.0
 * @category constants
 */
export const builtIns: ReadonlyArray<GlobalFlag.BuiltIn> = [
  GlobalFlag.Help,
  GlobalFlag.Version,
  GlobalFlag.Completions,
  GlobalFlag.LogLevel
]

/**
 * Runs the command line `args` (without `node` and the script). Succeeds when the command did; otherwise the
 * failure has been written to stderr and the effect fails with an `ExitCode.ExitStatus` that carries the exit
 * code for `NodeRuntime.runMain`. Effect logs go to stderr, formatted by `CliLogger`.
 *
 * @example
 * ```ts
 * import { NodeRuntime, NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { CliEnvironment, Main } from "@mcp-fleet/cli"
 *
 * Main.run(["status", "--config", "mcp.json"]).pipe(
 *   Effect.provide([CliEnvironment.layer({ env: process.env, execPath: process.execPath }), NodeServices.layer]),
 *   NodeRuntime.runMain({ disableErrorReporting: true })
 * )
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export const run = (
  args: ReadonlyArray<string>
): Effect.Effect<void, ExitCode.ExitStatus, CliEnvironment | Command.Environment> => {
  const logLevel = CliFlags.logLevelIn(args)
  return Command.runWith(root, { version: VERSION })(args).pipe(
    ExitCode.report,
    // `effect/cli` applies --log-level inside the command's handler only; a defect is reported outside it, where
    // --log-level debug must show the stack as the one-line message promises.
    logLevel === undefined ? identity : Effect.provideService(References.MinimumLogLevel, logLevel),
    Effect.provide(Layer.mergeAll(
      CliPresenter.layer,
      CliConfig.layer({ builtIns }),
      Layer.succeed(Logger.LogToStderr, true),
      Logger.layer([CliLogger.logger])
    )),
    // Every server's child starts from the variables of the CLI's own environment that launchers need
    // (`BaseEnvironment.DEFAULT_VARIABLES`, `XDG_*`): the transport reads no environment itself.
    Effect.provideServiceEffect(
      BaseEnvironment.BaseEnvironment,
      Effect.map(CliEnvironment, ({ env }) => BaseEnvironment.pick(env))
    )
  )
}
