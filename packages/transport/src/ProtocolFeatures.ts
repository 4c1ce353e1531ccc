/**
 * The wire shapes of the client → server features beyond tools: resources, resource templates, prompts,
 * completion, logging and progress (MCP `schema.ts`, 2024-11-05 … 2025-11-25).
 *
 * As for tools, unknown fields are kept (servers add their own) and optional fields that are absent stay absent.
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"
import { ContentBlock } from "./Protocol.ts"

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const
const Meta = Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))

/**
 * A resource as a server lists it in `resources/list`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Resource = Schema.StructWithRest(
  Schema.Struct({
    uri: Schema.String,
    name: Schema.String,
    title: Schema.optionalKey(Schema.String),
    description: Schema.optionalKey(Schema.String),
    mimeType: Schema.optionalKey(Schema.String),
    size: Schema.optionalKey(Schema.Number),
    annotations: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
    icons: Schema.optionalKey(Schema.Array(Schema.Unknown)),
    _meta: Meta
  }),
  Rest
)

/**
 * @since 0.3.0
 * @category schemas
 */
export type Resource = typeof Resource.Type

/**
 * A resource template (RFC 6570 `uriTemplate`) as a server lists it in `resources/templates/list`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ResourceTemplate = Schema.StructWithRest(
  Schema.Struct({
    uriTemplate: Schema.String,
    name: Schema.String,
    title: Schema.optionalKey(Schema.String),
    description: Schema.optionalKey(Schema.String),
    mimeType: Schema.optionalKey(Schema.String),
    annotations: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
    icons: Schema.optionalKey(Schema.Array(Schema.Unknown)),
    _meta: Meta
  }),
  Rest
)

/**
 * @since 0.3.0
 * @category schemas
 */
export type ResourceTemplate = typeof ResourceTemplate.Type

/**
 * Text contents of a resource.
 *
 * @since 0.3.0
 * @category schemas
 */
export const TextResourceContents = Schema.StructWithRest(
  Schema.Struct({ uri: Schema.String, mimeType: Schema.optionalKey(Schema.String), text: Schema.String, _meta: Meta }),
  Rest
)

/**
 * Binary contents of a resource: `blob` is base64 (decode it with `Resources.contentBytes`).
 *
 * @since 0.3.0
 * @category schemas
 */
export const BlobResourceContents = Schema.StructWithRest(
  Schema.Struct({ uri: Schema.String, mimeType: Schema.optionalKey(Schema.String), blob: Schema.String, _meta: Meta }),
  Rest
)

/**
 * One item of a `resources/read` answer: text or blob.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ResourceContents = Schema.Union([TextResourceContents, BlobResourceContents])

/**
 * @since 0.3.0
 * @category schemas
 */
export type ResourceContents = typeof ResourceContents.Type

/**
 * The server's answer to `resources/read`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ReadResourceResult = Schema.StructWithRest(
  Schema.Struct({ contents: Schema.Array(ResourceContents), _meta: Meta }),
  Rest
)

/**
 * @since 0.3.0
 * @category schemas
 */
export type ReadResourceResult = typeof ReadResourceResult.Type

/**
 * One argument a prompt takes.
 *
 * @since 0.3.0
 * @category schemas
 */
export const PromptArgument = Schema.StructWithRest(
  Schema.Struct({
    name: Schema.String,
    title: Schema.optionalKey(Schema.String),
    description: Schema.optionalKey(Schema.String),
    required: Schema.optionalKey(Schema.Boolean)
  }),
  Rest
)

/**
 * A prompt as a server lists it in `prompts/list`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Prompt = Schema.StructWithRest(
  Schema.Struct({
    name: Schema.String,
    title: Schema.optionalKey(Schema.String),
    description: Schema.optionalKey(Schema.String),
    arguments: Schema.optionalKey(Schema.Array(PromptArgument)),
    icons: Schema.optionalKey(Schema.Array(Schema.Unknown)),
    _meta: Meta
  }),
  Rest
)

/**
 * @since 0.3.0
 * @category schemas
 */
export type Prompt = typeof Prompt.Type

/**
 * One message of a prompt.
 *
 * @since 0.3.0
 * @category schemas
 */
export const PromptMessage = Schema.StructWithRest(
  Schema.Struct({ role: Schema.Literals(["user", "assistant"]), content: ContentBlock }),
  Rest
)

/**
 * The server's answer to `prompts/get`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const GetPromptResult = Schema.StructWithRest(
  Schema.Struct({
    description: Schema.optionalKey(Schema.String),
    messages: Schema.Array(PromptMessage),
    _meta: Meta
  }),
  Rest
)

/**
 * @since 0.3.0
 * @category schemas
 */
export type GetPromptResult = typeof GetPromptResult.Type

/**
 * What `completion/complete` completes: an argument of a prompt, or a variable of a resource template.
 *
 * @since 0.3.0
 * @category models
 */
export type CompletionReference =
  | { readonly type: "ref/prompt"; readonly name: string }
  | { readonly type: "ref/resource"; readonly uri: string }

/**
 * The server's answer to `completion/complete`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const CompleteResult = Schema.StructWithRest(
  Schema.Struct({
    completion: Schema.StructWithRest(
      Schema.Struct({
        values: Schema.Array(Schema.String),
        total: Schema.optionalKey(Schema.Number),
        hasMore: Schema.optionalKey(Schema.Boolean)
      }),
      Rest
    ),
    _meta: Meta
  }),
  Rest
)

/**
 * @since 0.3.0
 * @category schemas
 */
export type CompleteResult = typeof CompleteResult.Type

/**
 * The RFC 5424 severities of `logging/setLevel` and `notifications/message`, least severe first.
 *
 * @since 0.3.0
 * @category schemas
 */
export const LoggingLevel = Schema.Literals([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
])

/**
 * @since 0.3.0
 * @category schemas
 */
export type LoggingLevel = typeof LoggingLevel.Type

/**
 * The params of `notifications/message`: one log entry of the server.
 *
 * @since 0.3.0
 * @category schemas
 */
export const LoggingMessage = Schema.StructWithRest(
  Schema.Struct({ level: LoggingLevel, logger: Schema.optionalKey(Schema.String), data: Schema.Unknown }),
  Rest
)

/**
 * @since 0.3.0
 * @category schemas
 */
export type LoggingMessage = typeof LoggingMessage.Type

/**
 * The params of `notifications/progress`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ProgressNotification = Schema.StructWithRest(
  Schema.Struct({
    progressToken: Schema.Union([Schema.String, Schema.Number]),
    progress: Schema.Number,
    total: Schema.optionalKey(Schema.Number),
    message: Schema.optionalKey(Schema.String)
  }),
  Rest
)

/**
 * One progress report of a request, as a caller's `onProgress` sees it (the token is the client's business).
 *
 * @since 0.3.0
 * @category models
 */
export interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * The params of `notifications/resources/updated`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ResourceUpdated = Schema.StructWithRest(Schema.Struct({ uri: Schema.String }), Rest)

/**
 * @since 0.3.0
 * @category schemas
 */
export type ResourceUpdated = typeof ResourceUpdated.Type
