/**
 * `mcp-fleet call <server> <tool> [--args JSON] [--timeout D] [--config F] [--wait D]`: calls one tool.
 *
 * Only that server is started. The call waits (up to `--wait`) for the server to settle, then goes to it and
 * only there. The result is printed on stdout (see `CallOutput`); a result with `isError: true` prints its text
 * on stderr and exits 1, as do typed failures (timeout, remote error, server offline or disabled…).
 *
 * @since 0.1.0
 */
import type { ConfigError } from "@mcp-fleet/config"
import type { ManagerError } from "@mcp-fleet/manager"
import type { McpError } from "@mcp-fleet/transport"
import type { FileSystem } from "effect"
import { Console, Duration, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { ChildProcessSpawner } from "effect/process"
import * as CallOutput from "./CallOutput.ts"
import type { CliEnvironment } from "./CliEnvironment.ts"
import type { RemoteServerNotRunnable, ServerNotConfigured } from "./CliError.ts"
import { InvalidArguments, StillStarting, ToolReportedError } from "./CliError.ts"
import * as CliFlags from "./CliFlags.ts"
import * as FleetConfig from "./FleetConfig.ts"
import { awaitServer, isSettled } from "./Settle.ts"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Reads `--args`: absent is `{}`; anything but a JSON object is an `InvalidArguments` error.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseArguments = (
  text: Option.Option<string>
): Effect.Effect<Readonly<Record<string, unknown>>, InvalidArguments> =>
  Option.match(text, {
    onNone: () => Effect.succeed({}),
    onSome: (json) =>
      Effect.try({
        try: (): unknown => JSON.parse(json),
        catch: (error) =>
          new InvalidArguments({ reason: `it is not valid JSON (${error instanceof Error ? error.message : error})` })
      }).pipe(
        Effect.flatMap((value) =>
          isRecord(value)
            ? Effect.succeed(value)
            : Effect.fail(
              new InvalidArguments({ reason: `got ${Array.isArray(value) ? "an array" : JSON.stringify(value)}` })
            )
        )
      )
  })

/**
 * The parsed arguments and flags of `call`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly server: string
  readonly tool: string
  readonly args: Option.Option<string>
  readonly timeout: Option.Option<Duration.Duration>
  readonly config: string
  readonly wait: Duration.Duration
}

/**
 * Every way `call` can fail.
 *
 * @since 0.1.0
 * @category models
 */
export type CallError =
  | ConfigError.ConfigError
  | InvalidArguments
  | ServerNotConfigured
  | RemoteServerNotRunnable
  | StillStarting
  | ToolReportedError
  | ManagerError.UnknownServer
  | ManagerError.ServerUnavailable
  | McpError.CallToolError

/**
 * The `call` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command.Command<
  "call",
  Input,
  {},
  CallError,
  CliEnvironment | FileSystem.FileSystem | ChildProcessSpawner.ChildProcessSpawner
> = Command.make(
  "call",
  {
    server: Argument.String("server").pipe(Argument.withDescription("The server, as named in the config file.")),
    tool: Argument.String("tool").pipe(Argument.withDescription("The tool's own name (without the server prefix).")),
    args: Flag.String("args").pipe(
      Flag.withAlias("a"),
      Flag.withMetavar("JSON"),
      Flag.withDescription("The tool's arguments, a JSON object. Default: {}."),
      Flag.optional
    ),
    timeout: CliFlags.timeout,
    config: CliFlags.config,
    wait: CliFlags.wait("How long to wait for the server to start before calling.")
  },
  Effect.fn("mcp-fleet call")(function*({ args, config, server, timeout, tool, wait }) {
    const toolArgs = yield* parseArguments(args)
    const file = yield* FleetConfig.only(yield* FleetConfig.load(config), server)
    yield* FleetConfig.withManager(FleetConfig.toManagerOptions(file), (manager) =>
      Effect.gen(function*() {
        const settled = yield* awaitServer(manager, server, isSettled, wait)
        if (settled === undefined) {
          const h = yield* manager.serverHealth(server)
          return yield* new StillStarting({
            server,
            waitedMs: Math.round(Duration.toMillis(wait)),
            ...(h.lastError !== undefined ? { lastError: h.lastError } : {})
          })
        }
        const result = yield* manager.call(
          server,
          tool,
          toolArgs,
          Option.isSome(timeout) ? { timeout: timeout.value } : undefined
        )
        if (result.isError === true) {
          return yield* new ToolReportedError({ server, tool, text: CallOutput.renderContent(result) })
        }
        yield* Console.log(CallOutput.render(result))
      }))
  })
).pipe(
  Command.withDescription(
    "Call one tool on one server and print its result: structured content as JSON, otherwise its text."
  ),
  Command.withExamples([
    {
      command: "mcp-fleet call memory search_nodes --args '{\"query\":\"ada\"}'",
      description: "Call search_nodes on the memory server"
    },
    { command: "mcp-fleet call fs list_allowed_directories --timeout 5s", description: "With a 5 s deadline" }
  ])
)
