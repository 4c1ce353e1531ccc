/**
 * Answers servers' `sampling/createMessage` with the app's `effect/ai` `LanguageModel`: a `Sampling` handler for
 * `@mcp-fleet/transport` clients and the manager.
 *
 * It lives here, not in the transport, so that an app that does not sample never loads `effect/ai`.
 *
 * Mapping:
 * - `systemPrompt` → a system message first; the host's `includeContext` text (see `context`) → a system message
 *   after it; each MCP message → a user or assistant message; `text` blocks → text parts; `image` and `audio`
 *   blocks → file parts (their base64 `data` and `mimeType`). Any other block kind is refused.
 * - **Tools** (2025-11-25; declared as `sampling.tools` unless `tools: false`): the request's `tools` → a toolkit of
 *   `Tool.dynamic` tools (their JSON Schema as given; names made valid for providers, `[a-zA-Z0-9_-]{1,64}`, and
 *   mapped back), `toolChoice` → `auto` / `required` / `none`, and the model's tool calls are returned, not run
 *   (`disableToolCallResolution`): the server runs its tools. An assistant `tool_use` block → a `tool-call` part;
 *   a user message of `tool_result` blocks → a `tool` message of `tool-result` parts (`isError` → `isFailure`, the
 *   blocks as the model's output: text parts, image and audio as file parts). The response's tool calls → `tool_use`
 *   blocks after its text, with `stopReason: "toolUse"`.
 * - `maxTokens` (and `temperature`, `stopSequences`): `generateText` has no such options, each provider takes them
 *   in its own config, so `configure` applies them (for example with `OpenAiLanguageModel.withConfigOverride`).
 *   Without it the model's own limits apply.
 * - The answer: the response's text as one `text` block (and its tool calls, above); finish reason `stop` →
 *   `endTurn`, `length` → `maxTokens`, `tool-calls` → `toolUse`, any other reason as it is.
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
import type { Tool as McpTool } from "@mcp-fleet/transport"
import { LanguageModel, Tool, Toolkit } from "effect/ai"
import type { Prompt, Response } from "effect/ai"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import * as ToolNames from "./ToolNames.ts"

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
  /**
   * Give the request's `tools` to the model and answer with its tool calls (declares `sampling.tools`). Default
   * `true`; `false` declares no tool support, and servers must not offer tools.
   */
  readonly tools?: boolean | undefined
  /**
   * The host's context for `includeContext: "thisServer" | "allServers"` (declares `sampling.context`); its text
   * reaches the model as a system message. Absent: no context is attached (the transport's documented policy).
   */
  readonly context?: Sampling.Service["context"]
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

/** A tool result's blocks as the model's output: text and files as parts, any other block as its JSON text. */
const outputOf = (
  content: ReadonlyArray<Sampling.ContentBlock>
): ReadonlyArray<Prompt.TextPartEncoded | Prompt.FilePartEncoded> =>
  content.map((block) => {
    const part = partOf(block)
    return typeof part === "string" ? { type: "text", text: JSON.stringify(block) } : part
  })

/**
 * The names the model sees for a request's tools (valid for providers, one per tool), both ways.
 *
 * @since 0.2.0
 * @category mapping
 */
export interface ToolNaming {
  /** The model-facing name of each MCP tool offered (a tool whose name collides after sanitizing is left out). */
  readonly toModel: ReadonlyMap<string, string>
  /** The MCP tool of each model-facing name. */
  readonly toMcp: ReadonlyMap<string, McpTool.DiscoveredTool>
}

/**
 * Names the request's tools for the model.
 *
 * @since 0.2.0
 * @category mapping
 */
export const toolNaming = (request: Sampling.Request): ToolNaming => {
  const offered = (request.params.tools ?? []).map((tool) => ({ server: request.server, tool }))
  const { named } = ToolNames.assign(offered, (_server, tool) => tool)
  return {
    toModel: new Map(named.map((entry) => [entry.tool.name, entry.name])),
    toMcp: new Map(named.map((entry) => [entry.name, entry.tool]))
  }
}

/**
 * The prompt of a request: the system prompt, the host's context, then every message in order (tool uses and tool
 * results as tool calls and tool messages, named as `naming` says).
 *
 * @since 0.1.0
 * @category mapping
 */
export const toPrompt = (
  request: Sampling.Request,
  naming: ToolNaming = toolNaming(request)
): Effect.Effect<ReadonlyArray<Prompt.MessageEncoded>, Refused> =>
  Effect.gen(function*() {
    const { params } = request
    const messages: Array<Prompt.MessageEncoded> = []
    if (params.systemPrompt !== undefined) messages.push({ role: "system", content: params.systemPrompt })
    if (request.context !== undefined) {
      messages.push({
        role: "system",
        content: `Context from MCP servers (includeContext: ${params.includeContext ?? "none"}):\n${request.context}`
      })
    }
    /** The MCP name of each tool use seen so far, by id: a tool result names its tool. */
    const used = new Map<string, string>()
    const modelName = (name: string) => naming.toModel.get(name) ?? ToolNames.sanitize(name)
    for (const message of params.messages) {
      const blocks = blocksOf(message.content)
      if (blocks.length > 0 && blocks.every(Sampling.isToolResult)) {
        messages.push({
          role: "tool",
          content: blocks.filter(Sampling.isToolResult).map((block): Prompt.ToolResultPartEncoded => ({
            type: "tool-result",
            id: block.toolUseId,
            name: modelName(used.get(block.toolUseId) ?? ""),
            isFailure: block.isError === true,
            result: block.structuredContent ?? block.content,
            modelOutput: outputOf(block.content)
          }))
        })
        continue
      }
      const parts: Array<Prompt.TextPartEncoded | Prompt.FilePartEncoded | Prompt.ToolCallPartEncoded> = []
      for (const block of blocks) {
        if (message.role === "assistant" && Sampling.isToolUse(block)) {
          used.set(block.id, block.name)
          parts.push({ type: "tool-call", id: block.id, name: modelName(block.name), params: block.input })
          continue
        }
        const part = partOf(block)
        if (typeof part === "string") return yield* refuse(request, part)
        parts.push(part)
      }
      if (message.role === "assistant") messages.push({ role: "assistant", content: parts })
      else {
        const userParts = parts.filter((part): part is Prompt.TextPartEncoded | Prompt.FilePartEncoded =>
          part.type !== "tool-call"
        )
        messages.push({ role: "user", content: userParts })
      }
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

/** The `generateText` tool choice of an MCP one (absent: the model's default, `auto`). */
const toolChoiceOf = (choice: Sampling.ToolChoice | undefined): "auto" | "required" | "none" | undefined => choice?.mode

type SamplingTool = Tool.Tool<string, {
  readonly parameters: typeof Schema.Unknown
  readonly success: typeof Schema.Unknown
  readonly failure: typeof Schema.Never
  readonly failureMode: "error"
}>

type SamplingTools = Record<string, SamplingTool>

/** The request's tools as a toolkit whose calls are never run here (`disableToolCallResolution`). */
const toolkitOf = (naming: ToolNaming): Effect.Effect<Toolkit.WithHandler<SamplingTools>> =>
  Effect.gen(function*() {
    const tools: Array<SamplingTool> = []
    const handlers: Record<string, () => Effect.Effect<never>> = {}
    for (const [name, tool] of naming.toMcp) {
      tools.push(
        Tool.dynamic(name, { description: tool.description, parameters: tool.inputSchema }).annotate(Tool.Strict, false)
      )
      // The server runs its tools: these are never called (tool call resolution is off).
      handlers[name] = () => Effect.die(new Error(`the sampling tool ${name} is the MCP server's to run`))
    }
    const kit = Toolkit.make(...tools)
    return yield* kit.pipe(Effect.provideContext(yield* kit.toHandlers(handlers)))
  })

/** The MCP answer of a response: its text (if any) and its tool calls as `tool_use` blocks. */
const answerOf = (
  request: Sampling.Request,
  naming: ToolNaming,
  response: LanguageModel.GenerateTextResponse<SamplingTools, "encoded">,
  model: string
): Effect.Effect<Sampling.CreateMessageResult, Refused> =>
  Effect.gen(function*() {
    const uses: Array<Sampling.ToolUseContent> = []
    for (const call of response.toolCalls) {
      const tool = naming.toMcp.get(call.name)
      if (tool === undefined) {
        return yield* refuse(request, `the model called ${JSON.stringify(call.name)}, not offered`)
      }
      const input = call.params
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        return yield* refuse(
          request,
          `the model called ${JSON.stringify(tool.name)} with arguments that are not an object`
        )
      }
      uses.push({ type: "tool_use", id: call.id, name: tool.name, input: { ...input } })
    }
    const text: ReadonlyArray<Sampling.ContentBlock> = response.text === "" && uses.length > 0
      ? []
      : [{ type: "text", text: response.text }]
    const blocks = [...text, ...uses]
    return {
      role: "assistant",
      content: blocks.length === 1 ? blocks[0]! : blocks,
      model,
      stopReason: uses.length > 0 ? "toolUse" : stopReason(response.finishReason)
    } satisfies Sampling.CreateMessageResult
  })

/**
 * A `Sampling` handler backed by the `LanguageModel` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Sampling.Service, never, LanguageModel.LanguageModel> =>
  Effect.map(Effect.service(LanguageModel.LanguageModel), (model): Sampling.Service => ({
    timeout: options.timeout,
    tools: options.tools ?? true,
    context: options.context,
    createMessage: (request) =>
      Effect.gen(function*() {
        if (!(yield* options.allow(request))) {
          return yield* refuse(request, "the host does not allow sampling for this server")
        }
        const naming = toolNaming(request)
        const prompt = yield* toPrompt(request, naming)
        const toolChoice = toolChoiceOf(request.params.toolChoice)
        // The server runs its tools: the model's calls are returned, never resolved here.
        const call = LanguageModel.generateText({
          prompt,
          toolkit: toolkitOf(naming),
          disableToolCallResolution: true,
          ...(toolChoice === undefined ? {} : { toolChoice })
        }).pipe(
          Effect.withSpan("SamplingModel.createMessage", {
            kind: "client",
            attributes: {
              "mcp.server": request.server,
              "gen_ai.request.max_tokens": request.params.maxTokens,
              "mcp.sampling.tools": naming.toMcp.size
            }
          })
        )
        const configured = options.configure === undefined ? call : options.configure(request)(call)
        const response = yield* Effect.provideService(configured, LanguageModel.LanguageModel, model)
        return yield* answerOf(request, naming, response, options.model ?? "effect-ai")
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
