/**
 * mcp-fleet's HTTP transport (`McpClient.http` over undici) against the fake MCP server's HTTP mode, run as a
 * real process on 127.0.0.1: the fault switches the issue names, each seen from the client's side.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeHttpServer } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Layer, Schema } from "effect"
import { texts } from "./support.ts"

const layer = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)
const Logged = Schema.Array(Schema.Struct({
  method: Schema.String,
  rpc: Schema.optional(Schema.String),
  lastEventId: Schema.optional(Schema.String),
  status: Schema.optional(Schema.Number)
}))
/** The fake server's request log. */
const requests = (server: FakeHttpServer.Running) =>
  Effect.promise(async () => (await fetch(`${server.origin}/_fake/requests`)).json()).pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(Logged)),
    Effect.orDie
  )
const connect = (url: string, transport: "http" | "sse" | "auto" = "http") =>
  McpClient.http({ url, transport, name: "fake-http", requestTimeout: "10 seconds" })

describe("HTTP transport against the fake HTTP server", { timeout: 60_000 }, () => {
  it.live("drop-after=1: a tools/call stream cut after its priming event is resumed with Last-Event-ID", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["reply=sse", "drop-after=1", "retry=50"])
      const client = yield* connect(server.url)
      yield* client.awaitReady
      assert.deepStrictEqual(texts(yield* client.callTool("echo", { n: 1 })), [JSON.stringify({ n: 1 })])
      const log = yield* requests(server)
      assert.isTrue(log.some((r) => r.method === "GET" && r.lastEventId !== undefined), JSON.stringify(log))
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("expire-after=2 expire-status=400: session loss is one SessionExpired, then a new session serves", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["expire-after=2", "expire-status=400", "no-get"])
      const client = yield* connect(server.url)
      yield* client.awaitReady
      assert.deepStrictEqual(texts(yield* client.callTool("echo", { n: 1 })), [JSON.stringify({ n: 1 })])
      const lost = yield* client.callTool("echo", { n: 2 }).pipe(Effect.flip)
      assert.strictEqual(lost._tag, "SessionExpired")
      assert.deepStrictEqual(texts(yield* client.callTool("echo", { n: 3 })), [JSON.stringify({ n: 3 })])
      assert.strictEqual(client.stats().sessionsLost, 1)
      assert.strictEqual((yield* requests(server)).filter((r) => r.rpc === "initialize").length, 2)
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("fault=status status=401: initialize fails with the status and WWW-Authenticate", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["fault=status", "status=401"])
      const client = yield* connect(server.url)
      const error = yield* client.awaitReady.pipe(Effect.flip)
      assert.strictEqual(error._tag, "HttpStatusError", JSON.stringify(error))
      if (error._tag === "HttpStatusError") {
        assert.strictEqual(error.status, 401)
        assert.strictEqual(
          error.wwwAuthenticate,
          `Bearer error="invalid_token", resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`
        )
      }
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("redirects: followed on the same origin, refused to another origin", () =>
    Effect.gen(function*() {
      const same = yield* FakeHttpServer.start(["fault=redirect-same"])
      const followed = yield* connect(same.url)
      yield* followed.awaitReady
      assert.deepStrictEqual(texts(yield* followed.callTool("echo", {})), ["{}"])
      const other = yield* FakeHttpServer.start(["fault=redirect-other"])
      const refused = yield* connect(other.url)
      const error = yield* refused.awaitReady.pipe(Effect.flip)
      assert.strictEqual(error._tag, "RedirectRefused", JSON.stringify(error))
      assert.isFalse((yield* requests(other)).some((r) => r.method === "POST" && r.status === 200))
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("fault=invalid-sse-event: the bad event is skipped and the call gets its answer", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["fault=invalid-sse-event", "fault-on=tools/call"])
      const client = yield* connect(server.url)
      yield* client.awaitReady
      assert.deepStrictEqual(texts(yield* client.callTool("echo", { k: "v" })), [JSON.stringify({ k: "v" })])
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("legacy-sse: auto-detect falls back to HTTP+SSE; an endpoint on another origin is refused", () =>
    Effect.gen(function*() {
      const legacy = yield* FakeHttpServer.start(["legacy-sse"])
      const client = yield* connect(legacy.url, "auto")
      yield* client.awaitReady
      assert.strictEqual(client.transport, "sse")
      assert.deepStrictEqual(texts(yield* client.callTool("echo", { a: 1 })), [JSON.stringify({ a: 1 })])
      const other = yield* FakeHttpServer.start(["legacy-sse", "endpoint=other"])
      const refused = yield* connect(other.url, "sse")
      const error = yield* refused.awaitReady.pipe(Effect.flip)
      assert.strictEqual(error._tag, "ProtocolError", JSON.stringify(error))
      assert.include(error.message, `http://localhost:${other.port}/message`)
      assert.isFalse((yield* requests(other)).some((r) => r.method === "POST"), JSON.stringify(error))
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("get-never-closes: the client's close is bounded although the server never ends the GET stream", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["get-never-closes"])
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* connect(server.url)
        yield* client.awaitReady
        yield* client.callTool("change_tools", {})
        // The list_changed pushed on the GET stream shows the stream is open before the close.
        yield* client.listTools()
      }))
      const log = yield* requests(server)
      assert.isTrue(log.some((r) => r.method === "DELETE" && r.status === 200), JSON.stringify(log))
    }).pipe(Effect.scoped, Effect.provide(layer)))
})
