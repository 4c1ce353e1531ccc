/**
 * An in-memory OpenTelemetry tracer for tests: Effect spans go through `@effect/opentelemetry`'s `OtelTracer` to an
 * `InMemorySpanExporter`, so tests can assert span names, kinds, attributes, parent/child links and status.
 *
 * Imported on its own (`@mcp-fleet/testing/SpanRecorder`) so that the rest of the kit does not load OpenTelemetry.
 *
 * @since 0.3.0
 */
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Layer from "effect/Layer"

/**
 * A recorder: its `layer` installs the tracer, `spans()` reads what has ended so far.
 *
 * @since 0.3.0
 * @category models
 */
export interface SpanRecorder {
  readonly layer: Layer.Layer<OtelTracer.OtelTracer>
  /** Every span ended so far, in the order they ended. */
  readonly spans: () => ReadonlyArray<ReadableSpan>
  /** The ended spans of that name. */
  readonly named: (name: string) => ReadonlyArray<ReadableSpan>
}

/**
 * A fresh recorder (one per test).
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (): SpanRecorder => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const layer = OtelTracer.layer.pipe(Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, provider)))
  return {
    layer,
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((span) => span.name === name)
  }
}
