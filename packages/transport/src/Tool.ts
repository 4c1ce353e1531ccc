/**
 * The MCP `Tool` as it comes over the wire, decoded with `effect/Schema`, and helpers that read its hints.
 *
 * `DiscoveredTool` is exactly the wire shape: nothing of ours is added to it, unknown fields are kept, and
 * every annotation hint is tri-state (`true`, `false`, or absent — absent is never defaulted).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/**
 * `ToolAnnotations`: hints about a tool's behaviour. Each hint is `true`, `false`, or absent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolAnnotations = Schema.StructWithRest(
  Schema.Struct({
    title: Schema.optionalKey(Schema.String),
    readOnlyHint: Schema.optionalKey(Schema.Boolean),
    destructiveHint: Schema.optionalKey(Schema.Boolean),
    idempotentHint: Schema.optionalKey(Schema.Boolean),
    openWorldHint: Schema.optionalKey(Schema.Boolean)
  }),
  Rest
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * A tool as a server lists it in `tools/list`: `name`, `title?`, `description?`, `inputSchema`,
 * `outputSchema?`, `annotations?`, `icons?`, `_meta?`, plus any field a newer revision adds.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DiscoveredTool = Schema.StructWithRest(
  Schema.Struct({
    name: Schema.String,
    title: Schema.optionalKey(Schema.String),
    description: Schema.optionalKey(Schema.String),
    inputSchema: Schema.Record(Schema.String, Schema.Unknown),
    outputSchema: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
    annotations: Schema.optionalKey(ToolAnnotations),
    icons: Schema.optionalKey(Schema.Array(Schema.Unknown)),
    _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
  }),
  Rest
)

/**
 * @since 0.1.0
 * @category schemas
 */
export type DiscoveredTool = typeof DiscoveredTool.Type

/**
 * A tool together with the server that offers it. Tool names are unique only per server.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerTool {
  readonly server: string
  readonly tool: DiscoveredTool
}

/**
 * A tri-state hint: what the server said, or `"absent"` when it said nothing.
 *
 * @since 0.1.0
 * @category models
 */
export type Hint = boolean | "absent"

/**
 * Reads one hint of a tool without defaulting it.
 *
 * @example
 * ```ts
 * import { Tool } from "@mcp-fleet/transport"
 * Tool.hint({ name: "x", inputSchema: {} }, "readOnlyHint") // "absent"
 * ```
 *
 * @since 0.1.0
 * @category hints
 */
export const hint = (
  tool: DiscoveredTool,
  key: "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint"
): Hint => {
  const value = tool.annotations?.[key]
  return value === undefined ? "absent" : value
}

/**
 * Whether a tool may have side effects, fail-safe: only an explicit `readOnlyHint: true` makes a tool
 * read-only. `readOnlyHint: false` means it writes; an absent hint means unknown, treated as a write.
 *
 * @since 0.1.0
 * @category hints
 */
export const mayWrite = (tool: DiscoveredTool): boolean => hint(tool, "readOnlyHint") !== true

/**
 * What a tool says about running as a task (`execution.taskSupport`, 2025-11-25): `required`, `optional`, or
 * `forbidden`, which is also what an absent or unknown value means (the spec's default).
 *
 * @example
 * ```ts
 * import { Tool } from "@mcp-fleet/transport"
 * Tool.taskSupport({ name: "x", inputSchema: {}, execution: { taskSupport: "optional" } }) // "optional"
 * ```
 *
 * @since 0.5.0
 * @category hints
 */
export const taskSupport = (tool: DiscoveredTool): "required" | "optional" | "forbidden" => {
  const execution = tool["execution"]
  const support = typeof execution === "object" && execution !== null && "taskSupport" in execution
    ? execution.taskSupport
    : undefined
  return support === "required" || support === "optional" ? support : "forbidden"
}
