/**
 * How `mcp-fleet call` answers a server's `sampling/createMessage` (`--sampling`): the CLI has no language model of
 * its own, so the person at the terminal is the model.
 *
 * - `ask` (the default): on a terminal, the request is shown on stderr (the asking server, the system prompt, each
 *   message, the tools it offers) and the user types the answer; an empty answer, Ctrl-C or Escape refuses it.
 *   Without a terminal, it is refused.
 * - `decline`: never asks; every request is refused.
 *
 * A refusal is the spec's "user rejected" error (`SamplingRefused`, code -1), said in one line on stderr. The CLI
 * declares `sampling` (so servers that sample offer their sampling tools) but not `sampling.tools`: a typed answer
 * cannot call the server's tools, so a request that offers tools is refused by the transport with -32602, as the
 * spec requires. No `includeContext` provider: nothing is attached (the transport's documented policy). What the
 * server wrote is shown with control characters replaced, so a server cannot drive the terminal.
 *
 * @since 0.5.0
 */
import { Sampling } from "@mcp-fleet/transport"
import * as Prompt from "effect/cli/Prompt"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as Terminal from "effect/Terminal"
import { printable } from "./ElicitationPrompt.ts"

/**
 * How `call` answers a server that asks to sample (`--sampling`).
 *
 * @since 0.5.0
 * @category models
 */
export type Mode = "ask" | "decline"

/**
 * Every {@link Mode}, as `--sampling` accepts them.
 *
 * @since 0.5.0
 * @category models
 */
export const MODES: ReadonlyArray<Mode> = ["ask", "decline"]

/** The `model` named in a typed answer. */
export const MODEL = "mcp-fleet (answered at the terminal)"

const say = (text: string) => Console.error(`mcp-fleet: ${text}`)

const blockText = (block: Sampling.ContentBlock): string =>
  block.type === "text" && typeof block["text"] === "string" ? printable(block["text"]) : `[${printable(block.type)}]`

/**
 * The request as it is shown: who asks, the system prompt, each message on its own line, the tools offered.
 *
 * @since 0.5.0
 * @category formatting
 */
export const describe = (request: Sampling.Request): string => {
  const { params } = request
  const lines = [`${printable(request.server)} asks to sample (at most ${params.maxTokens} tokens):`]
  if (params.systemPrompt !== undefined) lines.push(`  system: ${printable(params.systemPrompt)}`)
  for (const message of params.messages) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content]
    lines.push(`  ${message.role}: ${blocks.map(blockText).join(" ")}`)
  }
  const tools = params.tools ?? []
  if (tools.length > 0) lines.push(`  tools offered: ${tools.map((tool) => printable(tool.name)).join(", ")}`)
  return lines.join("\n")
}

/**
 * The CLI's sampling handler for `mode` (see {@link Mode}).
 *
 * @since 0.5.0
 * @category constructors
 */
export const forMode: (mode: Mode) => Effect.Effect<
  Sampling.Service,
  never,
  Terminal.Terminal | FileSystem.FileSystem | Path.Path
> = Effect.fnUntraced(function*(mode: Mode) {
  const { canPrompt: terminal } = yield* TerminalCapabilities.TerminalCapabilities
  const canPrompt = terminal && mode === "ask"
  const context = yield* Effect.context<Terminal.Terminal | FileSystem.FileSystem | Path.Path>()
  const refuse = (request: Sampling.Request, reason: string) =>
    say(`refused: ${reason}`).pipe(
      Effect.andThen(Effect.fail(new Sampling.SamplingRefused({ server: request.server, reason })))
    )
  return {
    createMessage: (request) =>
      Effect.gen(function*() {
        yield* say(describe(request))
        if (!canPrompt) {
          return yield* refuse(request, mode === "ask" ? "there is no terminal to answer on" : "--sampling decline")
        }
        const typed = yield* Prompt.run(Prompt.String({ message: "Answer as the model (empty to refuse)" })).pipe(
          Effect.catchTag("QuitError", () => Effect.succeed("")),
          Effect.provideContext(context)
        )
        if (typed.trim() === "") return yield* refuse(request, "the user did not answer")
        return {
          role: "assistant",
          content: { type: "text", text: typed },
          model: MODEL,
          stopReason: "endTurn"
        } satisfies Sampling.CreateMessageResult
      })
  } satisfies Sampling.Service
})
