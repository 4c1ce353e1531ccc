/**
 * Issue 24, item 1: a server that forgets every session (the HTTP fake's `forget-sessions`: every request that
 * carries a session id gets 404, as behind a load balancer without session affinity). Before, the client
 * re-initialized with no delay and no limit (856 initializes in 3 s). Now the first loss renews at once, a renewed
 * session lost before any request succeeded on it renews after the schedule's delay (250 ms, 500 ms, 1 s), and then
 * the session fails with `SessionsForgotten`, whose message names the likely cause. Counted at the server, under
 * `TestClock`: the client waits on the test's clock between renewals, so nothing else can happen meanwhile.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeHttpServer, Sleeps } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"

describe("a server that forgets every session (issue 24, item 1)", () => {
  it.effect("renews once at once, then 250, 500 and 1000 ms apart, then fails with SessionsForgotten: 5 initializes", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["forget-sessions"])
      const sleeps = yield* Sleeps.make
      const client = yield* McpClient.http({ url: server.url, transport: "http" }).pipe(
        Effect.provideService(Clock.Clock, sleeps.clock)
      )
      const initializes = FakeHttpServer.requests(server, { rpc: "initialize" }).pipe(Effect.map((r) => r.length))

      // The first session is lost by its notifications/initialized (404): a fresh loss, renewed at once. The renewed
      // session is lost the same way before any request succeeded on it: the client now waits.
      yield* Sleeps.awaitEvent(sleeps.next(250))
      assert.strictEqual(yield* initializes, 2)
      yield* TestClock.adjust(249)
      assert.strictEqual(yield* initializes, 2, "no initialize before the delay has passed")
      yield* TestClock.adjust(1)
      yield* Sleeps.awaitEvent(sleeps.next(500))
      assert.strictEqual(yield* initializes, 3)
      yield* TestClock.adjust(500)
      yield* Sleeps.awaitEvent(sleeps.next(1000))
      assert.strictEqual(yield* initializes, 4)
      yield* TestClock.adjust(1000)

      // The fifth session is lost like the others, and the schedule is done: the client ends.
      yield* Sleeps.awaitEvent(client.awaitTerminated)
      assert.isFalse(client.isAlive())
      const error = yield* Effect.flip(client.awaitReady)
      assert.strictEqual(error._tag, "SessionsForgotten")
      assert.include(error.message, "is it behind a load balancer without session affinity?")
      assert.include(error.message, "4 new sessions in a row")
      assert.strictEqual(yield* initializes, 5, "no initialize after the client gave up")
      // A call now fails with the same error, at once.
      const call = yield* Effect.flip(client.callTool("echo", {}))
      assert.strictEqual(call._tag, "SessionsForgotten")
    }).pipe(Effect.scoped, Effect.provide([NodeHttpClient.layerUndici, NodeServices.layer])))
})
