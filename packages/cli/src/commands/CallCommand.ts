/**
 * `mcp-fleet call <server> <tool> | <server__tool> [--args JSON] [--timeout D] [--json] [--output FILE]
 * [--config F] [--wait D] [--verbose]`: calls one tool.
 *
 * The tool is named by server and tool, or as one `server__tool` as `tools` prints it. Only that server is
 * started. The call waits (up to `--wait`) for the server to settle, checks that it lists the tool (else a
 * did-you-mean, exit 2), then goes to it and only there. The result is printed on stdout (see `CallOutput`), or
 * with `--json` as the raw `CallOutput.CallJson`; `--output FILE` writes the first image / audio block's bytes
 * to FILE. A result with `isError: true` prints its text on stderr and exits 1, as do typed failures (timeout,
 * remote error, a server that is not ready, said why). Everything it prints, on stdout and stderr, `--json`
 * included, is scrubbed of the secrets it sent the server (see `OutputScrub`); the bytes `--output` writes are not.
 *
 * @since 0.1.0
 */
import type { ConfigError, McpConfig } from "@mcp-fleet/config"
import { DidYouMean } from "@mcp-fleet/config"
import type { ManagerError } from "@mcp-fleet/manager"
import type { McpError, ProtocolFeatures, Tasks } from "@mcp-fleet/transport"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Terminal from "effect/Terminal"
import * as CallOutput from "../CallOutput.ts"
import * as CallProgress from "../CallProgress.ts"
import { CliEnvironment } from "../CliEnvironment.ts"
import type { ServerNotConfigured, ServerNotUsable } from "../CliError.ts"
import {
  InvalidArguments,
  NoBinaryContent,
  OutputUnwritable,
  ToolReportedError,
  UnknownQualifiedName,
  UnknownTool
} from "../CliError.ts"
import * as CliFlags from "../CliFlags.ts"
import * as ElicitationPrompt from "../ElicitationPrompt.ts"
import * as ExitCode from "../ExitCode.ts"
import * as FleetConfig from "../FleetConfig.ts"
import * as OutputScrub from "../OutputScrub.ts"
import * as SamplingPrompt from "../SamplingPrompt.ts"
import { SEPARATOR } from "../ToolListing.ts"
import * as Prelude from "./Prelude.ts"

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
 * Splits `server__tool` at the longest server name of the config (stdio or remote) that it starts with, then
 * `__`: server and tool names may themselves contain `__`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const splitQualified = (
  config: McpConfig.McpConfig,
  name: string
): Effect.Effect<{ readonly server: string; readonly tool: string }, UnknownQualifiedName> => {
  const servers = [...config.servers, ...config.remote].map((s) => s.name)
  const server = servers
    .filter((s) => name.startsWith(`${s}${SEPARATOR}`) && name.length > s.length + SEPARATOR.length)
    .sort((a, b) => b.length - a.length)[0]
  return server === undefined
    ? Effect.fail(new UnknownQualifiedName({ name, configPath: config.path }))
    : Effect.succeed({ server, tool: name.slice(server.length + SEPARATOR.length) })
}

/**
 * The parsed arguments and flags of `call`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly server: string
  readonly tool: Option.Option<string>
  readonly args: Option.Option<string>
  readonly timeout: Option.Option<Duration.Duration>
  readonly json: boolean
  readonly output: Option.Option<string>
  readonly config: string
  readonly wait: Duration.Duration
  readonly verbose: boolean
  readonly elicitation: ElicitationPrompt.Mode
  readonly sampling: SamplingPrompt.Mode
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
  | ServerNotUsable
  | UnknownTool
  | UnknownQualifiedName
  | NoBinaryContent
  | OutputUnwritable
  | ToolReportedError
  | ManagerError.UnknownServer
  | ManagerError.ServerUnavailable
  | McpError.CallToolError
  | ExitCode.ExitStatus

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
  CliEnvironment | FileSystem.FileSystem | Path.Path | Terminal.Terminal | ChildProcessSpawner.ChildProcessSpawner
> = Command.make(
  "call",
  {
    server: Argument.String("server").pipe(
      Argument.withDescription("The server, as named in the config file; or server__tool, as `tools` prints it.")
    ),
    tool: Argument.String("tool").pipe(
      Argument.withDescription("The tool's own name (without the server prefix)."),
      Argument.optional
    ),
    args: Flag.String("args").pipe(
      Flag.withAlias("a"),
      Flag.withMetavar("JSON"),
      Flag.withDescription("The tool's arguments, a JSON object. Default: {}."),
      Flag.optional
    ),
    timeout: CliFlags.timeout,
    json: Flag.Boolean("json").pipe(
      Flag.withDescription(
        "Print the raw result as JSON on stdout: { server, tool, isError, content, structuredContent }, content blocks as sent (images and audio as base64)."
      ),
      Flag.withDefault(false)
    ),
    output: Flag.String("output").pipe(
      Flag.withAlias("o"),
      Flag.withMetavar("FILE"),
      Flag.withDescription("Write the bytes of the result's first image or audio block (or binary resource) to FILE."),
      Flag.optional
    ),
    config: CliFlags.config,
    wait: CliFlags.wait("How long to wait for the server to start before calling."),
    verbose: CliFlags.verbose,
    elicitation: Flag.Literals("elicitation", ElicitationPrompt.MODES).pipe(
      Flag.withDescription(
        "How to answer a server that asks for input during the call: ask (on a terminal; declined without one), accept-defaults (accept a form whose required fields all have defaults, decline the rest: for scripts) or decline."
      ),
      Flag.withDefault("ask")
    ),
    sampling: Flag.Literals("sampling", SamplingPrompt.MODES).pipe(
      Flag.withDescription(
        "How to answer a server that asks to sample a language model during the call: ask (on a terminal you type the model's answer; refused without one) or decline."
      ),
      Flag.withDefault("ask")
    )
  },
  Effect.fn("mcp-fleet call")(function*(
    {
      args,
      config,
      elicitation: answering,
      json,
      output,
      sampling: sampler,
      server: target,
      timeout,
      tool,
      verbose,
      wait
    }
  ) {
    const toolArgs = yield* parseArguments(args)
    const loaded = yield* FleetConfig.load(config)
    const named = Option.isSome(tool)
      ? { server: target, tool: tool.value }
      : yield* splitQualified(loaded, target)
    const { server } = named
    const file = yield* FleetConfig.only(loaded, server)
    // Everything printed from here on is scrubbed of the secrets sent to the server, tokens refreshed during the
    // call included (the store is read again once the call has answered, and before a failure is printed).
    let redaction = OutputScrub.redaction(yield* OutputScrub.secretsOf(file, server))
    const rescan = Effect.map(OutputScrub.secretsOf(file, server), (secrets) => {
      redaction = OutputScrub.redaction(secrets)
    })
    // A server that elicits during the call is answered as --elicitation says: by default on the terminal, or
    // refused when there is none.
    const elicitation = yield* ElicitationPrompt.forMode(answering)
    // A server that samples during the call is answered as --sampling says: the user types the model's answer.
    const sampling = yield* SamplingPrompt.forMode(sampler)
    const scrubbed = Console.consoleWith((inner) => Effect.succeed(OutputScrub.console(inner, () => redaction)))
    const settle = { _tag: "Server", server } as const
    yield* Prelude.run(
      { file, verbose, wait, target: settle, handlers: { elicitation, sampling } },
      (session) =>
        Effect.gen(function*() {
          const { manager } = session
          const h = yield* manager.serverHealth(server)
          const offered = h.tools.map((t) => t.name)
          if (h.state === "ready" && !offered.includes(named.tool)) {
            const suggestion = DidYouMean.suggest(named.tool, offered)
            return yield* new UnknownTool({
              server,
              tool: named.tool,
              ...(suggestion === undefined ? {} : { suggestion })
            })
          }
          // On a terminal, the tool's progress reports and its task's statuses are drawn as one line, cleared before
          // the result prints; elsewhere each task status is one line on stderr (a task may run for minutes).
          const { terminalStderr } = yield* CliEnvironment
          const label = `${server}${SEPARATOR}${named.tool}`
          const draw = terminalStderr === undefined ? undefined : (text: string) => terminalStderr(redaction.text(text))
          let drawn = false
          const onTaskStatus = (status: Tasks.Task) =>
            draw === undefined ? Console.error(`mcp-fleet: ${CallProgress.task(label, status)}`) : Effect.sync(() => {
              drawn = true
              draw(CallProgress.redraw(CallProgress.task(label, status)))
            })
          const result = yield* manager.call(server, named.tool, toolArgs, {
            ...(Option.isSome(timeout) ? { timeout: timeout.value } : {}),
            onTaskStatus,
            ...(draw === undefined ? {} : {
              onProgress: (report: ProtocolFeatures.Progress) =>
                Effect.sync(() => {
                  drawn = true
                  draw(CallProgress.redraw(CallProgress.line(label, report)))
                })
            })
          }).pipe(Effect.ensuring(Effect.sync(() => drawn && draw?.(CallProgress.clear))))
          yield* rescan
          if (json) {
            yield* Console.log(JSON.stringify(redaction.value(CallOutput.toJson(server, named.tool, result)), null, 2))
          }
          if (result.isError === true) {
            const text = redaction.text(CallOutput.renderContent(result))
            return yield* new ToolReportedError({ server, tool: named.tool, text })
          }
          if (Option.isSome(output)) {
            const binary = CallOutput.firstBinary(result)
            if (binary === undefined) return yield* new NoBinaryContent({ tool: named.tool, path: output.value })
            const fs = yield* FileSystem.FileSystem
            yield* fs.writeFile(output.value, binary.bytes).pipe(
              Effect.mapError((error) => new OutputUnwritable({ path: output.value, reason: error.reason._tag }))
            )
            yield* Console.error(
              `mcp-fleet: wrote ${binary.bytes.length} bytes (${binary.mimeType}) to ${output.value}`
            )
          }
          if (!json) yield* Console.log(redaction.text(CallOutput.render(result)))
        })
    ).pipe(
      // A failure is printed here, through the scrubbing console, and ends the run with its exit code.
      Effect.catch((error) =>
        rescan.pipe(
          Effect.andThen(ExitCode.printError(error.message)),
          Effect.andThen(Effect.fail(new ExitCode.ExitStatus({ code: ExitCode.forError(error) })))
        )
      ),
      Effect.provideServiceEffect(Console.Console, scrubbed)
    )
  })
).pipe(
  Command.withDescription(
    "Call one tool on one server and print its result: structured content as JSON, otherwise its text. Everything printed (stdout and stderr, --json included) is scrubbed of the secrets sent to that server: its env values, header values and URL password from the config file, and its OAuth tokens; each becomes <redacted>."
  ),
  Command.withExamples([
    {
      command: "mcp-fleet call memory search_nodes --args '{\"query\":\"ada\"}'",
      description: "Call search_nodes on the memory server"
    },
    { command: "mcp-fleet call fs list_allowed_directories --timeout 5s", description: "With a 5 s deadline" },
    { command: "mcp-fleet call memory__read_graph --json", description: "server__tool as tools prints it; raw JSON" }
  ])
)
