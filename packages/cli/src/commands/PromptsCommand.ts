/**
 * `mcp-fleet prompts [--server S] [--json]`: the prompts of every ready server that offers them;
 * `mcp-fleet prompt <server> <name> [--args JSON] [--json]`: one prompt rendered.
 *
 * `prompts` prints one line per prompt (`server  name  arguments  description`, a required argument marked `*`);
 * with `--json` one document `{ prompts, failed }`, each prompt with its `server`. `prompt` prints each message as
 * `[role] text` (a non-text block as its JSON), or with `--json` the raw result.
 *
 * @since 0.3.0
 */
import type { ConfigError } from "@mcp-fleet/config"
import type { ManagerError } from "@mcp-fleet/manager"
import type { Features, ProtocolFeatures } from "@mcp-fleet/transport"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type { CliEnvironment } from "../CliEnvironment.ts"
import type { ServerNotConfigured, ServerNotUsable } from "../CliError.ts"
import { InvalidArguments } from "../CliError.ts"
import * as CliFlags from "../CliFlags.ts"
import * as FeatureListing from "../FeatureListing.ts"
import { parseArguments } from "./CallCommand.ts"
import * as Prelude from "./Prelude.ts"

/**
 * Every way `prompts` and `prompt` can fail.
 *
 * @since 0.3.0
 * @category models
 */
export type PromptsError =
  | ConfigError.ConfigError
  | ServerNotConfigured
  | ServerNotUsable
  | InvalidArguments
  | ManagerError.UnknownServer
  | ManagerError.ServerUnavailable
  | Features.FeatureError

/**
 * One prompt's line.
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderPrompt = (server: string, prompt: ProtocolFeatures.Prompt): string => {
  const args = (prompt.arguments ?? []).map((a) => `${a.name}${a.required === true ? "*" : ""}`).join(",")
  return [server, prompt.name, args === "" ? "-" : args, prompt.description?.split("\n")[0] ?? ""].join("  ").trimEnd()
}

/**
 * A rendered prompt's text: `[role] text` per message.
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderMessages = (result: ProtocolFeatures.GetPromptResult): string =>
  result.messages.map((m) => {
    const text = m.content["text"]
    return `[${m.role}] ${m.content.type === "text" && typeof text === "string" ? text : JSON.stringify(m.content)}`
  }).join("\n")

/** `--args` for a prompt: a JSON object of strings. */
const promptArguments = (text: Option.Option<string>) =>
  Effect.flatMap(parseArguments(text), (args) => {
    const bad = Object.entries(args).find(([, v]) => typeof v !== "string")
    return bad === undefined
      ? Effect.succeed(Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)])))
      : Effect.fail(new InvalidArguments({ reason: `prompt arguments are strings; ${JSON.stringify(bad[0])} is not` }))
  })

/**
 * The `prompts` command.
 *
 * @since 0.3.0
 * @category commands
 */
export const list: Command.Command<
  "prompts",
  {
    readonly config: string
    readonly server: Option.Option<string>
    readonly json: boolean
    readonly wait: Duration.Duration
    readonly verbose: boolean
  },
  {},
  PromptsError,
  CliEnvironment | FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner
> = Command.make(
  "prompts",
  {
    config: CliFlags.config,
    server: CliFlags.server,
    json: CliFlags.json,
    wait: CliFlags.wait("How long to wait for the servers to settle before listing."),
    verbose: CliFlags.verbose
  },
  Effect.fn("mcp-fleet prompts")(function*({ config, json, server, verbose, wait }) {
    const file = yield* Prelude.load(config, server)
    yield* Prelude.run(
      { file, verbose, wait, target: { _tag: "Fleet", only: server } },
      (session) =>
        Effect.gen(function*() {
          const listings = yield* FeatureListing.collect(
            session.manager,
            "prompts",
            (client) => Effect.map(client.listPrompts(), (listed) => listed.prompts)
          )
          const failed = listings.flatMap((l) => l._tag === "Failed" ? [{ server: l.server, reason: l.reason }] : [])
          const prompts = listings.flatMap((l) => l._tag === "Listed" ? l.value.map((p) => [l.server, p] as const) : [])
          if (json) {
            yield* Console.log(
              JSON.stringify({ prompts: prompts.map(([s, p]) => ({ server: s, ...p })), failed }, null, 2)
            )
            return
          }
          if (prompts.length > 0) yield* Console.log(prompts.map(([s, p]) => renderPrompt(s, p)).join("\n"))
          for (const f of failed) yield* Console.error(`mcp-fleet: ${f.server}: prompts not listed: ${f.reason}`)
        })
    )
  })
).pipe(
  Command.withDescription("List the prompts of every ready server that offers them (required arguments marked *)."),
  Command.withExamples([{ command: "mcp-fleet prompts --json", description: "Every prompt as JSON" }])
)

/**
 * The `prompt` command.
 *
 * @since 0.3.0
 * @category commands
 */
export const get: Command.Command<
  "prompt",
  {
    readonly server: string
    readonly name: string
    readonly args: Option.Option<string>
    readonly json: boolean
    readonly timeout: Option.Option<Duration.Duration>
    readonly config: string
    readonly wait: Duration.Duration
    readonly verbose: boolean
  },
  {},
  PromptsError,
  CliEnvironment | FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner
> = Command.make(
  "prompt",
  {
    server: Argument.String("server").pipe(Argument.withDescription("The server, as named in the config file.")),
    name: Argument.String("name").pipe(Argument.withDescription("The prompt's name, as `prompts` prints it.")),
    args: Flag.String("args").pipe(
      Flag.withAlias("a"),
      Flag.withMetavar("JSON"),
      Flag.withDescription("The prompt's arguments, a JSON object of strings. Default: {}."),
      Flag.optional
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the raw result as JSON on stdout."),
      Flag.withDefault(false)
    ),
    timeout: CliFlags.timeout,
    config: CliFlags.config,
    wait: CliFlags.wait("How long to wait for the server to start before asking."),
    verbose: CliFlags.verbose
  },
  Effect.fn("mcp-fleet prompt")(function*({ args, config, json, name, server, timeout, verbose, wait }) {
    const promptArgs = yield* promptArguments(args)
    const file = yield* Prelude.load(config, Option.some(server))
    yield* Prelude.run(
      { file, verbose, wait, target: { _tag: "Server", server } },
      (session) =>
        Effect.gen(function*() {
          const { manager } = session
          const result = yield* manager.getPrompt(
            server,
            name,
            promptArgs,
            Option.isSome(timeout) ? { timeout: timeout.value } : undefined
          )
          yield* Console.log(
            json ? JSON.stringify({ server, prompt: name, ...result }, null, 2) : renderMessages(result)
          )
        })
    )
  })
).pipe(
  Command.withDescription("Render one prompt of one server with its arguments and print its messages."),
  Command.withExamples([
    { command: "mcp-fleet prompt docs summarize --args '{\"style\":\"short\"}'", description: "Render a prompt" }
  ])
)
