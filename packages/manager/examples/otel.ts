/**
 * A traced fleet: every MCP request is an OpenTelemetry client span (per the MCP semantic conventions) under the
 * manager call that made it, and the manager records its metrics. Run: `node packages/manager/examples/otel.ts`.
 *
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set (e.g. `http://localhost:4318`), spans and metrics go there over OTLP/HTTP
 * (`effect/observability`, no OpenTelemetry SDK needed). Without it, spans go to an in-memory exporter
 * (`@opentelemetry/sdk-trace-base` through `@effect/opentelemetry`) and are printed, with the metrics.
 */
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import { NodeHttpClient, NodeRuntime, NodeServices } from "@effect/platform-node"
import { FleetMetrics, McpManager } from "@mcp-fleet/manager"
import { FakeServer } from "@mcp-fleet/testing"
import { Telemetry } from "@mcp-fleet/transport"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Console, Effect, Layer, Metric } from "effect"
import { Otlp } from "effect/observability"

const fake = (options: FakeServer.Options) => {
  const { args, command } = FakeServer.command(options)
  return { command, args }
}

// The app reads its environment; the library never does.
const endpoint = process.env["OTEL_EXPORTER_OTLP_ENDPOINT"]
const exporter = new InMemorySpanExporter()

const otlp = endpoint !== undefined && endpoint !== ""
  ? Otlp.layerJson({ baseUrl: endpoint, resource: { serviceName: "mcp-fleet-example" } }).pipe(
    Layer.provide(NodeHttpClient.layerUndici)
  )
  : undefined
const inMemory = OtelTracer.layer.pipe(Layer.provide(Layer.succeed(
  OtelTracer.OtelTracerProvider,
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
)))

// `Telemetry.layer()` must be in the context where the manager is built: sessions read it once.
const Fleet = McpManager.layer({ servers: { notes: fake({}), search: fake({}) } }).pipe(
  Layer.provide(Layer.mergeAll(NodeServices.layer, Telemetry.layer()))
)

const program = Effect.gen(function*() {
  const manager = yield* McpManager.McpManager
  yield* manager.waitForReady("notes")
  yield* manager.waitForReady("search")
  yield* manager.call("notes", "echo", { note: "hello" })
  yield* manager.call("search", "echo", { q: "otel" }).pipe(Effect.withSpan("agent turn"))
  const ready = yield* Metric.value(FleetMetrics.serversIn("ready"))
  yield* Console.log(`servers ready: ${ready.value}`)
  const calls = yield* Metric.value(Metric.withAttributes(Telemetry.operationDuration, {
    "mcp.method.name": "tools/call",
    "network.transport": "pipe",
    "mcp.protocol.version": "2025-11-25",
    "gen_ai.tool.name": "echo"
  }))
  yield* Console.log(`mcp.client.operation.duration tools/call echo: count ${calls.count}`)
}).pipe(Effect.provide(Fleet))

const printSpans = Effect.suspend(() => {
  const spans = exporter.getFinishedSpans()
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
  return Effect.forEach(spans, (span) => {
    const parent = span.parentSpanContext === undefined ? undefined : byId.get(span.parentSpanContext.spanId)
    const server = span.attributes["mcp.server.name"]
    const labelled = server === undefined ? span.name : `${span.name} [${server}]`
    return Console.log(`span ${labelled}${parent === undefined ? "" : ` <- ${parent.name}`}`)
  }, { discard: true })
})

NodeRuntime.runMain(
  otlp !== undefined
    ? program.pipe(Effect.provide(otlp))
    : program.pipe(Effect.provide(inMemory), Effect.andThen(printSpans))
)
