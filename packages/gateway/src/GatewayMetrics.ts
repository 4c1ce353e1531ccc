/**
 * The gateway's metrics, beside the manager's `FleetMetrics` (`mcp_fleet.servers`, reconnections, …) and the
 * transport's `mcp.client.*` histograms, in the app's Effect `Metric` registry. Recorded only when the gateway is
 * built with `metrics: true` (`mcp-fleet serve --metrics` or `--otlp URL`); otherwise `Recorder.off` costs nothing.
 * How they leave the process is the application's choice: `mcp-fleet serve --metrics` serves the whole registry
 * as Prometheus text at `/metrics` (Effect's `PrometheusMetrics.format`), `--otlp URL` pushes it to an
 * OpenTelemetry collector (Effect's `OtlpMetrics`).
 *
 * - `mcp.server.operation.duration` (histogram, seconds; the OpenTelemetry MCP semantic conventions' boundaries):
 *   each host request served, with `mcp.method.name`, `gen_ai.tool.name` for `tools/call` (the name the host
 *   called), `error.type` when it failed (the JSON-RPC code, or `tool_error` for an `isError` result) and
 *   `network.transport` (`pipe` for stdio, `tcp` for HTTP).
 * - `mcp.server.session.duration` (histogram, seconds): each host session that ended (a stdio host, a 2025-era HTTP
 *   session), with `mcp.protocol.version` and `network.transport`.
 * - `mcp_fleet.gateway.hosts`, `mcp_fleet.gateway.sessions`, `mcp_fleet.gateway.listeners`,
 *   `mcp_fleet.gateway.calls` (gauges): what `McpGateway.stats()` counts, set each time a host comes or goes.
 * - `mcp_fleet.gateway.refused` (counter, attribute `reason`): requests refused at a limit (`in_flight`,
 *   `sessions`, `size`, `shutting_down`).
 *
 * @since 0.1.0
 */
import { Telemetry } from "@mcp-fleet/transport"
import type * as Context from "effect/Context"
import * as Metric from "effect/Metric"

/** The OpenTelemetry MCP semantic conventions' histogram boundaries, in seconds (the client's, the same for a server). */
const BOUNDARIES = Telemetry.DURATION_BOUNDARIES

/**
 * @since 0.1.0
 * @category metrics
 */
export const operationDuration: Metric.Histogram<number> = Metric.histogram("mcp.server.operation.duration", {
  description: "Host requests served by the gateway, in seconds.",
  boundaries: BOUNDARIES
})

/**
 * @since 0.1.0
 * @category metrics
 */
export const sessionDuration: Metric.Histogram<number> = Metric.histogram("mcp.server.session.duration", {
  description: "Host sessions of the gateway that ended, in seconds.",
  boundaries: BOUNDARIES
})

/**
 * @since 0.1.0
 * @category metrics
 */
export const hosts: Metric.Gauge<number> = Metric.gauge("mcp_fleet.gateway.hosts", {
  description: "2025-era hosts connected to the gateway (initialized)."
})

/**
 * @since 0.1.0
 * @category metrics
 */
export const sessions: Metric.Gauge<number> = Metric.gauge("mcp_fleet.gateway.sessions", {
  description: "2025-era HTTP sessions open (initialized or not)."
})

/**
 * @since 0.1.0
 * @category metrics
 */
export const listeners: Metric.Gauge<number> = Metric.gauge("mcp_fleet.gateway.listeners", {
  description: "Open 2026-07-28 subscriptions/listen streams."
})

/**
 * @since 0.1.0
 * @category metrics
 */
export const calls: Metric.Gauge<number> = Metric.gauge("mcp_fleet.gateway.calls", {
  description: "Host calls in flight upstream."
})

/**
 * @since 0.1.0
 * @category metrics
 */
export const refused: Metric.Counter<number> = Metric.counter("mcp_fleet.gateway.refused", {
  description: "Host requests refused at a limit of the gateway.",
  incremental: true
})

/**
 * Why a request was refused.
 *
 * @since 0.1.0
 * @category models
 */
export type Refusal = "in_flight" | "sessions" | "size" | "shutting_down"

/**
 * One request served, as the duration histogram records it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Operation {
  readonly method: string
  /** The tool name the host called (`tools/call` only). */
  readonly tool?: string | undefined
  /** The JSON-RPC error code as a string, or `tool_error` for an `isError` result; absent when it succeeded. */
  readonly errorType?: string | undefined
  readonly transport: "stdio" | "http"
  readonly seconds: number
}

/**
 * What the gateway records through. `off` records nothing.
 *
 * @since 0.1.0
 * @category models
 */
export interface Recorder {
  readonly enabled: boolean
  readonly operation: (operation: Operation) => void
  readonly sessionEnded: (
    session: { readonly protocolVersion: string; readonly transport: "stdio" | "http"; readonly seconds: number }
  ) => void
  readonly counts: (
    counts: { readonly hosts: number; readonly sessions: number; readonly listeners: number; readonly calls: number }
  ) => void
  readonly refused: (reason: Refusal) => void
}

const network = (transport: "stdio" | "http") => transport === "stdio" ? "pipe" : "tcp"

/**
 * A recorder writing into `context`'s metric registry.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (context: Context.Context<never>): Recorder => ({
  enabled: true,
  operation: ({ errorType, method, seconds, tool, transport }) => {
    const attributes: Record<string, string> = { "mcp.method.name": method, "network.transport": network(transport) }
    if (tool !== undefined) attributes["gen_ai.tool.name"] = tool
    if (errorType !== undefined) attributes["error.type"] = errorType
    Metric.withAttributes(operationDuration, attributes).updateUnsafe(seconds, context)
  },
  sessionEnded: ({ protocolVersion, seconds, transport }) =>
    Metric.withAttributes(sessionDuration, {
      "mcp.protocol.version": protocolVersion,
      "network.transport": network(transport)
    }).updateUnsafe(seconds, context),
  counts: (counts) => {
    hosts.updateUnsafe(counts.hosts, context)
    sessions.updateUnsafe(counts.sessions, context)
    listeners.updateUnsafe(counts.listeners, context)
    calls.updateUnsafe(counts.calls, context)
  },
  refused: (reason) => Metric.withAttributes(refused, { reason }).updateUnsafe(1, context)
})

/**
 * Records nothing.
 *
 * @since 0.1.0
 * @category constructors
 */
export const off: Recorder = {
  enabled: false,
  operation: () => {},
  sessionEnded: () => {},
  counts: () => {},
  refused: () => {}
}
