/**
 * Which of a server's tools pass: allow and deny globs on the upstream tool name, and `readOnly`.
 *
 * **Globs** are Effect's own `Glob` (the `effect` package, already every package's dependency), with
 * `dot: true`: `*` any run of characters, `?` one character, `[abc]` / `[!abc]` a set, `{a,b}` alternatives,
 * `\` a literal. Matching is whole-name and case-sensitive. Tool names are single path segments for `Glob` (the
 * MCP charset `[A-Za-z0-9_.-]` has no `/`); a name with `/` in it is matched segment by segment, so there `*`
 * does not cross the `/`.
 *
 * **Contract** of {@link decide}: a tool is kept when it matches at least one `allow` glob (an absent `allow`
 * keeps every name; `allow: []` keeps none), matches no `deny` glob (deny wins), and passes `readOnly`:
 * - `readOnly: true` keeps only the tools whose `readOnlyHint` is `true`. An absent hint is not defaulted: it
 *   is unknown and treated as a write, and the reason says "absent" rather than "false".
 * - `readOnly: "lenient"` drops only the tools whose `readOnlyHint` is `false`: unannotated tools stay.
 * - `readOnly: false` or absent does not look at hints.
 *
 * A dropped tool carries the first reason found, in the order allow, deny, readOnly, as a sentence fragment for
 * the status.
 *
 * @since 0.1.0
 */
import type { Tool } from "@mcp-fleet/transport"
import * as Glob from "effect/Glob"

/**
 * The filter of one server's tools, as written in the configuration.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerFilter {
  readonly allow?: ReadonlyArray<string> | undefined
  readonly deny?: ReadonlyArray<string> | undefined
  readonly readOnly?: boolean | "lenient" | undefined
}

/**
 * Whether a tool passes, and if not, why.
 *
 * @since 0.1.0
 * @category models
 */
export type Decision =
  | { readonly _tag: "Kept" }
  | { readonly _tag: "Dropped"; readonly reason: string }

/**
 * A filter with its globs compiled once.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compiled {
  readonly decide: (tool: Tool.DiscoveredTool) => Decision
}

const kept: Decision = { _tag: "Kept" }
const dropped = (reason: string): Decision => ({ _tag: "Dropped", reason })

/**
 * Whether `name` matches `pattern` (an Effect `Glob` with `dot: true`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const matches = (pattern: string, name: string): boolean => Glob.match(Glob.make(pattern, { dot: true }), name)

const compileGlobs = (patterns: ReadonlyArray<string>) =>
  patterns.map((pattern) => ({ pattern, glob: Glob.make(pattern, { dot: true }) }))

/**
 * Compiles a filter (see the module's contract).
 *
 * @example
 * ```ts
 * import { ToolFilter } from "@mcp-fleet/gateway"
 *
 * const filter = ToolFilter.compile({ allow: ["read_*", "list_*"], deny: ["*_secret"] })
 * filter.decide({ name: "read_file", inputSchema: {} }) // { _tag: "Kept" }
 * filter.decide({ name: "write_file", inputSchema: {} })._tag // "Dropped"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const compile = (filter: ServerFilter): Compiled => {
  const allow = filter.allow === undefined ? undefined : compileGlobs(filter.allow)
  const deny = compileGlobs(filter.deny ?? [])
  const readOnly = filter.readOnly ?? false
  return {
    decide: (tool) => {
      if (allow !== undefined && !allow.some((a) => Glob.match(a.glob, tool.name))) {
        return dropped(
          allow.length === 0
            ? "the allow list is empty"
            : `matches no allow glob (${allow.map((a) => JSON.stringify(a.pattern)).join(", ")})`
        )
      }
      const denied = deny.find((d) => Glob.match(d.glob, tool.name))
      if (denied !== undefined) return dropped(`matches the deny glob ${JSON.stringify(denied.pattern)}`)
      const hint = tool.annotations?.readOnlyHint
      if (readOnly === true && hint !== true) {
        return dropped(
          hint === false
            ? "readOnly: its readOnlyHint is false"
            : "readOnly: it has no readOnlyHint (unknown, treated as a write)"
        )
      }
      if (readOnly === "lenient" && hint === false) return dropped("readOnly (lenient): its readOnlyHint is false")
      return kept
    }
  }
}

/**
 * Applies several filters in turn (the fleet's, then a profile's): the first that drops the tool says why.
 *
 * @since 0.1.0
 * @category combinators
 */
export const all = (filters: ReadonlyArray<Compiled>): Compiled => ({
  decide: (tool) => {
    for (const filter of filters) {
      const decision = filter.decide(tool)
      if (decision._tag === "Dropped") return decision
    }
    return kept
  }
})
