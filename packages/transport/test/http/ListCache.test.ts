/**
 * The session's list cache over HTTP (TestClock): a `tools/list` with `ttlMs` is answered from the cache within the
 * TTL, asked again after it, and asked again at once after a list_changed; nothing is fetched in the background;
 * the stats say where each answer came from.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { event, initializeResult, json, openSse, result, serve } from "./HttpPeer.ts"

describe("list cache (ttlMs)", () => {
  it.effect("tools/list within ttlMs comes from the cache; after it, or after a list_changed, from the server", () =>
    Effect.gen(function*() {
      let generation = 0
      const peer = yield* serve((request, res) => {
        const message = request.message
        if (message === undefined) return json(res, {}, 405)
        if (message.id === undefined) return json(res, {}, 202)
        switch (message.method) {
          case "initialize":
            return json(res, initializeResult(message.id))
          case "tools/list":
            return json(
              res,
              result(message.id, {
                tools: [{ name: `tool_${generation}`, inputSchema: { type: "object" } }],
                ttlMs: 60_000,
                cacheScope: "private"
              })
            )
          case "tools/call": {
            // The change is announced on the call's own stream, before its answer.
            generation += 1
            openSse(res)
            res.write(
              event({
                event: "message",
                data: JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
              })
            )
            return res.end(event({ event: "message", data: JSON.stringify(result(message.id, { content: [] })) }))
          }
          default:
            return json(res, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "nope" } })
        }
      })
      const client = yield* McpClient.make({ url: peer.url })
      yield* client.awaitReady
      const names = Effect.map(client.listTools(), (list) => list.tools.map((t) => t.name))
      assert.deepStrictEqual(yield* names, ["tool_0"])
      assert.deepStrictEqual(yield* names, ["tool_0"])
      assert.strictEqual(peer.calls("tools/list").length, 1)
      assert.deepStrictEqual(client.stats().listCache, { hits: 1, misses: 1, lastFromCache: { "tools/list": true } })
      // Nothing is fetched in the background when the entry expires.
      yield* TestClock.adjust(60_000)
      assert.strictEqual(peer.calls("tools/list").length, 1)
      assert.deepStrictEqual(yield* names, ["tool_0"])
      assert.strictEqual(peer.calls("tools/list").length, 2)
      assert.strictEqual(client.stats().listCache?.lastFromCache["tools/list"], false)
      // A list_changed drops the cached list at once.
      yield* client.callTool("change", {})
      assert.deepStrictEqual(yield* names, ["tool_1"])
      assert.strictEqual(peer.calls("tools/list").length, 3)
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))
})
