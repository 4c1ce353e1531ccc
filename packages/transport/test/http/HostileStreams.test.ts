/**
 * Issue 24, items 2-4: the GET stream and the answer stream against hostile servers (the HTTP fake's switches), under
 * `TestClock`, counted at the server.
 *
 * - `get-status=404` (an app that routes only `POST /mcp`): the GET never costs the session. Before, each 404 was a
 *   session loss, and the client re-initialized without end (249 initializes in 3 s).
 * - `get-close-after=10 retry=0`: every GET stream is a priming event with `retry: 0`, closed 10 ms later. Before,
 *   the client reconnected at once, for ever (244 GETs in 3 s).
 * - `ping-flood=500`: 500 `ping` requests on one answer stream, whose answers the server holds. Before, the client
 *   sent 500 answer POSTs at once.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeHttpServer, Sleeps } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Clock, Deferred, Effect, Exit, Layer, Logger, Scope } from "effect"
import { TestClock } from "effect/testing"

/** A logger that completes `seen` with the first line that includes `text` (the client's own account of an event). */
const logLatch = (text: string) => {
  const seen = Deferred.makeUnsafe<string>()
  const layer = Logger.layer([Logger.make((options) => {
    const line = String(options.message)
    if (line.includes(text)) Deferred.doneUnsafe(seen, Exit.succeed(line))
  })])
  return { seen: Deferred.await(seen), layer }
}

const live = Layer.mergeAll(NodeHttpClient.layerUndici, NodeServices.layer)

describe("hostile streams (issue 24, items 2-4)", () => {
  const refused = logLatch("the GET stream stopped")
  it.effect("a GET answered 404 is tried once more, then given up: the session is kept, the reason recorded", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["get-status=404"])
      const sleeps = yield* Sleeps.make
      const client = yield* McpClient.http({ url: server.url, transport: "http" }).pipe(
        Effect.provideService(Clock.Clock, sleeps.clock)
      )
      yield* Sleeps.awaitEvent(client.awaitReady)
      yield* Sleeps.awaitEvent(FakeHttpServer.waitForRequests(server, 1, { method: "GET", closed: true }))
      // One bounded retry: the backoff's second step (1.5 s), since a refusal brings no `retry:`.
      yield* Sleeps.awaitEvent(sleeps.next(1500))
      yield* TestClock.adjust(1500)
      const line = yield* Sleeps.awaitEvent(refused.seen)
      assert.include(line, "refused its GET 2 times (HTTP 404)")
      assert.lengthOf(yield* FakeHttpServer.requests(server, { method: "GET" }), 2)
      assert.include(client.serverStream() ?? "", "HTTP 404")
      // The POST session lives on: no new initialize, no loss, and calls work in it.
      const called = yield* client.callTool("echo", { text: "still here" })
      assert.deepStrictEqual(called.structuredContent, { text: "still here" })
      assert.lengthOf(yield* FakeHttpServer.requests(server, { rpc: "initialize" }), 1)
      assert.strictEqual(client.stats().sessionsLost, 0)
      assert.lengthOf(yield* FakeHttpServer.requests(server, { method: "GET" }), 2, "never opened again")
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(live, refused.layer))))

  const flapped = logLatch("the GET stream stopped")
  it.effect("retry: 0 waits the 250 ms floor; 10 openings in a minute without a message, and the stream is given up", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["get-close-after=10", "retry=0"])
      const sleeps = yield* Sleeps.make
      const client = yield* McpClient.http({ url: server.url, transport: "http" }).pipe(
        Effect.provideService(Clock.Clock, sleeps.clock)
      )
      const gets = FakeHttpServer.requests(server, { method: "GET" }).pipe(Effect.map((r) => r.length))
      yield* Sleeps.awaitEvent(client.awaitReady)
      for (let opened = 1; opened <= 10; opened++) {
        // The stream closed after its priming event (`retry: 0`): the client waits the floor, not 0 ms.
        yield* Sleeps.awaitEvent(sleeps.next(250))
        assert.strictEqual(yield* gets, opened)
        if (opened === 1) {
          yield* TestClock.adjust(249)
          assert.strictEqual(yield* gets, 1, "not opened again before the floor")
          yield* TestClock.adjust(1)
        } else yield* TestClock.adjust(250)
        if (opened < 10) yield* Sleeps.awaitEvent(FakeHttpServer.waitForRequests(server, opened + 1, { method: "GET" }))
      }
      const line = yield* Sleeps.awaitEvent(flapped.seen)
      assert.include(line, "opened 10 times within 60 s and carried no message")
      assert.strictEqual(yield* gets, 10)
      assert.include(client.serverStream() ?? "", "carried no message")
      // The session is untouched.
      yield* client.callTool("echo", {})
      assert.lengthOf(yield* FakeHttpServer.requests(server, { rpc: "initialize" }), 1)
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(live, flapped.layer))))

  it.effect("500 pings on one answer stream: 4 answer POSTs at a time, and the held ones are aborted at close", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["reply=sse", "ping-flood=500"])
      const scope = yield* Scope.make()
      const client = yield* McpClient.http({ url: server.url, transport: "http" }).pipe(Scope.provide(scope))
      yield* Sleeps.awaitEvent(client.awaitReady)
      // The call's result follows the 500 pings on its stream.
      const called = yield* Sleeps.awaitEvent(client.callTool("echo", { n: 1 }))
      assert.deepStrictEqual(called.structuredContent, { n: 1 })
      // The server holds every answer it gets: the pool's 4 are on the wire, the other 496 wait their turn.
      yield* Sleeps.awaitEvent(FakeHttpServer.waitForRequests(server, 4, { rpc: "response" }))
      yield* Scope.close(scope, Exit.void)
      // Closing the client aborted the 4 held POSTs, and sent no other answer.
      yield* Sleeps.awaitEvent(FakeHttpServer.waitForRequests(server, 4, { rpc: "response", closed: true }))
      assert.lengthOf(yield* FakeHttpServer.requests(server, { rpc: "response" }), 4)
    }).pipe(Effect.scoped, Effect.provide(live)))
})
