/**
 * The manager's own metrics, beside the transport's `mcp.client.*` histograms. Recorded only when telemetry is on
 * (`Telemetry.layer()` from `@mcp-fleet/transport`, provided where the manager layer is built), into the app's
 * `Metric` registry.
 *
 * - `mcp_fleet.servers` (gauge, attribute `state`): how many servers are in each of the five states.
 * - `mcp_fleet.reconnect.attempts` (counter, attribute `mcp.server.name`): reconnection attempts scheduled.
 * - `mcp_fleet.reconnect.give_ups` (counter, `mcp.server.name`): servers that stopped reconnecting.
 * - `mcp_fleet.tools.list_refreshes` (counter, `mcp.server.name`): tool lists fetched again after the first
 *   (list_changed, reconnection, restart).
 * - `mcp_fleet.notifications.dropped` (counter): state-change notifications dropped because a listener queue of the
 *   manager was full (`eventCapacity`).
 *
 * @since 0.3.0
 */
import * as Metric from "effect/Metric"
import type { ServerState } from "./ServerState.ts"

/**
 * @since 0.3.0
 * @category metrics
 */
export const servers: Metric.Gauge<number> = Metric.gauge("mcp_fleet.servers", {
  description: "MCP servers of the fleet in each state."
})

/**
 * @since 0.3.0
 * @category metrics
 */
export const reconnectAttempts: Metric.Counter<number> = Metric.counter("mcp_fleet.reconnect.attempts", {
  description: "Reconnection attempts scheduled.",
  incremental: true
})

/**
 * @since 0.3.0
 * @category metrics
 */
export const giveUps: Metric.Counter<number> = Metric.counter("mcp_fleet.reconnect.give_ups", {
  description: "Servers that stopped reconnecting.",
  incremental: true
})

/**
 * @since 0.3.0
 * @category metrics
 */
export const listRefreshes: Metric.Counter<number> = Metric.counter("mcp_fleet.tools.list_refreshes", {
  description: "Tool lists fetched again after a server's first listing.",
  incremental: true
})

/**
 * @since 0.3.0
 * @category metrics
 */
export const droppedNotifications: Metric.Counter<number> = Metric.counter("mcp_fleet.notifications.dropped", {
  description: "State-change notifications dropped because a listener queue of the manager was full.",
  incremental: true
})

/**
 * The gauge of one state.
 *
 * @since 0.3.0
 * @category metrics
 */
export const serversIn = (state: ServerState): Metric.Gauge<number> => Metric.withAttributes(servers, { state })

/**
 * A per-server counter.
 *
 * @since 0.3.0
 * @category metrics
 */
export const forServer = (counter: Metric.Counter<number>, server: string): Metric.Counter<number> =>
  Metric.withAttributes(counter, { "mcp.server.name": server })
