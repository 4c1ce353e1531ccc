/**
 * Counts reconnections from the manager's `changes` stream: a server that went `offline → starting` and then
 * `starting → ready` came back. (`restart` goes to `starting` without passing through `offline`, so it is not
 * counted here; the chaos counts restarts itself.)
 *
 * @since 0.0.0
 */
import type { ManagerOptions, McpManager } from "@mcp-fleet/manager"
import { Effect, Stream } from "effect"

/**
 * The counters.
 *
 * @since 0.0.0
 * @category models
 */
export interface Reconnections {
  /** `offline → starting → ready`. */
  reconnected: number
  /** `offline → starting → degraded` (a hanging server comes back without a tool list). */
  reconnectedDegraded: number
  /** `→ offline` transitions. */
  wentOffline: number
  /** Every transition seen. */
  transitions: number
  /** The last transition of each server, as `from→to`. */
  readonly last: Map<string, string>
}

/**
 * Fresh counters.
 *
 * @since 0.0.0
 * @category constructors
 */
export const make = (): Reconnections => ({
  reconnected: 0,
  reconnectedDegraded: 0,
  wentOffline: 0,
  transitions: 0,
  last: new Map()
})

/**
 * Counts one transition.
 *
 * @since 0.0.0
 * @category mutations
 */
export const step = (counts: Reconnections, change: ManagerOptions.StateChange): void => {
  counts.transitions++
  const previous = counts.last.get(change.server)
  if (change.from === "starting" && previous === "offline→starting") {
    if (change.to === "ready") counts.reconnected++
    else if (change.to === "degraded") counts.reconnectedDegraded++
  }
  if (change.to === "offline") counts.wentOffline++
  counts.last.set(change.server, `${change.from}→${change.to}`)
}

/**
 * Consumes `manager.changes` forever, counting into `counts`. Fork it (scoped) before the chaos starts.
 *
 * @since 0.0.0
 * @category tracking
 */
export const track = (manager: McpManager.McpManager["Service"], counts: Reconnections): Effect.Effect<void> =>
  manager.changes.pipe(Stream.runForEach((change) => Effect.sync(() => step(counts, change))))
