/**
 * Issue 24, item 8: a body the server gzip-compressed although the client never asked (the HTTP fake's
 * `fault=gzip-bomb`). Before, the client read the compressed bytes as text and failed with "the JSON reply did not
 * answer it". Now the body is inflated as it is read, under `maxMessageBytes`: a small one is answered, and a bomb
 * stops at the cap with a `MessageTooLarge` that says the decompressed body passed it.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeHttpServer, Sleeps } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Layer } from "effect"

const live = Layer.mergeAll(NodeHttpClient.layerUndici, NodeServices.layer)

describe("compressed answers (issue 24, item 8)", () => {
  it.effect("a gzip-compressed answer nobody asked for is inflated and answers its call", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["fault=gzip-bomb", "fault-on=tools/call", "huge-bytes=12"])
      const client = yield* McpClient.http({ url: server.url, transport: "http" })
      yield* Sleeps.awaitEvent(client.awaitReady)
      const result = yield* Sleeps.awaitEvent(client.callTool("echo", {}))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "x".repeat(12) }])
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.effect("a gzip bomb (100 MB inflated) stops at maxMessageBytes, and the error says the decompressed body passed it", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["fault=gzip-bomb", "fault-on=tools/call", "huge-bytes=104857600"])
      const client = yield* McpClient.http({ url: server.url, transport: "http", maxMessageBytes: 1_000_000 })
      yield* Sleeps.awaitEvent(client.awaitReady)
      const error = yield* Sleeps.awaitEvent(Effect.flip(client.callTool("echo", {})))
      assert.strictEqual(error._tag, "MessageTooLarge")
      if (error._tag !== "MessageTooLarge") return
      assert.strictEqual(error.encoding, "gzip")
      assert.strictEqual(error.limit, 1_000_000)
      assert.isAbove(error.bytes, 1_000_000)
      assert.isBelow(error.bytes, 2_000_000, "reading stopped soon after the cap")
      assert.include(error.message, "gzip-compressed body whose decompressed size passed the 1000000-byte limit")
      // The exchange was aborted: the server stopped sending.
      yield* Sleeps.awaitEvent(FakeHttpServer.waitForRequests(server, 1, { rpc: "tools/call", closed: true }))
      // The client lives on.
      assert.isTrue(client.isAlive())
    }).pipe(Effect.scoped, Effect.provide(live)))
})
