/**
 * The legacy HTTP+SSE transport (2024-11-05): the GET stream is the session.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Option } from "effect"
import type { HttpClient } from "effect/http/HttpClient"
import type { Scope } from "effect/Scope"
import type * as Http from "node:http"
import type { Recorded } from "./HttpPeer.ts"
import { callResult, event, initializeResult, openSse, serve, toolsResult } from "./HttpPeer.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

const live = <A, E>(body: Effect.Effect<A, E, Scope | HttpClient>) =>
  body.pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici))

/**
 * A legacy server at `/sse`: the endpoint is `/message`; `onMessage` may answer a posted message itself (return
 * `true`), else initialize, tools/list and tools/call are answered on the stream.
 */
const legacyPeer = (onMessage: (request: Recorded, stream: Http.ServerResponse) => boolean = () => false) => {
  const streams: Array<Http.ServerResponse> = []
  return serve((request, res) => {
    if (request.method === "GET" && request.path === "/sse") {
      openSse(res)
      res.write(event({ event: "endpoint", data: "/message?sessionId=x1" }))
      streams.push(res)
      return
    }
    if (request.method === "POST" && request.path.startsWith("/message")) {
      res.writeHead(202).end("Accepted")
      const stream = streams.at(-1)!
      if (onMessage(request, stream)) return
      const msg = request.message
      const reply = msg?.method === "initialize"
        ? initializeResult(msg.id, "2024-11-05")
        : msg?.method === "tools/list"
        ? toolsResult(msg.id, ["a"])
        : msg?.method === "tools/call"
        ? callResult(msg.id, "done")
        : undefined
      if (reply !== undefined) stream.write(event({ event: "message", data: JSON.stringify(reply) }))
      return
    }
    res.writeHead(404).end()
  }, "/sse")
}

describe("legacy HTTP+SSE", () => {
  it.live("calls go to the endpoint; answers and server requests come on the stream (ping answered by POST)", () =>
    live(Effect.gen(function*() {
      const peer = yield* legacyPeer((request, stream) => {
        if (request.message?.method !== "tools/call") return false
        stream.write(event({ event: "message", data: JSON.stringify({ jsonrpc: "2.0", id: 77, method: "ping" }) }))
        stream.write(event({ event: "message", data: JSON.stringify(callResult(request.message.id, "after ping")) }))
        return true
      })
      const client = yield* McpClient.http({ url: peer.url, transport: "sse" })
      yield* client.awaitReady
      assert.strictEqual(client.transport, "sse")
      const result = yield* client.callTool("a", {})
      assert.deepStrictEqual(result.content, [{ type: "text", text: "after ping" }])
      const pong = yield* peer.waitFor((r) => r.path.startsWith("/message") && r.message?.id === 77)
      assert.deepStrictEqual(JSON.parse(pong.body), { jsonrpc: "2.0", id: 77, result: {} })
      assert.strictEqual(peer.requests.filter((r) => r.method === "GET").length, 1)
    })))

  it.live("an endpoint that never answers a call still settles it by its deadline", () =>
    live(Effect.gen(function*() {
      const peer = yield* legacyPeer((request) => request.message?.method === "tools/call")
      const client = yield* McpClient.http({ url: peer.url, transport: "sse" })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("a", {}, { timeout: "50 millis" })))
      assert.strictEqual(error._tag, "RequestTimeout")
      yield* peer.waitFor((r) => r.message?.method === "notifications/cancelled")
    })))

  it.live("the server ending the stream ends the client: calls in flight fail, the client is no longer alive", () =>
    live(Effect.gen(function*() {
      const peer = yield* legacyPeer((request, stream) => {
        if (request.message?.method !== "tools/call") return false
        stream.end()
        return true
      })
      const client = yield* McpClient.http({ url: peer.url, transport: "sse" })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("a", {})))
      assert.strictEqual(error._tag, "ClientClosed")
      yield* client.awaitTerminated
      assert.isFalse(client.isAlive())
    })))

  it.live("a stream whose first event is not endpoint fails initialize with ProtocolError", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve((_request, res) => {
        openSse(res)
        res.write(event({ event: "message", data: "{}" }))
      }, "/sse")
      const client = yield* McpClient.http({ url: peer.url, transport: "sse" })
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "ProtocolError")
      assert.include(error.message, "endpoint")
    })))

  it.live("no endpoint event within the request timeout fails initialize with ConnectionFailed", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve((_request, res) => {
        openSse(res)
        res.write(": nothing yet\n\n")
      }, "/sse")
      const client = yield* McpClient.http({ url: peer.url, transport: "sse", requestTimeout: "100 millis" })
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "ConnectionFailed")
      yield* peer.waitFor((r) => r.method === "GET" && r.aborted)
    })))
})
