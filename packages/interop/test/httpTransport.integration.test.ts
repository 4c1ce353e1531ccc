/**
 * mcp-fleet's HTTP transport (`McpClient.http` over undici) against real servers on 127.0.0.1: server-everything
 * in `streamableHttp` and `sse` modes and `@modelcontextprotocol/server` 2.4.0. Each reaches ready, lists every
 * tool (after the `list_changed` that everything sends once initialized, which arrives on the GET stream or the
 * legacy SSE stream), answers a real call, and — for Streamable HTTP — gets its session DELETEd when the
 * client's scope closes. A server killed and restarted on the same port is reached again.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ErrorKind, McpClient } from "@mcp-fleet/transport"
import { Effect, Exit, Layer, Scope, Stream } from "effect"
import * as HttpPeers from "../src/HttpPeers.ts"
import { EVERYTHING_TOOLS, texts } from "./support.ts"

const LIST_CHANGED = "notifications/tools/list_changed"
const layer = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)

/** The first line of the peer's output that contains `text`. */
const lineWith = (peer: HttpPeers.Running, text: string) =>
  peer.output.pipe(Stream.filter((line) => line.includes(text)), Stream.runHead)

/**
 * Ready, every tool listed, and a real echo. everything registers one more tool once initialized and says so
 * with list_changed; over legacy SSE that arrives on the one stream (and is replayed to late readers), so
 * `awaitListChanged` waits for it. Over Streamable HTTP it is sent before the client's GET stream exists and the
 * server drops it (the SDK v1 transport discards messages for a standalone stream that is not open), so there the
 * list is simply taken after initialize, when the tool is already registered.
 */
const readyListAndEcho = (client: McpClient.McpClient, awaitListChanged: boolean) =>
  Effect.gen(function*() {
    const session = yield* client.awaitReady
    if (awaitListChanged) {
      yield* client.notifications.pipe(Stream.filter((n) => n.method === LIST_CHANGED), Stream.runHead)
    }
    const list = yield* client.listTools()
    const echo = yield* client.callTool("echo", { message: "héllo over HTTP" })
    return { session, names: list.tools.map((t) => t.name), echo: texts(echo) }
  })

describe("HTTP transport against real servers", { timeout: 60_000 }, () => {
  it.live("server-everything streamableHttp: ready, 13 tools, echo, a log message on the GET stream, DELETE on close", () =>
    Effect.gen(function*() {
      const peer = yield* HttpPeers.start("everything-streamable")
      const clientScope = yield* Scope.make()
      const result = yield* Effect.gen(function*() {
        const client = yield* McpClient.http({ url: peer.url, transport: "http", name: "everything" })
        assert.strictEqual(client.transport, "http")
        const ready = yield* readyListAndEcho(client, false)
        // The GET stream carries what the server sends on its own: simulated log messages, once switched on.
        yield* client.callTool("toggle-simulated-logging", {})
        const logged = yield* client.notifications.pipe(
          Stream.filter((n) => n.method === "notifications/message"),
          Stream.runHead
        )
        return { ...ready, logged }
      }).pipe(Scope.provide(clientScope))
      assert.isTrue(result.logged._tag === "Some")
      assert.strictEqual(result.session.protocolVersion, "2025-11-25")
      assert.strictEqual(result.session.serverInfo.name, "mcp-servers/everything")
      assert.deepStrictEqual(result.names, EVERYTHING_TOOLS)
      assert.deepStrictEqual(result.echo, ["Echo: héllo over HTTP"])
      yield* Scope.close(clientScope, Exit.void)
      const deleted = yield* lineWith(peer, "Received session termination request for session")
      assert.isTrue(deleted._tag === "Some")
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("server-everything sse (2024-11-05): ready over legacy HTTP+SSE, 13 tools, echo; auto-detect picks sse", () =>
    Effect.gen(function*() {
      const peer = yield* HttpPeers.start("everything-sse")
      const explicit = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.http({ url: peer.url, transport: "sse", name: "everything-sse" })
        return yield* readyListAndEcho(client, true)
      }))
      assert.deepStrictEqual(explicit.names, EVERYTHING_TOOLS)
      assert.deepStrictEqual(explicit.echo, ["Echo: héllo over HTTP"])
      const detected = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.http({ url: peer.url, transport: "auto", name: "everything-auto" })
        yield* client.awaitReady
        return client.transport
      }))
      assert.strictEqual(detected, "sse")
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("@modelcontextprotocol/server 2.4.0 on node:http: ready (stateless legacy era) and a call", () =>
    Effect.gen(function*() {
      const peer = yield* HttpPeers.start("v2")
      const client = yield* McpClient.http({ url: peer.url, transport: "http", name: "v2" })
      const session = yield* client.awaitReady
      assert.strictEqual(session.serverInfo.name, "echo-v2")
      const list = yield* client.listTools()
      assert.deepStrictEqual(list.tools.map((t) => t.name), ["echo", "change_tools", "confirm"])
      assert.deepStrictEqual(texts(yield* client.callTool("echo", { text: "hi" })), ["hi"])
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("server-everything killed and restarted on the same port: the same client gets a new session and is served", () =>
    Effect.gen(function*() {
      const firstScope = yield* Scope.make()
      const first = yield* HttpPeers.start("everything-streamable").pipe(Scope.provide(firstScope))
      const client = yield* McpClient.http({ url: first.url, transport: "http", name: "restarted" })
      yield* client.awaitReady
      assert.deepStrictEqual(texts(yield* client.callTool("echo", { message: "before" })), ["Echo: before"])
      yield* Scope.close(firstScope, Exit.void)
      const down = yield* client.callTool("echo", { message: "while down" }).pipe(Effect.flip)
      const second = yield* HttpPeers.start("everything-streamable", { port: first.port })
      assert.strictEqual(second.port, first.port)
      // The new process has never seen the old session: it answers 400 "No valid session ID provided". The call
      // that meets it fails with the retryable SessionExpired while the client initializes a new session, and the
      // call made again is served.
      const lost = yield* client.callTool("echo", { message: "after" }).pipe(Effect.flip)
      assert.strictEqual(lost._tag, "SessionExpired")
      assert.isTrue(lost._tag === "SessionExpired" && ErrorKind.isRetryable(lost))
      const after = yield* client.callTool("echo", { message: "after" })
      assert.deepStrictEqual(texts(after), ["Echo: after"])
      assert.strictEqual(client.stats().sessionsLost, 1)
      return down
    }).pipe(
      Effect.tap((down) => Effect.log(`a call while the server was down failed with ${down._tag}`)),
      Effect.scoped,
      Effect.provide(layer)
    ))
})
