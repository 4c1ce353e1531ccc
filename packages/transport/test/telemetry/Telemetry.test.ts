/**
 * Request spans and metrics per the OpenTelemetry MCP conventions, over an in-memory session, with an in-memory
 * span exporter; and nothing at all when telemetry is off.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpPeer } from "@mcp-fleet/testing"
import * as SpanRecorder from "@mcp-fleet/testing/SpanRecorder"
import { McpClient, Telemetry } from "@mcp-fleet/transport"
import { SpanKind, SpanStatusCode } from "@opentelemetry/api"
import { Deferred, Effect, Exit, Fiber, Metric, Scope } from "effect"
import { TestClock } from "effect/testing"
import type { Answer, Sent } from "./memorySession.ts"
import { open } from "./memorySession.ts"

const text = (t: string) => ({ content: [{ type: "text", text: t }] })

const answers = (sent: Sent): Answer => {
  const name = sent.params?.["name"]
  if (sent.method !== "tools/call") return { result: {} }
  if (name === "boom") return { result: { ...text("kaput"), isError: true } }
  if (name === "missing") return { error: { code: -32602, message: "Unknown tool: missing" } }
  return { result: text("ok") }
}

/** Runs `body` with a fresh metric registry, telemetry on, and the recorder's tracer. */
const traced =
  (recorder: SpanRecorder.SpanRecorder, options?: { readonly recordPayloads?: boolean }) =>
  <A, E>(body: Effect.Effect<A, E, Scope.Scope>) =>
    body.pipe(
      Effect.scoped,
      Effect.provide(Telemetry.layer(options)),
      Effect.provide(recorder.layer),
      Effect.provideService(Metric.MetricRegistry, new Map())
    )

describe("request spans", () => {
  it.effect("a tool call is a client span named `tools/call {tool}` with the convention's attributes", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { session, sent } = yield* open(answers)
      yield* session.awaitReady
      yield* session.callTool("echo", { text: "hi" }).pipe(Effect.withSpan("McpManager.call"))
      const [span] = recorder.named("tools/call echo")
      assert.isDefined(span)
      const parent = recorder.named("McpManager.call")[0]!
      assert.strictEqual(span!.kind, SpanKind.CLIENT)
      assert.deepInclude(span!.attributes, {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": "2025-11-25",
        "mcp.session.id": "session-1",
        "mcp.server.name": "mem",
        "network.transport": "tcp",
        "server.address": "127.0.0.1",
        "server.port": 8931
      })
      const call = sent.find((s) => s.method === "tools/call")!
      assert.strictEqual(span!.attributes["jsonrpc.request.id"], String(call.id))
      assert.notProperty(span!.attributes, "gen_ai.tool.call.arguments")
      assert.notProperty(span!.attributes, "error.type")
      assert.strictEqual(span!.status.code, SpanStatusCode.OK)
      // The caller's span is the parent of the request span.
      assert.strictEqual(span!.parentSpanContext?.spanId, parent.spanContext().spanId)
      assert.strictEqual(span!.spanContext().traceId, parent.spanContext().traceId)
      // The request carries the request span's context in params._meta, next to the arguments.
      const { traceId, spanId } = span!.spanContext()
      assert.deepStrictEqual(call.params, {
        name: "echo",
        arguments: { text: "hi" },
        _meta: { traceparent: `00-${traceId}-${spanId}-01` }
      })
    }).pipe(traced(recorder))
  })

  it.effect("isError is error.type tool_error with status ERROR; the call still succeeds", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { session } = yield* open(answers)
      yield* session.awaitReady
      const result = yield* session.callTool("boom", {})
      assert.isTrue(result.isError)
      const span = recorder.named("tools/call boom")[0]!
      assert.strictEqual(span.attributes["error.type"], "tool_error")
      assert.strictEqual(span.status.code, SpanStatusCode.ERROR)
    }).pipe(traced(recorder))
  })

  it.effect("a JSON-RPC error is error.type and rpc.response.status_code with its code, status ERROR", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { session } = yield* open(answers)
      yield* session.awaitReady
      const exit = yield* Effect.exit(session.callTool("missing", {}))
      assert.strictEqual(exit._tag, "Failure")
      const span = recorder.named("tools/call missing")[0]!
      assert.strictEqual(span.attributes["error.type"], "-32602")
      assert.strictEqual(span.attributes["rpc.response.status_code"], "-32602")
      assert.strictEqual(span.status.code, SpanStatusCode.ERROR)
      assert.include(span.status.message ?? "", "Unknown tool: missing")
    }).pipe(traced(recorder))
  })

  it.effect("arguments and results are recorded only when opted in", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { session } = yield* open(answers)
      yield* session.awaitReady
      yield* session.callTool("echo", { text: "secret" })
      const span = recorder.named("tools/call echo")[0]!
      assert.strictEqual(span.attributes["gen_ai.tool.call.arguments"], "{\"text\":\"secret\"}")
      assert.include(String(span.attributes["gen_ai.tool.call.result"]), "\"ok\"")
    }).pipe(traced(recorder, { recordPayloads: true }))
  })

  it.effect("without the telemetry layer: no span, no _meta, no metric", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { session, sent } = yield* open(answers)
      yield* session.awaitReady
      yield* session.callTool("echo", { text: "hi" })
      assert.deepStrictEqual(recorder.spans().map((s) => s.name).filter((n) => n.startsWith("tools/")), [])
      assert.deepStrictEqual(sent.find((s) => s.method === "tools/call")!.params, {
        name: "echo",
        arguments: { text: "hi" }
      })
      const snapshot = yield* Metric.snapshot
      assert.isFalse(snapshot.some((m) => m.id === "mcp.client.operation.duration"))
    }).pipe(
      Effect.scoped,
      Effect.provide(recorder.layer),
      Effect.provideService(Metric.MetricRegistry, new Map())
    )
  })
})

describe("byte counters", () => {
  it.effect("mcp_fleet.bytes.sent / .received count the UTF-8 bytes of the session's JSON-RPC messages", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { session, wire } = yield* open(answers)
      yield* session.awaitReady
      yield* session.callTool("echo", { text: "é😀" })
      const utf8 = (texts: ReadonlyArray<string>) => texts.reduce((n, t) => n + Buffer.byteLength(t, "utf8"), 0)
      assert.strictEqual((yield* Metric.value(Telemetry.bytesSent("mem"))).count, utf8(wire.out))
      assert.strictEqual((yield* Metric.value(Telemetry.bytesReceived("mem"))).count, utf8(wire.in))
      assert.isAbove(utf8(wire.out), wire.out.join("").length, "non-ASCII counted as bytes, not characters")
    }).pipe(traced(recorder))
  })
})

describe("duration metrics", () => {
  it.effect("mcp.client.operation.duration records each request in seconds, with its attributes", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const arrived = yield* Deferred.make<void>()
      const { session } = yield* open((sent) =>
        sent.method === "tools/call" && sent.params?.["name"] === "slow"
          ? {
            later: Deferred.succeed(arrived, undefined).pipe(
              Effect.andThen(Deferred.await(release)),
              Effect.as({ result: text("late") })
            )
          }
          : answers(sent)
      )
      yield* session.awaitReady
      const fiber = yield* Effect.forkChild(session.callTool("slow", {}))
      yield* Deferred.await(arrived)
      yield* TestClock.adjust("1500 millis")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(fiber)
      yield* session.callTool("boom", {})
      const slow = yield* Metric.value(Metric.withAttributes(Telemetry.operationDuration, {
        "mcp.method.name": "tools/call",
        "network.transport": "tcp",
        "mcp.protocol.version": "2025-11-25",
        "gen_ai.tool.name": "slow"
      }))
      assert.strictEqual(slow.count, 1)
      assert.strictEqual(slow.sum, 1.5)
      assert.deepStrictEqual(
        slow.buckets.filter(([, n]) => n > 0).map(([bound]) => bound)[0],
        2,
        "1.5 s falls in the 2 s bucket of the convention's boundaries"
      )
      const failed = yield* Metric.value(Metric.withAttributes(Telemetry.operationDuration, {
        "mcp.method.name": "tools/call",
        "network.transport": "tcp",
        "mcp.protocol.version": "2025-11-25",
        "gen_ai.tool.name": "boom",
        "error.type": "tool_error"
      }))
      assert.strictEqual(failed.count, 1)
    }).pipe(traced(recorder))
  })

  it.effect("mcp.client.session.duration records the session's life when it closes", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { session } = yield* open(answers).pipe(Scope.provide(scope))
      yield* session.awaitReady
      yield* TestClock.adjust("90 seconds")
      yield* Scope.close(scope, Exit.void)
      const state = yield* Metric.value(Metric.withAttributes(Telemetry.sessionDuration, {
        "network.transport": "tcp",
        "mcp.protocol.version": "2025-11-25"
      }))
      assert.strictEqual(state.count, 1)
      assert.strictEqual(state.sum, 90)
    }).pipe(traced(recorder))
  })

  it.effect("a stdio session whose process exits records its duration with error.type ProcessExited", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { layer, peer } = yield* McpPeer.controlled({})
      const client = yield* McpClient.make({ command: "server", name: "dies" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      yield* TestClock.adjust("2 seconds")
      yield* (yield* peer).exit(1)
      yield* client.awaitTerminated
      yield* client.forceClose
      const state = yield* Metric.value(Metric.withAttributes(Telemetry.sessionDuration, {
        "network.transport": "pipe",
        "mcp.protocol.version": "2025-11-25",
        "error.type": "ProcessExited"
      }))
      assert.strictEqual(state.count, 1)
      assert.strictEqual(state.sum, 2)
    }).pipe(traced(recorder))
  })
})
