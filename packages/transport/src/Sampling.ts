/**
 * Answering a server's `sampling/createMessage`: the server asks the host's language model for one message.
 *
 * Provide a `Sampling` service (or pass one as `McpClient.make({ handlers: { sampling } })`) and the client
 * declares `sampling: {}` in `initialize`. The host decides per request: the handler gets the asking server's
 * name and refuses with `SamplingRefused` (sent as the spec's "user rejected" error, code -1). Any other
 * failure or defect goes back as a JSON-RPC error too (details logged, not sent).
 *
 * `@mcp-fleet/ai` has the adapter that answers with an `effect/ai` `LanguageModel` (`SamplingModel`); it lives
 * there so that this transport never loads `effect/ai` for apps that do not sample.
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
    includeContext: Schema.optionalKey(Schema.String),
    modelPreferences: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
    metadata: Schema.optionalKey(Schema.Unknown)
  }),
  Rest
)

/**
 * @since 0.2.0
 * @category schemas
 */
export type CreateMessageParams = typeof CreateMessageParams.Type

/**
 * The answer: the model's message, which model wrote it, and why it stopped (`endTurn`, `stopSequence`,
 * `maxTokens`, `toolUse`, or a reason of the host's own).
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
}

/**
 * The sampling service. Optional: a client made where it is provided (and given no `handlers.sampling`) serves it.
 *
 * @since 0.2.0
 * @category services
 */
export class Sampling extends Context.Service<Sampling, Service>()("@mcp-fleet/transport/Sampling") {}
