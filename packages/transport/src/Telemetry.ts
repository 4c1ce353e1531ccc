/**
 * OpenTelemetry for MCP clients, following the OpenTelemetry MCP semantic conventions (status: development).
 *
 * Off by default: with no `McpTelemetry.layer` provided, a session builds no span, records no metric and adds no
 * `_meta`, and its per-request path is the untraced one. A session reads `McpTelemetry` once, when it is made, so
 * provide the layer where clients (or the manager) are built.
 *
 * When on, every request of a session is a span of kind client named `{mcp.method.name} {target}` (the target is
 * the tool's or the prompt's name, when there is one), carrying `mcp.method.name`, `gen_ai.tool.name` /
 * `gen_ai.prompt.name`, `jsonrpc.request.id`, `mcp.protocol.version`, `mcp.session.id` (HTTP),
 * `network.transport` (`pipe` for stdio, `tcp` for HTTP), `mcp.server.name` (the server's label) and, on failure,
 * `error.type` (`tool_error` for an `isError` result, the JSON-RPC code for an error answer, else the error's tag)
 * and `rpc.response.status_code`. Arguments and results (`gen_ai.tool.call.arguments` / `.result`) are recorded
 * only with `recordPayloads`. The span's W3C `traceparent` goes into the request's `params._meta`. Durations are
 * recorded in the `mcp.client.operation.duration` and `mcp.client.session.duration` histograms (seconds).
 *
 * Spans go to whatever tracer the app installs (`@effect/opentelemetry`'s `OtelTracer`, or `effect/observability`'s
 * OTLP layers); metrics go to the app's `Metric` registry.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { McpClient, Telemetry } from "@mcp-fleet/transport"
 *
 * const traced = McpClient.make({ command: "node", args: ["server.js"] }).pipe(
 *   Effect.provide(Telemetry.layer())
 * )
 * ```
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"

/**
 * What is recorded.
 *
 * @since 0.3.0
 * @category models
 */
export interface Settings {
  /** Spans, metrics and trace propagation for every request. */
  readonly enabled: boolean
  /** Also record tool arguments and results on spans (they may be sensitive). */
  readonly recordPayloads: boolean
}

/**
 * The settings sessions read when they are made; telemetry is off by default.
 *
 * @since 0.3.0
 * @category references
 */
export const McpTelemetry: Context.Reference<Settings> = Context.Reference<Settings>(
  "@mcp-fleet/transport/McpTelemetry",
  { defaultValue: () => ({ enabled: false, recordPayloads: false }) }
)

/**
 * Turns telemetry on for every client built with this layer in its context.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (options?: { readonly recordPayloads?: boolean | undefined }): Layer.Layer<never> =>
  Layer.succeed(McpTelemetry, { enabled: true, recordPayloads: options?.recordPayloads === true })

/**
 * The histogram boundaries (seconds) the conventions give for MCP durations.
 *
 * @since 0.3.0
 * @category metrics
 */
export const DURATION_BOUNDARIES: ReadonlyArray<number> = [
  0.01,
  0.02,
  0.05,
  0.1,
  0.2,
  0.5,
  1,
  2,
  5,
  10,
  30,
  60,
  120,
  300
]

/**
 * `mcp.client.operation.duration`: seconds from sending a request to its outcome.
 *
 * @since 0.3.0
 * @category metrics
 */
export const operationDuration: Metric.Histogram<number> = Metric.histogram("mcp.client.operation.duration", {
  description: "Duration of an MCP request as seen by the client, in seconds.",
  boundaries: DURATION_BOUNDARIES
})

/**
 * `mcp.client.session.duration`: seconds from opening a session to its end.
 *
 * @since 0.3.0
 * @category metrics
 */
export const sessionDuration: Metric.Histogram<number> = Metric.histogram("mcp.client.session.duration", {
  description: "Duration of an MCP client session, in seconds.",
  boundaries: DURATION_BOUNDARIES
})

/**
 * `mcp_fleet.bytes.sent`: UTF-8 bytes of the JSON-RPC messages sent to a server (attribute `mcp.server.name`).
 *
 * @since 0.3.0
 * @category metrics
 */
export const bytesSent = (server: string): Metric.Counter<number> =>
  Metric.counter("mcp_fleet.bytes.sent", {
    description: "UTF-8 bytes of JSON-RPC messages sent to MCP servers.",
    incremental: true,
    attributes: { "mcp.server.name": server }
  })

/**
 * `mcp_fleet.bytes.received`: UTF-8 bytes of the JSON-RPC messages received from a server.
 *
 * @since 0.3.0
 * @category metrics
 */
export const bytesReceived = (server: string): Metric.Counter<number> =>
  Metric.counter("mcp_fleet.bytes.received", {
    description: "UTF-8 bytes of JSON-RPC messages received from MCP servers.",
    incremental: true,
    attributes: { "mcp.server.name": server }
  })
