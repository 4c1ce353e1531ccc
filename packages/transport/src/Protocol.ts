/**
 * MCP protocol facts the client needs: the revisions it speaks and the wire shapes of the results it reads.
 *
 * Shapes follow the MCP specification's `schema.ts` (revisions 2024-11-05 … 2025-11-25). Unknown fields are
 * kept (servers add their own), and optional fields that are absent stay absent.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The protocol revision this client offers in `initialize`: the newest it supports.
 *
 * @since 0.1.0
 * @category protocol
 */
export const LATEST_PROTOCOL_VERSION = "2025-11-25"

/**
 * Every protocol revision this client accepts in a server's `initialize` answer.
 *
 * @since 0.1.0
 * @category protocol
 */
export const SUPPORTED_PROTOCOL_VERSIONS: ReadonlyArray<string> = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05"
]

/**
 * The modern-era revisions (stateless: `server/discover`, `_meta` on every request, no `initialize`), newest first.
 *
 * @since 0.3.0
 * @category protocol
 */
export const MODERN_PROTOCOL_VERSIONS: ReadonlyArray<string> = ["2026-07-28"]

/**
 * The modern revision this client offers first in `server/discover`.
 *
 * @since 0.3.0
 * @category protocol
 */
export const MODERN_PROTOCOL_VERSION = "2026-07-28"

/**
 * The two eras of MCP: `legacy` (the `initialize` handshake, 2024-11-05 … 2025-11-25) and `modern` (stateless,
 * 2026-07-28 and later).
 *
 * @since 0.3.0
 * @category protocol
 */
export type Era = "legacy" | "modern"

/**
 * How a client picks a server's era: `auto` probes with `server/discover` and falls back to `initialize`; `legacy`
 * and `modern` pin the era (newest version of it); a version pins that version.
 *
 * @since 0.3.0
 * @category protocol
 */
export type ProtocolChoice = "auto" | "legacy" | "modern" | "2025-11-25" | "2026-07-28"

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/**
 * `Implementation`: the name and version of a client or server.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Implementation = Schema.StructWithRest(
  Schema.Struct({
    name: Schema.String,
    version: Schema.String,
    title: Schema.optionalKey(Schema.String)
  }),
  Rest
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type Implementation = typeof Implementation.Type

/**
 * The server's answer to `initialize`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InitializeResult = Schema.StructWithRest(
  Schema.Struct({
    protocolVersion: Schema.String,
    capabilities: Schema.Record(Schema.String, Schema.Unknown),
    serverInfo: Implementation,
    instructions: Schema.optionalKey(Schema.String)
  }),
  Rest
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type InitializeResult = typeof InitializeResult.Type

/**
 * One content block of a tool result (`text`, `image`, `audio`, `resource_link`, `resource`, or a newer kind):
 * its `type` is checked, every other field is kept as sent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock = Schema.StructWithRest(Schema.Struct({ type: Schema.String }), Rest)

/**
 * @since 0.1.0
 * @category schemas
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * The server's answer to `tools/call`. A tool's own failure is `isError: true` here, not a JSON-RPC error.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CallToolResult = Schema.StructWithRest(
  Schema.Struct({
    content: Schema.Array(ContentBlock),
    // 2026-07-28: any JSON value (an object before, and still most often).
    structuredContent: Schema.optionalKey(Schema.Unknown),
    isError: Schema.optionalKey(Schema.Boolean)
  }),
  Rest
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type CallToolResult = typeof CallToolResult.Type

/**
 * A notification the server sent (no `id`): `notifications/tools/list_changed`, `notifications/message`,
 * `notifications/progress`, or any other.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerNotification {
  readonly method: string
  readonly params: unknown
}

/**
 * What the client knows about a server once `initialize` succeeded.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerSession {
  readonly protocolVersion: string
  readonly serverInfo: Implementation
  readonly capabilities: { readonly [key: string]: unknown }
  /** The server's `instructions`, or `undefined` when it sent none. */
  readonly instructions: string | undefined
  /** The era the server speaks (`modern`: found by `server/discover`); absent means `legacy`. */
  readonly era?: Era | undefined
}
