/**
 * Issue 24, items 6 and 7: the legacy HTTP+SSE transport against hostile servers.
 *
 * - A server that answers on the stream but never answers the POST (the HTTP fake's `legacy-sse fault=no-ack`):
 *   before, every such POST stayed open until close (21 sockets after 20 calls). Now a POST is aborted once its
 *   answer has come, and any POST is aborted when no acknowledgement came within the bound (`notifyTimeoutMs`, the
 *   request timeout), even while its call still waits (a deadline moved by progress).
 * - Auto-detection whose legacy fallback never sends `endpoint` (`legacy-sse no-endpoint`): before, the user got
 *   `RequestTimeout` for initialize. Now the endpoint wait ends within initialize's deadline and says what happened.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeHttpServer, HttpPeer, Sleeps } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import type * as Http from "node:http"

const live = Layer.mergeAll(NodeHttpClient.layerUndici, NodeServices.layer)

describe("legacy HTTP+SSE POSTs (issue 24, items 6-7)", () => {
  it.effect("POSTs never acknowledged: each is aborted once its answer came on the stream (20 calls, 20 closed)", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["legacy-sse", "fault=no-ack", "fault-on=tools/call"])
      const client = yield* McpClient.http({ url: server.url, transport: "sse" })
      yield* Sleeps.awaitEvent(client.awaitReady)
      for (let i = 0; i < 20; i++) {
        const called = yield* Sleeps.awaitEvent(client.callTool("echo", { i }))
        assert.deepStrictEqual(called.structuredContent, { i })
      }
      // While the client lives, every one of the 20 unacknowledged POSTs has been closed by it.
      yield* Sleeps.awaitEvent(FakeHttpServer.waitForRequests(server, 20, { rpc: "tools/call", closed: true }))
      const { open } = yield* FakeHttpServer.connections(server)
      assert.isAtMost(open, 3, "the SSE stream and the pool's idle sockets, not one socket per call")
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.effect("a POST never acknowledged is aborted at the bound, while its call, whose deadline progress moved, waits on", () =>
    Effect.gen(function*() {
      let stream: Http.ServerResponse | undefined
      const peer = yield* HttpPeer.serve((request, res) => {
        if (request.method === "GET") {
          HttpPeer.openSse(res)
          res.write(HttpPeer.event({ event: "endpoint", data: "/message" }))
          stream = res
          return
        }
        const message = request.message
        if (message?.method === "tools/call") return // neither acknowledged nor answered, until the test says
        res.writeHead(202).end("Accepted")
        if (message?.method === "initialize") {
          stream?.write(
            HttpPeer.event({
              event: "message",
              data: JSON.stringify(HttpPeer.initializeResult(message.id, "2024-11-05"))
            })
          )
        }
      }, "/sse")
      const client = yield* McpClient.http({ url: peer.url, transport: "sse", requestTimeout: "10 seconds" })
      yield* Sleeps.awaitEvent(client.awaitReady)
      const reported = yield* Deferred.make<void>()
      const call = yield* client.callTool("slow", {}, {
        resetTimeoutOnProgress: true,
        onProgress: () => Deferred.succeed(reported, undefined)
      }).pipe(Effect.forkChild({ startImmediately: true }))
      const posted = yield* Sleeps.awaitEvent(peer.waitFor((r) => r.message?.method === "tools/call"))
      const id = posted.message?.id
      const progress = (n: number) =>
        stream?.write(HttpPeer.event({
          event: "message",
          data: JSON.stringify({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: id, progress: n }
          })
        }))

      yield* TestClock.adjust(9_000)
      progress(1)
      // The report moved the call's deadline to 19 s; the POST's acknowledgement is still bounded by 10 s.
      yield* Sleeps.awaitEvent(Deferred.await(reported))
      yield* TestClock.adjust(1_000)
      yield* Sleeps.awaitEvent(peer.waitFor((r) => r === posted && r.aborted))
      assert.isUndefined(call.pollUnsafe(), "the call still waits for its answer on the stream")
      // The answer still comes on the stream, and the call gets it.
      stream?.write(HttpPeer.event({ event: "message", data: JSON.stringify(HttpPeer.callResult(id, "late")) }))
      const result = yield* Sleeps.awaitEvent(Fiber.join(call))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "late" }])
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.effect("auto-detection whose SSE fallback never names its endpoint says so, within initialize's deadline", () =>
    Effect.gen(function*() {
      // POST /sse is refused with 405, but only after 500 ms (the test holds it): the fallback starts with 1.5 s of
      // initialize's 2 s left. Its GET /sse stream never names its endpoint.
      let refusal: Http.ServerResponse | undefined
      const peer = yield* HttpPeer.serve((request, res) => {
        if (request.method === "GET") {
          HttpPeer.openSse(res)
          return void res.write(": no endpoint event will follow\n\n")
        }
        if (request.message?.method === "initialize") return void (refusal = res)
        res.writeHead(405, { allow: "GET" }).end("POST is not allowed on /sse")
      }, "/sse")
      const client = yield* McpClient.http({ url: peer.url, requestTimeout: "2 seconds" })
      yield* Sleeps.awaitEvent(peer.waitFor((r) => r.message?.method === "initialize"))
      yield* TestClock.adjust(500)
      refusal?.writeHead(405, { allow: "GET" }).end("POST is not allowed on /sse")
      yield* Sleeps.awaitEvent(peer.waitFor((r) => r.method === "GET"))
      yield* TestClock.adjust(1_500)
      const error = yield* Sleeps.awaitEvent(Effect.flip(client.awaitReady))
      assert.strictEqual(error._tag, "HttpStatusError")
      assert.include(error.message, "answered initialize with HTTP 405")
      assert.include(error.message, "the legacy HTTP+SSE fallback failed too")
      assert.include(error.message, "no endpoint event within")
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.effect("the same over the HTTP fake (legacy-sse no-endpoint): the fallback's failure is what the user reads", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["legacy-sse", "no-endpoint"])
      const client = yield* McpClient.http({ url: server.url, requestTimeout: "2 seconds" })
      yield* Sleeps.awaitEvent(FakeHttpServer.waitForRequests(server, 1, { method: "GET" }))
      yield* TestClock.adjust(2_000)
      const error = yield* Sleeps.awaitEvent(Effect.flip(client.awaitReady))
      assert.strictEqual(error._tag, "HttpStatusError")
      assert.include(error.message, "no endpoint event within")
    }).pipe(Effect.scoped, Effect.provide(live)))
})
