/**
 * `protocol: "auto"` is the default over stdio (issue 16), against in-memory peers under TestClock: a legacy peer
 * that answers `server/discover` with `-32601` costs one round trip and no clock time; a peer that ignores it costs
 * the probe's deadline, which is TestClock time a test can move.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import { framesWith } from "../faults/helpers.ts"
import { awaitMethod, controlledPeer } from "../peers.ts"

describe("the era over stdio, protocol at its default", () => {
  it.effect("a legacy peer (-32601 to server/discover): legacy after one round trip, at time 0", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({})
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      const session = yield* client.awaitReady
      assert.strictEqual(session.era ?? "legacy", "legacy")
      assert.strictEqual(session.protocolVersion, "2025-11-25")
      yield* awaitMethod(frames, "notifications/initialized", 1)
      const methods = frames.flatMap((f) =>
        typeof f === "object" && f !== null && "method" in f && typeof f.method === "string" ? [f.method] : []
      )
      assert.deepStrictEqual(methods.slice(0, 3), ["server/discover", "initialize", "notifications/initialized"])
      assert.strictEqual(yield* Clock.currentTimeMillis, 0, "the probe cost no clock time")
    }))

  it.effect("a peer silent to server/discover: initialize follows once the probe's deadline (TestClock) has passed", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({ discover: "never" })
      const client = yield* McpClient.make({ command: "server", probeTimeout: "2 seconds" }).pipe(
        Effect.provide(layer)
      )
      yield* awaitMethod(frames, "server/discover", 1)
      yield* TestClock.adjust("1999 millis")
      assert.strictEqual(framesWith(frames, "initialize").length, 0, "no initialize before the deadline")
      assert.isFalse(client.isReady())
      yield* TestClock.adjust("1 millis")
      const session = yield* client.awaitReady
      assert.strictEqual(session.era ?? "legacy", "legacy")
      assert.strictEqual(framesWith(frames, "initialize").length, 1)
    }))

  it.effect("a pinned legacy client sends no probe", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({ discover: "never" })
      const client = yield* McpClient.make({ command: "server", protocol: "legacy" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      assert.strictEqual(framesWith(frames, "server/discover").length, 0)
    }))
})
