/**
 * The resumption delay of a dropped Streamable HTTP stream is the server's `retry:`, pinned under `TestClock`: a POST
 * reply stream and the GET stream that close after their priming event are resumed with GET + `Last-Event-ID` only
 * once the clock has advanced by exactly that delay, never before.
 *
 * The client runs with a `Clock` that is the test's `TestClock` but reports each sleep it is asked for (the test kit's
 * `Sleeps`), so the test latches on "the client waits `retry:` ms" (an event) before it moves the clock.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Sleeps } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Clock, Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { Recorded } from "./HttpPeer.ts"
import { event, openSse, serve } from "./HttpPeer.ts"
import { mcpPeer } from "./mcpPeer.ts"

const RETRY_MS = 5_000

const { awaitEvent } = Sleeps

const resumedWith = (requests: ReadonlyArray<Recorded>, id: string) =>
  requests.filter((r) => r.method === "GET" && r.headers["last-event-id"] === id)

describe("Streamable HTTP resumption delay (TestClock)", () => {
  it.effect("a POST reply stream closed after its priming event is resumed after retry:, not before", () =>
    Effect.gen(function*() {
      let callId: unknown
      const { handler } = mcpPeer({
        override: (request, res) => {
          if (request.message?.method === "tools/call") {
            callId = request.message.id
            openSse(res)
            res.end(event({ id: "p-1", retry: RETRY_MS, data: "" }))
            return true
          }
          if (request.method === "GET" && request.headers["last-event-id"] === "p-1") {
            openSse(res)
            const answer = { jsonrpc: "2.0", id: callId, result: { content: [{ type: "text", text: "late" }] } }
            res.end(event({ id: "p-2", event: "message", data: JSON.stringify(answer) }))
            return true
          }
          return false
        }
      })
      const peer = yield* serve(handler)
      const sleeps = yield* Sleeps.make
      const clock = sleeps.clock
      const client = yield* McpClient.http({ url: peer.url, transport: "http", protocol: "legacy" }).pipe(
        Effect.provideService(Clock.Clock, clock)
      )
      yield* awaitEvent(client.awaitReady)
      const call = yield* client.callTool("slow", {}, { timeout: "1 hour" }).pipe(
        Effect.provideService(Clock.Clock, clock),
        Effect.forkChild({ startImmediately: true })
      )
      yield* awaitEvent(sleeps.next(RETRY_MS))
      assert.lengthOf(resumedWith(peer.requests, "p-1"), 0, "no resumption before the delay started")

      yield* TestClock.adjust(RETRY_MS - 1)
      assert.lengthOf(resumedWith(peer.requests, "p-1"), 0, "no resumption 1 ms before retry:")
      assert.isUndefined(call.pollUnsafe(), "the call is still waiting")

      yield* TestClock.adjust(1)
      const called = yield* awaitEvent(Fiber.join(call))
      assert.deepStrictEqual(called.content, [{ type: "text", text: "late" }])
      assert.lengthOf(resumedWith(peer.requests, "p-1"), 1)
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))

  it.effect("the GET stream closed after its priming event is opened again after retry:, not before", () =>
    Effect.gen(function*() {
      const { handler } = mcpPeer({
        override: (request, res) => {
          if (request.method !== "GET") return false
          openSse(res)
          if (request.headers["last-event-id"] === "g-1") {
            res.write(
              event({ id: "g-2", data: JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }) })
            )
            return true // left open
          }
          res.end(event({ id: "g-1", retry: RETRY_MS, data: "" }))
          return true
        }
      })
      const peer = yield* serve(handler)
      const sleeps = yield* Sleeps.make
      const clock = sleeps.clock
      const client = yield* McpClient.http({ url: peer.url, transport: "http", protocol: "legacy" }).pipe(
        Effect.provideService(Clock.Clock, clock)
      )
      yield* awaitEvent(client.awaitReady)
      yield* awaitEvent(sleeps.next(RETRY_MS))
      yield* TestClock.adjust(RETRY_MS - 1)
      assert.lengthOf(resumedWith(peer.requests, "g-1"), 0, "no resumption 1 ms before retry:")

      yield* TestClock.adjust(1)
      const changed = yield* awaitEvent(
        client.notifications.pipe(
          Stream.filter((n) => n.method === "notifications/tools/list_changed"),
          Stream.runHead
        )
      )
      assert.isTrue(changed._tag === "Some")
      assert.lengthOf(resumedWith(peer.requests, "g-1"), 1)
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))
})
