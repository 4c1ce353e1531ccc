/**
 * With `Telemetry.layer()`: a manager call's span is the parent of the transport's request span, and the manager
 * records its own metrics (servers by state, reconnect attempts, give-ups, list refreshes). Without it: nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { FleetMetrics } from "@mcp-fleet/manager"
import * as SpanRecorder from "@mcp-fleet/testing/SpanRecorder"
import { Telemetry } from "@mcp-fleet/transport"
import { SpanKind } from "@opentelemetry/api"
import { Effect, Layer, Metric, Schedule } from "effect"
import type { Scope } from "effect"
import { TestClock } from "effect/testing"
import { build, fleetSpawner, toolServer, until } from "./fleetPeers.ts"

const withTelemetry = (recorder: SpanRecorder.SpanRecorder) => <A, E>(body: Effect.Effect<A, E, Scope.Scope>) =>
  body.pipe(
    Effect.scoped,
    Effect.provide(Layer.merge(Telemetry.layer(), recorder.layer)),
    Effect.provideService(Metric.MetricRegistry, new Map())
  )

const countOf = (counter: Metric.Counter<number>, server: string) =>
  Effect.map(Metric.value(FleetMetrics.forServer(counter, server)), (state) => state.count)

describe("manager telemetry", () => {
  it.effect("manager.call's span is the parent of the tools/call client span (stdio: network.transport pipe)", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { layer } = fleetSpawner({ notes: (_, peer) => toolServer("notes", () => ["read"])(peer) })
      const manager = yield* build({ servers: { notes: { command: "notes" } } }, layer)
      yield* manager.waitForReady("notes")
      yield* manager.call("notes", "read", { id: 1 })
      const parent = recorder.named("McpManager.call")[0]!
      const child = recorder.named("tools/call read")[0]!
      assert.deepInclude(parent.attributes, { "mcp.server.name": "notes", "gen_ai.tool.name": "read" })
      assert.strictEqual(child.kind, SpanKind.CLIENT)
      assert.strictEqual(child.parentSpanContext?.spanId, parent.spanContext().spanId)
      // stdio runs on the same session as HTTP: the request id is known to the span too.
      assert.match(String(child.attributes["jsonrpc.request.id"]), /^\d+$/)
      assert.deepInclude(child.attributes, {
        "mcp.method.name": "tools/call",
        "mcp.server.name": "notes",
        "network.transport": "pipe",
        "mcp.protocol.version": "2025-11-25"
      })
      assert.strictEqual(
        (yield* Metric.value(FleetMetrics.serversIn("ready"))).value,
        1,
        "one server ready"
      )
      assert.strictEqual((yield* Metric.value(FleetMetrics.serversIn("starting"))).value, 0)
    }).pipe(withTelemetry(recorder))
  })

  it.effect("a list_changed refresh, the reconnect attempts and the give-up are counted", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        s: (index, peer) => (index === 0 ? toolServer("s", () => ["t"])(peer) : peer.exit(2))
      })
      const manager = yield* build({
        servers: { s: { command: "s" } },
        reconnect: Schedule.spaced("250 millis").pipe(Schedule.upTo({ times: 2 }))
      }, layer)
      yield* until(manager, "s", (h) => h.state === "ready")
      assert.strictEqual(yield* countOf(FleetMetrics.listRefreshes, "s"), 0, "the first listing is no refresh")
      const peer = spawned.peers.s![0]!
      yield* peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      const context = yield* Effect.context<never>()
      const refreshes = FleetMetrics.forServer(FleetMetrics.listRefreshes, "s")
      // The ledger's observer counts the refresh in the same step as the Listed transition: a snapshot follows it.
      yield* until(manager, "s", () => refreshes.valueUnsafe(context).count === 1)
      yield* peer.exit(1)
      yield* until(manager, "s", (h) => h.state === "offline")
      yield* TestClock.adjust("250 millis")
      yield* until(manager, "s", () => spawned.count.s === 2)
      yield* TestClock.adjust("250 millis")
      yield* until(manager, "s", (h) => h.gaveUp)
      assert.strictEqual(yield* countOf(FleetMetrics.reconnectAttempts, "s"), 2)
      assert.strictEqual(yield* countOf(FleetMetrics.giveUps, "s"), 1)
      assert.strictEqual((yield* Metric.value(FleetMetrics.serversIn("offline"))).value, 1)
      assert.strictEqual((yield* Metric.value(FleetMetrics.serversIn("ready"))).value, 0)
    }).pipe(withTelemetry(recorder))
  })

  it.effect("without the telemetry layer the manager records no metric and opens no span", () => {
    const recorder = SpanRecorder.make()
    return Effect.gen(function*() {
      const { layer } = fleetSpawner({ notes: (_, peer) => toolServer("notes", () => ["read"])(peer) })
      const manager = yield* build({ servers: { notes: { command: "notes" } } }, layer)
      yield* manager.waitForReady("notes")
      yield* manager.call("notes", "read", {})
      const snapshot = yield* Metric.snapshot
      assert.deepStrictEqual(snapshot.filter((m) => m.id.startsWith("mcp")).map((m) => m.id), [])
      assert.deepStrictEqual(recorder.named("tools/call read"), [])
      // No span of the manager's either (the app's own tracer sees none): a span per call costs about as much
      // client CPU as the call itself (BENCHMARKS.md, "Issue 19, fleets (h14)").
      assert.deepStrictEqual(recorder.named("McpManager.call"), [])
    }).pipe(Effect.scoped, Effect.provide(recorder.layer), Effect.provideService(Metric.MetricRegistry, new Map()))
  })
})
