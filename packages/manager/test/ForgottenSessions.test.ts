/**
 * Issue 24, item 1, through the manager: a remote server that forgets every session (the HTTP fake's
 * `forget-sessions`). Before, the manager showed it `degraded` while its client re-initialized without a bound (758
 * initializes in 2 s). Now its client gives up with `SessionsForgotten`, the server is `offline` with that advice
 * (never `degraded` on the way), and the manager reconnects it on its own schedule. Under `TestClock`: the test
 * moves the clock once the client (or the manager) waits, and counts initializes at the server.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import { FakeHttpServer, Sleeps } from "@mcp-fleet/testing"
import { Clock, Context, Effect, Layer, Schedule, Stream } from "effect"
import { TestClock } from "effect/testing"

describe("the manager and a server that forgets every session (issue 24, item 1)", () => {
  it.effect("offline with the load-balancer advice, never degraded, and reconnected on the manager's schedule", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["forget-sessions"])
      const sleeps = yield* Sleeps.make
      const layer = McpManager.layer({
        servers: { lb: { url: server.url, transport: "http" } },
        reconnect: Schedule.spaced("7 seconds")
      }).pipe(Layer.provide([NodeServices.layer, NodeHttpClient.layerUndici]))
      const manager = Context.get(
        yield* Layer.build(layer).pipe(Effect.provideService(Clock.Clock, sleeps.clock)),
        McpManager.McpManager
      )
      const seen: Array<string> = []
      yield* manager.changes.pipe(
        Stream.runForEach((change) => Effect.sync(() => seen.push(change.to))),
        Effect.forkScoped
      )

      // The client's renewals: at once, then 250, 500 and 1000 ms apart; then it gives up.
      for (const delay of [250, 500, 1000]) {
        yield* Sleeps.awaitEvent(sleeps.next(delay))
        yield* TestClock.adjust(delay)
      }
      // The manager's own schedule now spaces the next attempt.
      yield* Sleeps.awaitEvent(sleeps.next(7000))
      const health = yield* manager.serverHealth("lb")
      assert.strictEqual(health.state, "offline")
      assert.include(health.lastError ?? "", "is it behind a load balancer without session affinity?")
      assert.strictEqual(health.attempt, 1)
      assert.notInclude(seen, "degraded")
      assert.lengthOf(yield* FakeHttpServer.requests(server, { rpc: "initialize" }), 5)

      yield* TestClock.adjust(7000)
      // The reconnection starts a new client: its first initialize reaches the server.
      yield* Sleeps.awaitEvent(FakeHttpServer.waitForRequests(server, 6, { rpc: "initialize" }))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
