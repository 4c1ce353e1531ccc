/**
 * Hostile hosts against the gateway over HTTP (in process, in front of the conformance fixture): malformed JSON,
 * batches, oversized bodies, slow headers, unknown sessions, a foreign Host or Origin, a missing bearer token, and
 * thousands of sessions opened and abandoned. Each gets a clear refusal; none of them hurts the well-behaved host that
 * keeps calling, or the upstream; the session table stays within its bound.
 */
import { NodeHttpClient, NodeHttpServer, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpGateway } from "@mcp-fleet/gateway"
import { McpManager } from "@mcp-fleet/manager"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Layer, Redacted } from "effect"
import type { Scope } from "effect"
import type { HttpClient } from "effect/http"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import { connect } from "node:net"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { ACCEPT_BOTH, initialize, post } from "./httpRaw.ts"

const fixture = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers", "conformance-upstream.mjs")

const SESSION_CAP = 32
const TOKEN = "s3cret-token-for-the-test"

/** The gateway (session cap 32, 64 KiB bodies, 1 s to send headers), its URL, and a well-behaved host. */
const withGateway = <A, E>(
  use: (fleet: {
    readonly url: string
    readonly port: number
    readonly gateway: McpGateway.McpGateway["Service"]
    readonly host: McpClient.McpClient
  }) => Effect.Effect<A, E, Scope.Scope | HttpClient.HttpClient>,
  options: { readonly tokens?: boolean } = {}
) =>
  Effect.gen(function*() {
    const stack = McpGateway.layerHttp().pipe(
      Layer.provideMerge(
        McpGateway.layerFleet({ servers: { upstream: { command: process.execPath, args: [fixture, "stdio"] } } }, {
          prefix: "conditional",
          maxSessions: SESSION_CAP,
          maxMessageBytes: 64 * 1024,
          ...(options.tokens === true ? { tokens: [Redacted.make(TOKEN)] } : {})
        })
      ),
      Layer.provideMerge(
        NodeHttpServer.layer(
          () => createServer({ headersTimeout: 1_000, requestTimeout: 5_000, connectionsCheckingInterval: 100 }),
          {
            port: 0,
            host: "127.0.0.1"
          }
        )
      )
    )
    const context = yield* Layer.build(stack)
    return yield* Effect.gen(function*() {
      yield* Effect.orDie((yield* McpManager.McpManager).waitForReady("upstream"))
      const gateway = yield* McpGateway.McpGateway
      const address = (yield* HttpServer.HttpServer).address
      const port = "port" in address ? address.port : 0
      const url = `http://127.0.0.1:${port}/mcp`
      const host = yield* Effect.orDie(McpClient.make({
        url,
        name: "good-host",
        protocol: "legacy",
        transport: "http",
        ...(options.tokens === true ? { headers: { authorization: Redacted.make(`Bearer ${TOKEN}`) } } : {})
      }))
      yield* Effect.orDie(host.awaitReady)
      return yield* use({ url, port, gateway, host })
    }).pipe(Effect.provide(context))
  }).pipe(Effect.scoped, Effect.provide([NodeHttpClient.layerUndici, NodeServices.layer]))

const still = (host: McpClient.McpClient) =>
  Effect.map(host.callTool("test_simple_text", {}), (result) => {
    assert.include(JSON.stringify(result.content), "simple text response")
  })

const send = (url: string, body: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { accept: ACCEPT_BOTH, "content-type": "application/json", ...headers },
      body
    })
    return { status: response.status, text: await response.text() }
  })

describe("hostile hosts", { timeout: 90_000 }, () => {
  it.live("malformed JSON, a batch, a non-JSON-RPC body: 400 with the error code; the good host goes on", () =>
    withGateway(({ host, url }) =>
      Effect.gen(function*() {
        const garbage = yield* send(url, "{not json")
        assert.strictEqual(garbage.status, 400)
        assert.strictEqual(JSON.parse(garbage.text).error.code, -32700)
        const batch = yield* send(url, JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]))
        assert.strictEqual(batch.status, 400)
        assert.strictEqual(JSON.parse(batch.text).error.code, -32600)
        const notRpc = yield* send(url, JSON.stringify({ hello: "world" }))
        assert.strictEqual(notRpc.status, 400)
        assert.strictEqual(JSON.parse(notRpc.text).error.code, -32600)
        yield* still(host)
      })
    ))

  it.live("an oversized body is refused (413) without being buffered whole; the good host goes on", () =>
    withGateway(({ host, url }) =>
      Effect.gen(function*() {
        const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(1024 * 1024) } })
        const refused = yield* send(url, big)
        assert.strictEqual(refused.status, 413)
        yield* still(host)
      })
    ))

  it.live("an unknown session is 404 (the host must initialize again); a request without one is 400", () =>
    withGateway(({ host, url }) =>
      Effect.gen(function*() {
        const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
        assert.strictEqual((yield* send(url, call, { "mcp-session-id": "no-such-session" })).status, 404)
        assert.strictEqual((yield* send(url, call)).status, 400)
        yield* still(host)
      })
    ))

  it.live("a foreign Host or Origin is refused (403): DNS rebinding", () =>
    withGateway(({ host, port, url }) =>
      Effect.gen(function*() {
        const body = JSON.stringify(initialize(1, "2025-11-25"))
        const foreignOrigin = yield* send(url, body, { origin: "http://evil.example" })
        assert.strictEqual(foreignOrigin.status, 403)
        const foreignHost = yield* Effect.promise(() =>
          new Promise<string>((resolve, reject) => {
            const socket = connect(port, "127.0.0.1", () => {
              socket.write(
                `POST /mcp HTTP/1.1\r\nHost: evil.example:${port}\r\ncontent-type: application/json\r\n` +
                  `accept: ${ACCEPT_BOTH}\r\ncontent-length: ${
                    Buffer.byteLength(body)
                  }\r\nconnection: close\r\n\r\n${body}`
              )
            })
            let reply = ""
            socket.on("data", (chunk) => (reply += chunk.toString()))
            socket.on("close", () => resolve(reply))
            socket.on("error", reject)
          })
        )
        assert.match(foreignHost, /^HTTP\/1\.1 403/)
        const localOrigin = yield* Effect.promise(() =>
          post(url, initialize(2, "2025-11-25"), { origin: "http://localhost:1234" })
        )
        assert.strictEqual(localOrigin.status, 200)
        yield* Effect.promise(() => localOrigin.body?.cancel() ?? Promise.resolve())
        yield* still(host)
      })
    ))

  it.live("with tokens configured, a request without the right bearer token is 401; the token is never echoed", () =>
    withGateway(({ host, url }) =>
      Effect.gen(function*() {
        const body = JSON.stringify(initialize(1, "2025-11-25"))
        const none = yield* send(url, body)
        assert.strictEqual(none.status, 401)
        const wrong = yield* send(url, body, { authorization: `Bearer ${TOKEN}x` })
        assert.strictEqual(wrong.status, 401)
        assert.notInclude(wrong.text, TOKEN)
        yield* still(host)
      }), { tokens: true }))

  it.live("headers sent too slowly: the connection is closed by the server (slowloris)", () =>
    withGateway(({ host, port }) =>
      Effect.gen(function*() {
        const closed = yield* Effect.promise(() =>
          new Promise<string>((resolve, reject) => {
            const socket = connect(port, "127.0.0.1", () => socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
            let reply = ""
            socket.on("data", (chunk) => (reply += chunk.toString()))
            // The server's headersTimeout ends it: a 408, or the socket closed.
            socket.on("close", () => resolve(reply))
            socket.on("error", reject)
          })
        )
        assert.match(closed, /^(HTTP\/1\.1 408|)/)
        yield* still(host)
      })
    ))

  it.live("10,000 sessions opened and abandoned: the table stays within its cap, the good host is served", () =>
    withGateway(({ gateway, host, url }) =>
      Effect.gen(function*() {
        let opened = 0
        yield* Effect.forEach(
          Array.from({ length: 10_000 }, (_, i) => i),
          (i) =>
            Effect.promise(async () => {
              const response = await post(url, initialize(i, "2025-11-25"))
              await response.body?.cancel()
              if (response.status === 200) opened++
            }),
          { concurrency: 16, discard: true }
        )
        assert.strictEqual(opened, 10_000, "idle sessions are evicted to make room (least recently used first)")
        assert.isAtMost(gateway.stats().sessions, SESSION_CAP)
        yield* still(host)
      })
    ))
})
