/**
 * The rule that picks a profile's surface: its real tools, or search mode (`search_tools`, `call_tool` and the
 * pinned tools).
 *
 * **Contract** of {@link decide}: `mode: "tools"` never searches, `mode: "search"` always does, and
 * `mode: "auto"` (the default) searches exactly when the profile keeps more tools than the threshold
 * ({@link DEFAULT_THRESHOLD} unless set). The reason says which, for the status and the logs.
 *
 * @since 0.1.0
 */
import type { Mode } from "./Profiles.ts"

/**
 * The default threshold: 40 tools, Cursor's practical budget ("maximum total of 40 Tools", GATEWAYS.md §5).
 * Beyond it most hosts choose tools worse and spend much of the context on schemas.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_THRESHOLD = 40

/**
 * The surface chosen, and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface Surface {
  readonly search: boolean
  readonly reason: string
}

/**
 * Picks the surface for `toolCount` kept tools (see the module's contract).
 *
 * @example
 * ```ts
 * import { SearchMode } from "@mcp-fleet/gateway"
 *
 * SearchMode.decide("auto", 300, undefined).search // true
 * SearchMode.decide("auto", 12, undefined).search // false
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const decide = (mode: Mode, toolCount: number, threshold: number | undefined): Surface => {
  if (mode === "tools") return { search: false, reason: "mode is \"tools\"" }
  if (mode === "search") return { search: true, reason: "mode is \"search\"" }
  const limit = threshold ?? DEFAULT_THRESHOLD
  return toolCount > limit
    ? { search: true, reason: `${toolCount} tools is more than the search threshold of ${limit}` }
    : { search: false, reason: `${toolCount} tools is within the search threshold of ${limit}` }
}
