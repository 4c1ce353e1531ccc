/**
 * Issue 24, item 5: a 2026-07-28 request whose response stream breaks is re-issued with a new id (the era has no
 * resumption), at most `MAX_REISSUES` times, and every re-issue shares the call's one deadline. Before, each re-issue
 * got a fresh full timeout: a call with a 2 s timeout whose streams ended after 1.5 s took 4.5 s. And no test reached
 * the re-issue bound: an off-by-one in it stayed green.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeHttpServer, HttpPeer, Sleeps } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import type * as Http from "node:http"

const live = Layer.mergeAll(NodeHttpClient.layerUndici, NodeServices.layer)

/** A 2026-07-28 peer: `server/discover` answered; each `tools/call` gets a stream the test ends (unanswered). */
const modernPeer = (streams: Array<Http.ServerResponse>): HttpPeer.Handler => (request, res) => {
  const message = request.message
  if (request.method !== "POST" || message === undefined) return void res.writeHead(405).end()
  if (message.method === "server/discover") {
    return HttpPeer.json(
      res,
      HttpPeer.result(message.id, {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "1" } }
      })
    )
  }
  if (message.method === "tools/call") {
    HttpPeer.openSse(res)
    res.write(HttpPeer.event({
      data: JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "…" } })
    }))
    streams.push(res)
    return
  }
  res.writeHead(202).end()
}

describe("2026-07-28 re-issues (issue 24, item 5)", () => {
  it.effect("a stream that always breaks: the request is sent exactly 1 + MAX_REISSUES (2) times, then StreamEnded", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["modern", "cut-after=1"])
      const client = yield* McpClient.http({ url: server.url, transport: "http" })
      const session = yield* Sleeps.awaitEvent(client.awaitReady)
      assert.strictEqual(session.era, "modern")
      const error = yield* Sleeps.awaitEvent(Effect.flip(client.callTool("echo", {}, { timeout: "1 hour" })))
      assert.strictEqual(error._tag, "StreamEnded")
      const posts = yield* FakeHttpServer.requests(server, { rpc: "tools/call" })
      assert.lengthOf(posts, 3)
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.effect("re-issues share the call's deadline: streams ending 1.5 s in, a 2 s timeout, RequestTimeout at 2 s", () =>
    Effect.gen(function*() {
      const streams: Array<Http.ServerResponse> = []
      const peer = yield* HttpPeer.serve(modernPeer(streams))
      const client = yield* McpClient.http({ url: peer.url, transport: "http", protocol: "modern" })
      yield* Sleeps.awaitEvent(client.awaitReady)
      const call = yield* client.callTool("echo", {}, { timeout: "2 seconds" }).pipe(
        Effect.flip,
        Effect.forkChild({ startImmediately: true })
      )
      const calls = (n: number) => peer.waitFor(() => peer.calls("tools/call").length >= n)

      yield* Sleeps.awaitEvent(calls(1))
      yield* TestClock.adjust(1500)
      streams[0]!.end()
      // The re-issue gets what is left of the call's 2 s: 500 ms.
      yield* Sleeps.awaitEvent(calls(2))
      yield* TestClock.adjust(499)
      assert.isUndefined(call.pollUnsafe(), "still within the call's deadline")
      yield* TestClock.adjust(1)
      const error = yield* Sleeps.awaitEvent(Fiber.join(call))
      assert.strictEqual(error._tag, "RequestTimeout")
      assert.include(error.message, "within 2000 ms")
      // The re-issue's exchange was aborted at the deadline (its stream was still open): nothing is left open.
      yield* Sleeps.awaitEvent(peer.waitFor((r) => r === peer.calls("tools/call")[1] && r.aborted))
      assert.lengthOf(peer.calls("tools/call"), 2)
    }).pipe(Effect.scoped, Effect.provide(live)))
})
