/**
 * Model-facing tool names: `server__tool` by default, always valid for the providers
 * (`^[a-zA-Z0-9_-]{1,64}$`), chosen deterministically, and never two tools under one name.
 *
 * @since 0.1.0
 */
import type { Tool } from "@mcp-fleet/transport"

/**
 * What providers accept as a tool name (OpenAI, Anthropic and Gemini agree on this set).
 *
 * @since 0.1.0
 * @category constants
 */
export const VALID_NAME: RegExp = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * The longest valid name.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_LENGTH = 64

/**
 * Gives the model-facing name of one server's tool. The result is sanitised afterwards, so it may contain
 * any character.
 *
 * @since 0.1.0
 * @category models
 */
export type Naming = (server: string, tool: string) => string

/**
 * `server__tool`.
 *
 * @since 0.1.0
 * @category naming
 */
export const defaultNaming: Naming = (server, tool) => `${server}__${tool}`

/** FNV-1a, 32 bits, as 8 hex digits: a short, stable digest of the original name. */
const digest = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
}

/**
 * Makes any text a valid name, deterministically: every character outside `[a-zA-Z0-9_-]` becomes `_`; an
 * empty result becomes `tool`; a result longer than 64 characters keeps its first 55 and ends with `_` and
 * a digest of the original text, so two long names that share a prefix still differ.
 *
 * @example
 * ```ts
 * import { ToolNames } from "@mcp-fleet/ai"
 *
 * ToolNames.sanitize("fs__read file") // "fs__read_file"
 * ```
 *
 * @since 0.1.0
 * @category naming
 */
export const sanitize = (text: string): string => {
  const replaced = text.replace(/[^a-zA-Z0-9_-]/g, "_")
  const nonEmpty = replaced.length === 0 ? "tool" : replaced
  return nonEmpty.length <= MAX_LENGTH ? nonEmpty : `${nonEmpty.slice(0, MAX_LENGTH - 9)}_${digest(text)}`
}

/**
 * One tool under its model-facing name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Named extends Tool.ServerTool {
  readonly name: string
}

/**
 * A tool left out because an earlier one (in `server`, then listing, order) already has its name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Collision {
  readonly name: string
  readonly server: string
  readonly tool: string
  /** The tool that keeps the name. */
  readonly keptBy: Tool.ServerTool
}

/**
 * Names every tool. Tools are taken in server-name order, then in the server's listing order, so the
 * same fleet always gives the same names; a name already taken is reported in `collisions`, and that tool
 * is left out (the rest of the toolkit is unaffected).
 *
 * @since 0.1.0
 * @category naming
 */
export const assign = (
  tools: ReadonlyArray<Tool.ServerTool>,
  naming: Naming = defaultNaming
): { readonly named: ReadonlyArray<Named>; readonly collisions: ReadonlyArray<Collision> } => {
  const order = tools.map((t, i) => [t, i] as const).sort(([a, i], [b, j]) =>
    a.server < b.server ? -1 : a.server > b.server ? 1 : i - j
  )
  const taken = new Map<string, Tool.ServerTool>()
  const named: Array<Named> = []
  const collisions: Array<Collision> = []
  for (const [t] of order) {
    const name = sanitize(naming(t.server, t.tool.name))
    const keptBy = taken.get(name)
    if (keptBy !== undefined) {
      collisions.push({ name, server: t.server, tool: t.tool.name, keptBy })
      continue
    }
    taken.set(name, t)
    named.push({ ...t, name })
  }
  return { named, collisions }
}
