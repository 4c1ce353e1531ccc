/**
 * `McpClient.make({ url })` and `McpClient.layer`: the same client interface as stdio, for a remote server.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { serve } from "./HttpPeer.ts"
import { mcpPeer } from "./mcpPeer.ts"

describe("McpClient over HTTP", () => {
  it.live("make({ url }) returns an McpClient: no pid, no stderr, no exit; calls and close work", () =>
    Effect.gen(function*() {
      const peer = yield* serve(mcpPeer({ reply: "sse" }).handler)
      const closed = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: `${peer.origin.replace("127.0.0.1", "u:p@127.0.0.1")}/mcp` })
        yield* client.awaitReady
        assert.strictEqual(client.transport, "http")
        assert.isUndefined(client.pid)
        assert.strictEqual(client.url, `${peer.origin.replace("127.0.0.1", "***:***@127.0.0.1")}/mcp`)
        assert.deepStrictEqual(client.stderrTail(), [])
        assert.isTrue(Option.isNone(client.exitInfo()))
        const result = yield* client.callTool("echo", { text: "x" })
        assert.deepStrictEqual(result.content, [{ type: "text", text: "echo: x" }])
        assert.strictEqual(client.stats().requests["tools/call"], 1)
        yield* client.forceClose
        assert.isFalse(client.isAlive())
        yield* client.awaitTerminated
        return client
      }))
      assert.deepStrictEqual(Object.values(closed.stats().fibersDone), [true, true, true, true, true, true])
      assert.strictEqual(peer.requests.filter((r) => r.method === "DELETE").length, 1)
      assert.strictEqual(peer.requests[0]!.headers["authorization"], `Basic ${Buffer.from("u:p").toString("base64")}`)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("McpClient.layer provides the McpClient service for a single-server app", () =>
    Effect.gen(function*() {
      const peer = yield* serve(mcpPeer().handler)
      const tools = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.awaitReady
        return (yield* client.listTools()).tools.map((t) => t.name)
      }).pipe(Effect.provide(McpClient.layer({ url: peer.url }).pipe(Layer.provide(NodeHttpClient.layerUndici))))
      assert.deepStrictEqual(tools, ["echo"])
      assert.strictEqual(peer.requests.filter((r) => r.method === "DELETE").length, 1)
    }))

  it.live("a URL that is not http(s) fails make with InvalidUrl", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(McpClient.make({ url: "file:///etc/passwd" }))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = Cause.findErrorOption(exit.cause)
        assert.strictEqual(Option.getOrUndefined(error)?._tag, "InvalidUrl")
      }
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))
})
