/**
 * A stable fingerprint of a tool set: equal for the same tools whatever the order of tools or of keys.
 *
 * @internal
 */
import type { Tool } from "@mcp-fleet/transport"

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return Object.fromEntries(entries.map(([key, inner]) => [key, canonical(inner)]))
  }
  return value
}

/** @internal */
export const fingerprint = (tools: ReadonlyArray<Tool.DiscoveredTool>): string =>
  JSON.stringify([...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(canonical))
