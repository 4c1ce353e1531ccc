/**
 * Answers servers' `sampling/createMessage` with the app's `effect/ai` `LanguageModel`: a `Sampling` handler for
 * `@mcp-fleet/transport` clients and the manager.
 *
 * It lives here, not in the transport, so that an app that does not sample never loads `effect/ai`.
 *
 * Mapping:
 * - `systemPrompt` → a system message first; each MCP message → a user or assistant message; `text` blocks → text
 *   parts; `image` and `audio` blocks → file parts (their base64 `data` and `mimeType`). Any other block (tool use,
 *   tool results, a newer kind) is refused: this adapter sends no tools.
 * - `maxTokens` (and `temperature`, `stopSequences`): `generateText` has no such options, each provider takes them
 *   in its own config, so `configure` applies them (for example with `OpenAiLanguageModel.withConfigOverride`).
 *   Without it the model's own limits apply.
 * - The answer: the response's text as one `text` block; finish reason `stop` → `endTurn`, `length` → `maxTokens`,
 *   `tool-calls` → `toolUse`, any other reason as it is.
 * - The host decides per request: `allow` sees the server's name and the request; `false` is `SamplingRefused`.
 *
 * @example
 * ```ts
 * import { SamplingModel } from "@mcp-fleet/ai"
 * import { McpClient } from "@mcp-fleet/transport"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const sampling = yield* SamplingModel.make({ allow: (request) => Effect.succeed(request.server === "everything") })
 *   const client = yield* McpClient.make({ url: "http://127.0.0.1:3001/mcp", handlers: { sampling } })
 * }) // needs LanguageModel.LanguageModel (a provider's layer), HttpClient and Scope
 * ```
 *
 * @since 0.1.0
 */
import { Sampling } from "@mcp-fleet/transport"
import type { Duration } from "effect"
import { Effect, Layer } from "effect"
import { LanguageModel } from "effect/ai"
import type { Prompt, Response } from "effect/ai"

/**
 * How the adapter decides and calls the model.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** Whether to sample for this request (the server's name is `request.server`). Required: the host decides. */
  readonly allow: (request: Sampling.Request) => Effect.Effect<boolean>
  /**
   * Applies the request's `maxTokens`, `temperature` and `stopSequences` to the model call (provider config).
   * Default: none.
   */
  readonly configure?:
    | ((request: Sampling.Request) => <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>)
    | undefined
  /** The `model` named in the answer. Default `"effect-ai"`. */
  readonly model?: string | undefined
  /** Bound of one answer. Default: the transport's (5 minutes). */
  readonly timeout?: Duration.Input | undefined
}

/**
 * Allows every request (for a host whose every server is trusted).
 *
 * @since 0.1.0
 * @category options
 */
export const allowAll = (_: Sampling.Request): Effect.Effect<boolean> => Effect.succeed(true)

type Refused = Sampling.SamplingRefused

const refuse = (request: Sampling.Request, reason: string): Effect.Effect<never, Refused> =>
  Effect.fail(new Sampling.SamplingRefused({ server: request.server, reason }))

const isList = (content: Sampling.Message["content"]): content is ReadonlyArray<Sampling.ContentBlock> =>
  Array.isArray(content)

const blocksOf = (content: Sampling.Message["content"]): ReadonlyArray<Sampling.ContentBlock> =>
  isList(content) ? content : [content]

/** One MCP content block as a prompt part, or why it cannot be one. */
const partOf = (block: Sampling.ContentBlock): Prompt.TextPartEncoded | Prompt.FilePartEncoded | string => {
  if (block.type === "text" && typeof block["text"] === "string") return { type: "text", text: block["text"] }
  if (
    (block.type === "image" || block.type === "audio") && typeof block["data"] === "string" &&
    typeof block["mimeType"] === "string"
  ) return { type: "file", mediaType: block["mimeType"], data: block["data"] }
  return `a ${JSON.stringify(block.type)} content block cannot be given to the model`
}

/**
 * The prompt of a request: the system prompt, then every message in order.
 *
 * @since 0.1.0
 * @category mapping
 */
export const toPrompt = (request: Sampling.Request): Effect.Effect<ReadonlyArray<Prompt.MessageEncoded>, Refused> =>
  Effect.gen(function*() {
    const { params } = request
    const messages: Array<Prompt.MessageEncoded> = params.systemPrompt === undefined
      ? []
      : [{ role: "system", content: params.systemPrompt }]
    for (const message of params.messages) {
      const parts: Array<Prompt.TextPartEncoded | Prompt.FilePartEncoded> = []
      for (const block of blocksOf(message.content)) {
        const part = partOf(block)
        if (typeof part === "string") return yield* refuse(request, part)
        parts.push(part)
      }
      messages.push({ role: message.role, content: parts })
    }
    return messages
  })

/**
 * The MCP stop reason of an `effect/ai` finish reason.
 *
 * @since 0.1.0
 * @category mapping
 */
export const stopReason = (reason: Response.FinishReason): string => {
  switch (reason) {
    case "stop":
      return "endTurn"
    case "length":
      return "maxTokens"
    case "tool-calls":
      return "toolUse"
    default:
      return reason
  }
}

/**
 * A `Sampling` handler backed by the `LanguageModel` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Sampling.Service, never, LanguageModel.LanguageModel> =>
  Effect.map(Effect.service(LanguageModel.LanguageModel), (model): Sampling.Service => ({
    timeout: options.timeout,
    createMessage: (request) =>
      Effect.gen(function*() {
        if (!(yield* options.allow(request))) {
          return yield* refuse(request, "the host does not allow sampling for this server")
        }
        const prompt = yield* toPrompt(request)
        const call = LanguageModel.generateText({ prompt }).pipe(
          Effect.withSpan("SamplingModel.createMessage", {
            kind: "client",
            attributes: { "mcp.server": request.server, "gen_ai.request.max_tokens": request.params.maxTokens }
          })
        )
        const configured = options.configure === undefined ? call : options.configure(request)(call)
        const response = yield* Effect.provideService(configured, LanguageModel.LanguageModel, model)
        return {
          role: "assistant",
          content: { type: "text", text: response.text },
          model: options.model ?? "effect-ai",
          stopReason: stopReason(response.finishReason)
        } satisfies Sampling.CreateMessageResult
      })
  }))

/**
 * The `Sampling` service backed by the `LanguageModel` in context: clients made where it is provided sample.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Sampling.Sampling, never, LanguageModel.LanguageModel> =>
  Layer.effect(Sampling.Sampling, make(options))
