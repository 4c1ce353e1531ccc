/**
 * How `mcp-fleet tools` shows tools: a server-prefixed name (`server__tool`, since tool names are unique only
 * per server), the `readOnlyHint` kept tri-state (`ro` / `rw` / `?` — absent is never shown as either), and the
 * first line of the description. `--json` gives the same facts with every hint as `true`, `false` or `null`.
 *
 * @since 0.1.0
 */
import type { ServerHealth } from "@mcp-fleet/manager"
import { Tool } from "@mcp-fleet/transport"

/**
 * Joins server and tool into one name.
 *
 * @since 0.1.0
 * @category naming
 */
export const SEPARATOR = "__"

/**
 * `server__tool`.
 *
 * @since 0.1.0
 * @category naming
 */
export const qualifiedName = (server: string, tool: string): string => `${server}${SEPARATOR}${tool}`

/**
 * The `readOnlyHint` in three letters: `ro` (the server says read-only), `rw` (the server says it writes),
 * `?` (the server did not say: treat it as a write).
 *
 * @since 0.1.0
 * @category hints
 */
export const readOnlyTag = (tool: Tool.DiscoveredTool): "ro" | "rw" | "?" => {
  const hint = Tool.hint(tool, "readOnlyHint")
  return hint === "absent" ? "?" : hint ? "ro" : "rw"
}

const firstLine = (text: string | undefined): string => (text ?? "").split("\n", 1)[0]!.trim()

/**
 * One line per tool: `server__tool  ro|rw|?  description`, the name column padded to the longest name.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderText = (tools: ReadonlyArray<Tool.ServerTool>): string => {
  const names = tools.map(({ server, tool }) => qualifiedName(server, tool.name))
  const width = names.reduce((max, name) => Math.max(max, name.length), 0)
  return tools
    .map(({ tool }, i) => {
      const description = firstLine(tool.description ?? tool.title ?? tool.annotations?.title)
      return `${names[i]!.padEnd(width)}  ${readOnlyTag(tool).padEnd(2)}  ${description}`.trimEnd()
    })
    .join("\n")
}

const hintJson = (tool: Tool.DiscoveredTool, key: Parameters<typeof Tool.hint>[1]): boolean | null => {
  const hint = Tool.hint(tool, key)
  return hint === "absent" ? null : hint
}

/**
 * A tool in `--json` output. Hints are `true`, `false`, or `null` when the server did not send them.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolJson {
  readonly name: string
  readonly server: string
  readonly tool: string
  readonly title: string | null
  readonly description: string | null
  readonly readOnly: boolean | null
  readonly destructive: boolean | null
  readonly idempotent: boolean | null
  readonly openWorld: boolean | null
  readonly inputSchema: Readonly<Record<string, unknown>>
}

/**
 * A server that contributed no tools, in `--json` output, and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface UnavailableJson {
  readonly server: string
  readonly state: string
  readonly reason: string | null
}

/**
 * The `--json` document: every listed tool, and every server whose tools are not listed with its state.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListingJson {
  readonly tools: ReadonlyArray<ToolJson>
  readonly unavailable: ReadonlyArray<UnavailableJson>
}

/**
 * Builds the `--json` document.
 *
 * @since 0.1.0
 * @category rendering
 */
export const toJson = (
  tools: ReadonlyArray<Tool.ServerTool>,
  unavailable: ReadonlyArray<ServerHealth.ServerHealth>
): ListingJson => ({
  tools: tools.map(({ server, tool }) => ({
    name: qualifiedName(server, tool.name),
    server,
    tool: tool.name,
    title: tool.title ?? tool.annotations?.title ?? null,
    description: tool.description ?? null,
    readOnly: hintJson(tool, "readOnlyHint"),
    destructive: hintJson(tool, "destructiveHint"),
    idempotent: hintJson(tool, "idempotentHint"),
    openWorld: hintJson(tool, "openWorldHint"),
    inputSchema: tool.inputSchema
  })),
  unavailable: unavailable.map((h) => ({ server: h.name, state: h.state, reason: h.lastError ?? null }))
})
