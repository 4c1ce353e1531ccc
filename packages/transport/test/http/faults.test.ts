/**
 * HTTP faults (issue 14): every call settles within its deadline with a typed error, streams are resumed rather
 * than cancelled, and close stays bounded whatever the server does.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Fiber, Option } from "effect"
import type { HttpClient } from "effect/http/HttpClient"
import type { Scope } from "effect/Scope"
import type * as Http from "node:http"
import type { Recorded } from "./HttpPeer.ts"
import { event, json, openSse, serve } from "./HttpPeer.ts"
import { mcpPeer } from "./mcpPeer.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

const live = <A, E>(body: Effect.Effect<A, E, Scope | HttpClient>) =>
  body.pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici))

/** A peer whose `tools/call` is answered by `onCall`. */
const callPeer = (onCall: (request: Recorded, res: Http.ServerResponse) => boolean) =>
  serve(
    mcpPeer({ override: (request, res) => request.message?.method === "tools/call" && onCall(request, res) }).handler
  )

describe("HTTP faults", () => {
  it.live("a slowloris body settles by the call's deadline", () =>
    live(Effect.gen(function*() {
      const peer = yield* callPeer((_request, res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.write("{")
        const drip = setInterval(() => res.write(" "), 10)
        res.on("close", () => clearInterval(drip))
        return true
      })
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("t", {}, { timeout: "100 millis" })))
      assert.strictEqual(error._tag, "RequestTimeout")
      yield* peer.waitFor((r) => r.message?.method === "tools/call" && r.aborted)
    })))

  it.live("a 200 of another content type is a ProtocolError", () =>
    live(Effect.gen(function*() {
      const peer = yield* callPeer((_request, res) => {
        res.writeHead(200, { "content-type": "text/html" }).end("<html>hello</html>")
        return true
      })
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("t", {})))
      assert.strictEqual(error._tag, "ProtocolError")
      assert.include(error.message, "text/html")
    })))

  it.live("a stream closed without its answer and without an event id fails StreamEnded", () =>
    live(Effect.gen(function*() {
      const peer = yield* callPeer((_request, res) => {
        openSse(res)
        res.end(event({ data: JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: {} }) }))
        return true
      })
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("t", {})))
      assert.strictEqual(error._tag, "StreamEnded")
    })))

  it.live("a connection reset mid-stream is resumed (Last-Event-ID), not cancelled", () =>
    live(Effect.gen(function*() {
      let callId: unknown
      const peer = yield* serve(
        mcpPeer({
          override: (request, res) => {
            if (request.message?.method === "tools/call") {
              callId = request.message.id
              openSse(res)
              res.write(event({ id: "r-1", retry: 10, data: "" }), () => res.socket?.destroy())
              return true
            }
            if (request.method === "GET" && request.headers["last-event-id"] === "r-1") {
              openSse(res)
              res.end(
                event({ id: "r-2", data: JSON.stringify({ jsonrpc: "2.0", id: callId, result: { content: [] } }) })
              )
              return true
            }
            return false
          }
        }).handler
      )
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const result = yield* client.callTool("t", {})
      assert.deepStrictEqual(result.content, [])
      assert.strictEqual(peer.calls("notifications/cancelled").length, 0)
    })))

  it.live("a declared 100 MB body is refused before it is read", () =>
    live(Effect.gen(function*() {
      const peer = yield* callPeer((_request, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(100 * 1024 * 1024) })
        res.write("{\"jsonrpc\":\"2.0\"")
        return true
      })
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("t", {})))
      assert.strictEqual(error._tag, "MessageTooLarge")
      yield* peer.waitFor((r) => r.message?.method === "tools/call" && r.aborted)
    })))

  it.live("429 carries Retry-After", () =>
    live(Effect.gen(function*() {
      const peer = yield* callPeer((_request, res) => {
        json(res, { error: "slow down" }, 429, { "retry-after": "30" })
        return true
      })
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("t", {})))
      assert.strictEqual(error._tag, "HttpStatusError")
      if (error._tag === "HttpStatusError") {
        assert.strictEqual(error.status, 429)
        assert.strictEqual(error.retryAfter, "30")
      }
    })))

  it.live("every call in flight at a session loss fails SessionExpired, and one re-initialize serves the next", () =>
    live(Effect.gen(function*() {
      const held: Array<() => void> = []
      const { handler, state } = mcpPeer({
        override: (request, res) => {
          if (request.message?.method !== "tools/call" || request.headers["mcp-session-id"] !== "s1") return false
          held.push(() => json(res, { jsonrpc: "2.0", error: { code: -32000, message: "No valid session ID" } }, 400))
          return true
        }
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const calls = yield* Effect.forkScoped(
        Effect.all([1, 2, 3].map((n) => Effect.exit(client.callTool("t", { text: String(n) }))), {
          concurrency: "unbounded"
        })
      )
      yield* peer.waitFor(() => peer.calls("tools/call").length === 3)
      state.session = undefined
      held.shift()!()
      const exits = yield* Fiber.join(calls)
      for (const exit of exits) assert.strictEqual(failureOf(exit)._tag, "SessionExpired")
      for (const release of held) release()
      const next = yield* client.callTool("t", { text: "4" })
      assert.deepStrictEqual(next.content, [{ type: "text", text: "echo: 4" }])
      assert.strictEqual(peer.calls("initialize").length, 2)
    })))

  it.live("a GET stream the server never closes: close is bounded, the stream is aborted and DELETE is sent", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve(
        mcpPeer({
          override: (request, res) => {
            if (request.method !== "GET") return false
            openSse(res)
            res.write(": open forever\n\n")
            return true
          }
        }).handler
      )
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.http({ url: peer.url, transport: "http" })
        yield* client.awaitReady
        yield* peer.waitFor((r) => r.method === "GET")
      }))
      assert.isTrue(peer.requests.find((r) => r.method === "GET")!.aborted)
      assert.strictEqual(peer.requests.filter((r) => r.method === "DELETE").length, 1)
    })))

  it.live("a DELETE that is never answered does not hold close past closeTimeout", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve(mcpPeer({ override: (request) => request.method === "DELETE" }).handler)
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.http({ url: peer.url, transport: "http", closeTimeout: "50 millis" })
        yield* client.awaitReady
      }))
      yield* peer.waitFor((r) => r.method === "DELETE" && r.aborted)
    })))
})
