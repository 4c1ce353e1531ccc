import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ErrorKind, McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Fiber, Option, Redacted, Stream } from "effect"
import type { HttpClient } from "effect/http/HttpClient"
import type { Scope } from "effect/Scope"
import type * as Http from "node:http"
import type { Recorded } from "./HttpPeer.ts"
import { event, initializeResult, json, openSse, paramsOf, serve, toolsResult } from "./HttpPeer.ts"
import { mcpPeer } from "./mcpPeer.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

/** Runs a test body with a real undici client; the body's scope closes before the client's dispatcher. */
const live = <A, E>(
  body: Effect.Effect<A, E, Scope | HttpClient>
) => body.pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici))

const isPost = (method: string) => (r: Recorded) => r.method === "POST" && r.message?.method === method

describe("Streamable HTTP", () => {
  it.live("JSON answers: initialize, session header, protocol version, tools, a call, DELETE on close", () =>
    live(Effect.gen(function*() {
      const { handler } = mcpPeer({ reply: "json" })
      const peer = yield* serve(handler)
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.http({ url: peer.url, transport: "http" })
        const session = yield* client.awaitReady
        assert.strictEqual(session.protocolVersion, "2025-11-25")
        assert.strictEqual(client.transport, "http")
        const { tools } = yield* client.listTools()
        assert.deepStrictEqual(tools.map((t) => t.name), ["echo"])
        const called = yield* client.callTool("echo", { text: "hi" })
        assert.deepStrictEqual(called.content, [{ type: "text", text: "echo: hi" }])
      }))
      const init = peer.calls("initialize")[0]!
      assert.strictEqual(init.headers["accept"], "application/json, text/event-stream")
      assert.strictEqual(init.headers["content-type"], "application/json")
      assert.isUndefined(init.headers["mcp-session-id"])
      assert.isUndefined(init.headers["mcp-protocol-version"])
      for (
        const later of [
          ...peer.calls("tools/list"),
          ...peer.calls("tools/call"),
          ...peer.calls("notifications/initialized")
        ]
      ) {
        assert.strictEqual(later.headers["mcp-session-id"], "s1")
        assert.strictEqual(later.headers["mcp-protocol-version"], "2025-11-25")
      }
      const deletes = peer.requests.filter((r) => r.method === "DELETE")
      assert.strictEqual(deletes.length, 1)
      assert.strictEqual(deletes[0]!.headers["mcp-session-id"], "s1")
    })))

  it.live("SSE answers: a priming event, then notifications before the answer on the same stream", () =>
    live(Effect.gen(function*() {
      const { handler } = mcpPeer({
        reply: "sse",
        override: (request, res) => {
          if (request.message?.method !== "tools/call") return false
          openSse(res)
          res.write(event({ id: "c0", retry: 1000, data: "" }))
          res.write(": a comment line\n\n")
          res.write(event({
            id: "c1",
            event: "message",
            data: JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } })
          }))
          res.end(event({
            id: "c2",
            data: JSON.stringify({ jsonrpc: "2.0", id: request.message.id, result: { content: [] } })
          }))
          return true
        }
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      const progress = yield* client.notifications.pipe(
        Stream.filter((n) => n.method === "notifications/progress"),
        Stream.runHead,
        Effect.forkScoped
      )
      yield* client.awaitReady
      const called = yield* client.callTool("echo", {})
      assert.deepStrictEqual(called.content, [])
      const seen = yield* Fiber.join(progress)
      assert.deepStrictEqual(Option.getOrUndefined(seen)?.params, { progress: 1 })
    })))

  it.live("a server that forgets the session (400 \"No valid session\"): the call in flight fails retryable, the next works", () =>
    live(Effect.gen(function*() {
      let forget = false
      const { handler, state } = mcpPeer({
        override: (request) => {
          if (forget && request.message?.method === "tools/call") {
            forget = false
            state.session = undefined // the server restarted: the old id is unknown now
          }
          return false
        }
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const changes = yield* client.readinessChanges.pipe(Stream.take(3), Stream.runCollect, Effect.forkScoped)
      forget = true
      const lost = failureOf(yield* Effect.exit(client.callTool("echo", { text: "a" })))
      assert.strictEqual(lost._tag, "SessionExpired")
      assert.isTrue(lost._tag === "SessionExpired" && ErrorKind.isRetryable(lost))
      const again = yield* client.callTool("echo", { text: "b" })
      assert.deepStrictEqual(again.content, [{ type: "text", text: "echo: b" }])
      assert.strictEqual(peer.calls("initialize").length, 2)
      assert.isUndefined(peer.calls("initialize")[1]!.headers["mcp-session-id"])
      assert.strictEqual(peer.calls("tools/call").at(-1)!.headers["mcp-session-id"], "s2")
      assert.strictEqual(client.stats().sessionsLost, 1)
      assert.deepStrictEqual((yield* Fiber.join(changes)).map((r) => r._tag), ["Ready", "Renewing", "Ready"])
      assert.isTrue(client.isAlive())
    })))

  it.live("404 for a known session is a session loss too", () =>
    live(Effect.gen(function*() {
      let gone = false
      const { handler } = mcpPeer({
        override: (request, res) => {
          if (!gone || request.message?.method !== "tools/list") return false
          gone = false
          res.writeHead(404).end("Session not found")
          return true
        }
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      gone = true
      const lost = failureOf(yield* Effect.exit(client.listTools()))
      assert.strictEqual(lost._tag, "SessionExpired")
      const { tools } = yield* client.listTools()
      assert.strictEqual(tools.length, 1)
      assert.strictEqual(peer.calls("initialize").length, 2)
    })))

  it.live("a stream that closes after its priming event is resumed with GET + Last-Event-ID after retry:", () =>
    live(Effect.gen(function*() {
      let callId: unknown
      const { handler } = mcpPeer({
        override: (request, res) => {
          if (request.message?.method === "tools/call") {
            callId = request.message.id
            openSse(res)
            res.end(event({ id: "p-1", retry: 30, data: "" }))
            return true
          }
          if (request.method === "GET" && request.headers["last-event-id"] === "p-1") {
            openSse(res)
            res.end(event({
              id: "p-2",
              event: "message",
              data: JSON.stringify({
                jsonrpc: "2.0",
                id: callId,
                result: { content: [{ type: "text", text: "late" }] }
              })
            }))
            return true
          }
          return false
        }
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const called = yield* client.callTool("slow", {})
      assert.deepStrictEqual(called.content, [{ type: "text", text: "late" }])
      const resumed = peer.requests.find((r) => r.method === "GET" && r.headers["last-event-id"] === "p-1")!
      assert.strictEqual(resumed.headers["accept"], "text/event-stream")
      assert.strictEqual(resumed.headers["mcp-session-id"], "s1")
      assert.strictEqual(peer.calls("notifications/cancelled").length, 0, "a drop is not a cancel")
    })))

  it.live("the GET stream delivers server notifications and server requests (ping is answered)", () =>
    live(Effect.gen(function*() {
      const { handler } = mcpPeer({
        override: (request, res) => {
          if (request.method !== "GET") return false
          openSse(res)
          res.write(
            event({ id: "g1", data: JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }) })
          )
          res.write(event({ id: "g2", data: JSON.stringify({ jsonrpc: "2.0", id: "srv-1", method: "ping" }) }))
          return true // left open
        }
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      const changed = yield* client.notifications.pipe(
        Stream.filter((n) => n.method === "notifications/tools/list_changed"),
        Stream.runHead,
        Effect.forkScoped
      )
      yield* client.awaitReady
      assert.isTrue(Option.isSome(yield* Fiber.join(changed)))
      const pong = yield* peer.waitFor((r) => r.method === "POST" && r.message?.id === "srv-1")
      assert.deepStrictEqual(JSON.parse(pong.body), { jsonrpc: "2.0", id: "srv-1", result: {} })
    })))

  it.live("a JSON body over maxMessageBytes fails the call with MessageTooLarge; a 5xx body is read bounded", () =>
    live(Effect.gen(function*() {
      const { handler } = mcpPeer({
        override: (request, res) => {
          const args = paramsOf(request).arguments as { kind?: string } | undefined
          if (request.message?.method !== "tools/call") return false
          if (args?.kind === "huge") {
            json(res, {
              jsonrpc: "2.0",
              id: request.message.id,
              result: { content: [{ type: "text", text: "x".repeat(200_000) }] }
            })
          } else {
            res.writeHead(503, { "content-type": "text/plain", "retry-after": "7" })
            // An endless body: the client must stop reading it.
            const chunk = "y".repeat(64 * 1024)
            const pump = () => {
              while (res.write(chunk)) { /* fill */ }
            }
            res.on("drain", pump)
            pump()
          }
          return true
        }
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http", maxMessageBytes: 100_000 })
      yield* client.awaitReady
      const big = failureOf(yield* Effect.exit(client.callTool("t", { kind: "huge" })))
      assert.strictEqual(big._tag, "MessageTooLarge")
      const busy = failureOf(yield* Effect.exit(client.callTool("t", { kind: "503" })))
      assert.strictEqual(busy._tag, "HttpStatusError")
      if (busy._tag === "HttpStatusError") {
        assert.strictEqual(busy.status, 503)
        assert.strictEqual(busy.retryAfter, "7")
        assert.isBelow(busy.message.length, 400)
      }
      yield* peer.waitFor((r) => r.message?.method === "tools/call" && r.aborted)
    })))

  it.live("401 carries WWW-Authenticate; a Redacted header value never shows in the error", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve((request, res) => {
        json(
          res,
          { jsonrpc: "2.0", error: { code: -32001, message: `bad token ${request.headers["authorization"]}` } },
          401,
          {
            "www-authenticate": "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\""
          }
        )
      })
      const client = yield* McpClient.http({
        url: peer.url,
        transport: "http",
        headers: { Authorization: Redacted.make("Bearer s3cret-token") }
      })
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "HttpStatusError")
      if (error._tag !== "HttpStatusError") return
      assert.strictEqual(error.status, 401)
      assert.include(error.wwwAuthenticate ?? "", "resource_metadata")
      assert.notInclude(error.message, "s3cret-token")
      assert.notInclude(JSON.stringify(error), "s3cret-token")
      assert.strictEqual(peer.requests[0]!.headers["authorization"], "Bearer s3cret-token")
    })))

  it.live("a same-origin 307 is followed; a redirect to another origin is refused", () =>
    live(Effect.gen(function*() {
      const other = yield* serve((_request, res) => json(res, { never: true }))
      const { handler } = mcpPeer()
      const peer = yield* serve((request, res) => {
        if (request.path === "/old") {
          res.writeHead(307, { location: "/mcp" }).end()
          return
        }
        if (request.path === "/away") {
          res.writeHead(307, { location: other.url }).end()
          return
        }
        handler(request, res)
      }, "/old")
      const moved = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* moved.awaitReady
      const away = yield* McpClient.http({ url: `${peer.origin}/away`, transport: "http" })
      const refused = failureOf(yield* Effect.exit(away.awaitReady))
      assert.strictEqual(refused._tag, "RedirectRefused")
      assert.strictEqual(other.requests.length, 0)
    })))

  it.live("an unreachable server fails initialize with ConnectionFailed", () =>
    live(Effect.gen(function*() {
      const peer = yield* Effect.scoped(serve((_r, res) => res.end()))
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "ConnectionFailed")
      yield* client.awaitTerminated
      assert.isFalse(client.isAlive())
      assert.strictEqual(failureOf(yield* Effect.exit(client.awaitReady))._tag, "ConnectionFailed")
    })))

  it.live("an event that is not JSON is skipped and the stream goes on", () =>
    live(Effect.gen(function*() {
      const { handler } = mcpPeer({
        override: (request, res) => {
          if (request.message?.method !== "tools/call") return false
          openSse(res)
          res.write(event({ data: "{not json" }))
          res.end(event({ data: JSON.stringify({ jsonrpc: "2.0", id: request.message.id, result: { content: [] } }) }))
          return true
        }
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      yield* client.callTool("t", {})
      assert.strictEqual(client.stats().notJson, 1)
    })))

  it.live("a call past its deadline aborts its exchange and sends notifications/cancelled", () =>
    live(Effect.gen(function*() {
      const { handler } = mcpPeer({
        override: (request) => request.message?.method === "tools/call" // never answered
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const late = failureOf(yield* Effect.exit(client.callTool("t", {}, { timeout: "50 millis" })))
      assert.strictEqual(late._tag, "RequestTimeout")
      yield* peer.waitFor((r) => r.message?.method === "tools/call" && r.aborted)
      const cancelled = yield* peer.waitFor(isPost("notifications/cancelled"))
      assert.strictEqual(
        paramsOf(cancelled).requestId,
        peer.calls("tools/call")[0]!.message?.id
      )
    })))

  it.live("initialize refused with 404 falls back to legacy HTTP+SSE when auto-detecting", () =>
    live(Effect.gen(function*() {
      const streams: Array<Http.ServerResponse> = []
      const peer = yield* serve((request, res) => {
        if (request.method === "POST" && request.path === "/sse") {
          res.writeHead(404, { "content-type": "text/html" }).end("Cannot POST /sse")
          return
        }
        if (request.method === "GET" && request.path === "/sse") {
          openSse(res)
          res.write(event({ event: "endpoint", data: "/message?sessionId=abc" }))
          streams.push(res)
          return
        }
        if (request.method === "POST" && request.path === "/message?sessionId=abc") {
          res.writeHead(202).end("Accepted")
          const msg = request.message
          const reply = msg?.method === "initialize"
            ? initializeResult(msg.id, "2024-11-05")
            : msg?.method === "tools/list"
            ? toolsResult(msg.id, ["legacy-tool"])
            : undefined
          if (reply !== undefined) streams[0]!.write(event({ event: "message", data: JSON.stringify(reply) }))
          return
        }
        res.writeHead(404).end()
      }, "/sse")
      const client = yield* McpClient.http({ url: peer.url })
      const session = yield* client.awaitReady
      assert.strictEqual(session.protocolVersion, "2024-11-05")
      assert.strictEqual(client.transport, "sse")
      assert.strictEqual(client.stats().requests["initialize"], 1)
      const { tools } = yield* client.listTools()
      assert.deepStrictEqual(tools.map((t) => t.name), ["legacy-tool"])
      assert.strictEqual(peer.requests.filter((r) => r.path.startsWith("/message")).length >= 3, true)
    })))

  it.live("a legacy endpoint on another origin is refused", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve((_request, res) => {
        openSse(res)
        res.write(event({ event: "endpoint", data: "http://evil.example/message" }))
      }, "/sse")
      const client = yield* McpClient.http({ url: peer.url, transport: "sse" })
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "ProtocolError")
      assert.include(error.message, "evil.example")
    })))
})
