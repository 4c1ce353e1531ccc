/**
 * Answering a server's `sampling/createMessage`: the server asks the host's language model for one message.
 *
 * Provide a `Sampling` service (or pass one as `McpClient.make({ handlers: { sampling } })`) and the client
 * declares `sampling: {}` in `initialize`. The host decides per request: the handler gets the asking server's
 * name and refuses with `SamplingRefused` (sent as the spec's "user rejected" error, code -1). Any other
 * failure or defect goes back as a JSON-RPC error too (details logged, not sent).
 *
 * **Tools** (2025-11-25): a handler with `tools: true` declares `sampling: { tools: {} }` and receives requests that
 * carry `tools` and `toolChoice`; it may answer with `tool_use` blocks (`stopReason: "toolUse"`), and the server
 * sends the `tool_result`s in its next request. Without `tools: true` a request with `tools` or `toolChoice`, or with
 * tool blocks in its messages, is refused with -32602 (the spec's "MUST return an error"). Either way the messages
 * are checked against the spec's two rules before the handler sees them: a user message with a `tool_result` holds
 * only tool results, and every assistant `tool_use` is answered by a `tool_result` of the same id in the next
 * message. An answer with `tool_use` to a request without `tools` is never sent.
 *
 * **`includeContext`** (soft-deprecated in 2025-11-25): the policy is explicit. Without a `context` provider the
 * client does not declare `sampling.context`, and a request that asks for `thisServer` or `allServers` anyway is
 * sampled without any (the spec lets the client ignore it): the handler sees `context: undefined` and the request's
 * own `includeContext`, so it can tell. With `context`, the client declares `sampling.context`, and for
 * `thisServer` / `allServers` the provider's text is given to the handler as `context` (the `SamplingModel` adapter
 * puts it in the system prompt).
 *
 * `@mcp-fleet/ai` has the adapter that answers with an `effect/ai` `LanguageModel` (`SamplingModel`, tool calls
 * included); it lives there so that this transport never loads `effect/ai` for apps that do not sample.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Sampling } from "@mcp-fleet/transport"
 *
 * const sampling: Sampling.Service = {
 *   createMessage: (request) =>
 *     request.server === "trusted"
 *       ? Effect.succeed({ role: "assistant", content: { type: "text", text: "hello" }, model: "canned" })
 *       : Effect.fail(new Sampling.SamplingRefused({ server: request.server, reason: "not a trusted server" }))
 * }
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ErrorKind from "./ErrorKind.ts"
import { DiscoveredTool } from "./Tool.ts"

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/**
 * One content block of a sampling message: `text`, `image`, `audio` (and, from 2025-11-25, `tool_use` and
 * `tool_result`). Its `type` is checked; every other field is kept as sent.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ContentBlock = Schema.StructWithRest(Schema.Struct({ type: Schema.String }), Rest)

/**
 * @since 0.2.0
 * @category schemas
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * A `tool_use` block (2025-11-25): the model asks for a tool of the request's `tools`, by `name`, with `input`; the
 * server runs it and sends the `tool_result` with the same `id` in its next request.
 *
 * @since 0.5.0
 * @category schemas
 */
export const ToolUseContent = Schema.StructWithRest(
  Schema.Struct({
    type: Schema.Literal("tool_use"),
    id: Schema.String,
    name: Schema.String,
    input: Schema.Record(Schema.String, Schema.Unknown),
    _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
  }),
  Rest
)

/**
 * @since 0.5.0
 * @category schemas
 */
export type ToolUseContent = typeof ToolUseContent.Type

/**
 * A `tool_result` block (2025-11-25): what the server's tool answered to the `tool_use` whose id is `toolUseId`
 * (`content` as a tool result's, `isError` when the tool failed).
 *
 * @since 0.5.0
 * @category schemas
 */
export const ToolResultContent = Schema.StructWithRest(
  Schema.Struct({
    type: Schema.Literal("tool_result"),
    toolUseId: Schema.String,
    content: Schema.Array(ContentBlock),
    structuredContent: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
    isError: Schema.optionalKey(Schema.Boolean),
    _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
  }),
  Rest
)

/**
 * @since 0.5.0
 * @category schemas
 */
export type ToolResultContent = typeof ToolResultContent.Type

/**
 * Whether a block is a well-formed `tool_use`.
 *
 * @since 0.5.0
 * @category guards
 */
export const isToolUse: (block: ContentBlock) => block is ContentBlock & ToolUseContent = Schema.is(ToolUseContent)

/**
 * Whether a block is a well-formed `tool_result`.
 *
 * @since 0.5.0
 * @category guards
 */
export const isToolResult: (block: ContentBlock) => block is ContentBlock & ToolResultContent = Schema.is(
  ToolResultContent
)

/**
 * How the model may use the request's tools: `auto` (the default), `required` (at least one), `none`.
 *
 * @since 0.5.0
 * @category schemas
 */
export const ToolChoice = Schema.StructWithRest(
  Schema.Struct({ mode: Schema.optionalKey(Schema.Literals(["auto", "required", "none"])) }),
  Rest
)

/**
 * @since 0.5.0
 * @category schemas
 */
export type ToolChoice = typeof ToolChoice.Type

/**
 * One message of the conversation the server sends.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Message = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Union([ContentBlock, Schema.Array(ContentBlock)])
})

/**
 * @since 0.2.0
 * @category schemas
 */
export type Message = typeof Message.Type

/**
 * The params of `sampling/createMessage`, as the handler sees them (unknown fields kept).
 *
 * @since 0.2.0
 * @category schemas
 */
export const CreateMessageParams = Schema.StructWithRest(
  Schema.Struct({
    messages: Schema.Array(Message),
    maxTokens: Schema.Number,
    systemPrompt: Schema.optionalKey(Schema.String),
    temperature: Schema.optionalKey(Schema.Number),
    stopSequences: Schema.optionalKey(Schema.Array(Schema.String)),
    includeContext: Schema.optionalKey(Schema.Literals(["none", "thisServer", "allServers"])),
    modelPreferences: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
    metadata: Schema.optionalKey(Schema.Unknown),
    /** The tools the model may use (2025-11-25; only sent to a client that declared `sampling.tools`). */
    tools: Schema.optionalKey(Schema.Array(DiscoveredTool)),
    toolChoice: Schema.optionalKey(ToolChoice)
  }),
  Rest
)

/**
 * @since 0.2.0
 * @category schemas
 */
export type CreateMessageParams = typeof CreateMessageParams.Type

/**
 * The answer: the model's message (text, image or audio; `tool_use` blocks when the request had `tools`), which
 * model wrote it, and why it stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, or a reason of the host's
 * own).
 *
 * @since 0.2.0
 * @category schemas
 */
export const CreateMessageResult = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Union([ContentBlock, Schema.Array(ContentBlock)]),
  model: Schema.String,
  stopReason: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.2.0
 * @category schemas
 */
export type CreateMessageResult = typeof CreateMessageResult.Type

/**
 * A request, with the label of the server that sent it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Request {
  readonly server: string
  readonly params: CreateMessageParams
  /**
   * What the host attached for `params.includeContext` (`thisServer` or `allServers`), from the service's `context`
   * provider; `undefined` when none was asked for, or when the client has no provider (then nothing is attached:
   * the documented policy, see the module's description).
   */
  readonly context?: string | undefined
}

/**
 * What a `context` provider is asked for: the context of the asking `server` alone (`thisServer`) or of every server
 * the host knows (`allServers`).
 *
 * @since 0.5.0
 * @category models
 */
export interface ContextRequest {
  readonly server: string
  readonly include: "thisServer" | "allServers"
}

/**
 * The host will not sample for this server now (a policy, or the user said no).
 *
 * @since 0.2.0
 * @category errors
 */
export class SamplingRefused extends Schema.TaggedError<SamplingRefused>()("SamplingRefused", {
  server: Schema.String,
  reason: Schema.String
}) {
  /** The caller's: the host decided not to sample (asking again gets the same answer). */
  get kind(): ErrorKind.CallerFault {
    return ErrorKind.callerFault
  }
  override get message(): string {
    return `Sampling for MCP server "${this.server}" was refused: ${this.reason}.`
  }
}

/**
 * What answers `sampling/createMessage`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly createMessage: (request: Request) => Effect.Effect<CreateMessageResult, unknown>
  /** Bound of one answer (a model call, maybe an approval). Default 5 minutes. */
  readonly timeout?: Duration.Input | undefined
  /**
   * The handler takes requests with `tools` and `toolChoice` and may answer with `tool_use` blocks: declares
   * `sampling.tools`. Default `false` (such requests are refused with -32602, as the spec requires).
   */
  readonly tools?: boolean | undefined
  /**
   * The host's context for `includeContext: "thisServer" | "allServers"` (text given to the handler as
   * `request.context`): declares `sampling.context`. Absent: not declared, and no context is ever attached.
   */
  readonly context?: ((request: ContextRequest) => Effect.Effect<string, unknown>) | undefined
}

/**
 * The sampling service. Optional: a client made where it is provided (and given no `handlers.sampling`) serves it.
 *
 * @since 0.2.0
 * @category services
 */
export class Sampling extends Context.Service<Sampling, Service>()("@mcp-fleet/transport/Sampling") {}
