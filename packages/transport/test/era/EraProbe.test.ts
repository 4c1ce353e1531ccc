import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import { EraCache } from "../../src/session/EraCache.ts"
import { discoverResult, error, legacy, modern, result, session } from "./memoryPeer.ts"
import type { Respond } from "./memoryPeer.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const found = Cause.findErrorOption(exit.cause)
  if (Option.isNone(found)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.value
}

/** Each test gets its own era cache. */
const fresh = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(Effect.scoped(effect), EraCache, new Map())

describe("era selection", () => {
  it.effect("auto, legacy server: one server/discover answered -32601, then initialize (one round trip, no timeout)", () =>
    fresh(Effect.gen(function*() {
      const { client, methods, sent } = yield* session(legacy())
      const ready = yield* client.awaitReady
      assert.strictEqual(ready.era, "legacy")
      assert.strictEqual(ready.protocolVersion, "2025-11-25")
      assert.deepStrictEqual(methods(), ["server/discover", "initialize", "notifications/initialized"])
      const probe = sent[0]!
      assert.strictEqual(
        probe.params["_meta"] &&
          (probe.params["_meta"] as Record<string, unknown>)["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
      )
      // The legacy era's requests carry no modern _meta.
      yield* client.request("tools/call", { name: "x" })
      assert.isUndefined(sent.at(-1)!.params["_meta"])
    })))

  it.effect("auto, modern server: server/discover is the handshake; no initialize is ever sent", () =>
    fresh(Effect.gen(function*() {
      const { client, established, methods } = yield* session(modern())
      const ready = yield* client.awaitReady
      assert.strictEqual(ready.era, "modern")
      assert.strictEqual(ready.protocolVersion, "2026-07-28")
      assert.deepStrictEqual(ready.serverInfo, { name: "modern", version: "2.4.0" })
      assert.deepStrictEqual(established, ["2026-07-28"])
      yield* client.request("tools/call", { name: "x" })
      assert.deepStrictEqual(methods(), ["server/discover", "tools/call"])
    })))

  it.effect("auto, a server that never answers the probe: legacy after the probe's deadline", () =>
    fresh(Effect.gen(function*() {
      const silent: Respond = (sent, reply) => {
        if (sent.method === "server/discover") return
        legacy()(sent, reply)
      }
      const { client, methods } = yield* session(silent, { probeTimeoutMs: 1_000 })
      const waiting = yield* Effect.forkChild(client.awaitReady)
      yield* TestClock.adjust(999)
      assert.deepStrictEqual(methods(), ["server/discover"])
      yield* TestClock.adjust(1)
      const ready = yield* Fiber.join(waiting)
      assert.strictEqual(ready.era, "legacy")
      assert.deepStrictEqual(methods(), ["server/discover", "initialize", "notifications/initialized"])
    })))

  it.effect("auto: any other error means legacy, whatever its code (never keyed to -32601)", () =>
    fresh(Effect.gen(function*() {
      for (const code of [-32600, -32602, -32603, -32000, 1]) {
        const respond: Respond = (sent, reply) =>
          sent.method === "server/discover" ? reply(error(sent, code, "no")) : legacy()(sent, reply)
        const { client } = yield* session(respond)
        assert.strictEqual((yield* client.awaitReady).era, "legacy", `code ${code}`)
      }
    })))

  it.effect("auto: -32022 listing a modern version → server/discover again with it; an empty list is a typed error", () =>
    fresh(Effect.gen(function*() {
      let refusals = 0
      const once: Respond = (sent, reply) => {
        if (sent.method === "server/discover" && refusals++ === 0) {
          return reply(error(sent, -32022, "Unsupported", { supported: ["2026-07-28"], requested: "2026-07-28" }))
        }
        modern()(sent, reply)
      }
      const retried = yield* session(once)
      assert.strictEqual((yield* retried.client.awaitReady).era, "modern")
      assert.deepStrictEqual(retried.methods(), ["server/discover", "server/discover"])
      assert.notStrictEqual(retried.sent[0]!.id, retried.sent[1]!.id)

      const empty: Respond = (sent, reply) =>
        sent.method === "server/discover"
          ? reply(error(sent, -32022, "Unsupported", { supported: [], requested: "2026-07-28" }))
          : legacy()(sent, reply)
      const refused = yield* session(empty)
      const failure = failureOf(yield* Effect.exit(refused.client.awaitReady))
      assert.strictEqual(failure._tag, "UnsupportedProtocolVersion")
      assert.notInclude(refused.methods(), "initialize", "a recognised modern error never falls back")
    })))

  it.effect("auto: -32021 and -32020 are typed errors, with no fallback", () =>
    fresh(Effect.gen(function*() {
      for (const [code, tag] of [[-32021, "MissingClientCapability"], [-32020, "HeaderMismatch"]] as const) {
        const respond: Respond = (sent, reply) =>
          sent.method === "server/discover" ? reply(error(sent, code, "refused")) : legacy()(sent, reply)
        const { client, methods } = yield* session(respond)
        assert.strictEqual(failureOf(yield* Effect.exit(client.awaitReady))._tag, tag)
        assert.deepStrictEqual(methods(), ["server/discover"])
      }
    })))

  it.effect("pinned: legacy sends no probe; modern never falls back to initialize", () =>
    fresh(Effect.gen(function*() {
      const pinnedLegacy = yield* session(legacy(), { protocol: "2025-11-25" })
      assert.strictEqual((yield* pinnedLegacy.client.awaitReady).era, "legacy")
      assert.deepStrictEqual(pinnedLegacy.methods(), ["initialize", "notifications/initialized"])

      const pinnedModern = yield* session(legacy(), { protocol: "modern" })
      const failure = failureOf(yield* Effect.exit(pinnedModern.client.awaitReady))
      assert.strictEqual(failure._tag, "RemoteError")
      assert.deepStrictEqual(pinnedModern.methods(), ["server/discover"])
    })))

  it.effect("a probe that timed out on a slow modern server: initialize's -32022 sends it back to server/discover", () =>
    fresh(Effect.gen(function*() {
      let probes = 0
      const slow: Respond = (sent, reply) => {
        if (sent.method === "server/discover" && probes++ === 0) return // still starting
        modern()(sent, reply)
      }
      const { client, methods } = yield* session(slow, { probeTimeoutMs: 100 })
      const waiting = yield* Effect.forkChild(client.awaitReady)
      yield* TestClock.adjust(100)
      const ready = yield* Fiber.join(waiting)
      assert.strictEqual(ready.era, "modern")
      assert.deepStrictEqual(methods(), ["server/discover", "initialize", "server/discover"])
    })))

  it.effect("the era is cached per endpoint: a legacy endpoint gets initialize first; when that stops working, it is probed", () =>
    fresh(Effect.gen(function*() {
      const first = yield* session(legacy(), { eraKey: "http://a/mcp" })
      yield* first.client.awaitReady
      const second = yield* session(legacy(), { eraKey: "http://a/mcp" })
      yield* second.client.awaitReady
      assert.deepStrictEqual(second.methods(), ["initialize", "notifications/initialized"])
      // The endpoint now runs a modern-only server: its initialize is refused, the probe finds it modern.
      const third = yield* session(modern(), { eraKey: "http://a/mcp" })
      assert.strictEqual((yield* third.client.awaitReady).era, "modern")
      assert.deepStrictEqual(third.methods(), ["initialize", "server/discover"])
      const fourth = yield* session(modern(), { eraKey: "http://a/mcp" })
      yield* fourth.client.awaitReady
      assert.deepStrictEqual(fourth.methods(), ["server/discover"])
    })))

  it.effect("a DiscoverResult listing only a newer modern version is a typed error; listing only legacy ones means legacy", () =>
    fresh(Effect.gen(function*() {
      const newer: Respond = (sent, reply) =>
        sent.method === "server/discover" ? reply(result(sent, discoverResult(["2027-01-01"]))) : legacy()(sent, reply)
      const a = yield* session(newer)
      assert.strictEqual(failureOf(yield* Effect.exit(a.client.awaitReady))._tag, "UnsupportedProtocolVersion")
      const older: Respond = (sent, reply) =>
        sent.method === "server/discover" ? reply(result(sent, discoverResult(["2025-11-25"]))) : legacy()(sent, reply)
      const b = yield* session(older)
      assert.strictEqual((yield* b.client.awaitReady).era, "legacy")
    })))
})
