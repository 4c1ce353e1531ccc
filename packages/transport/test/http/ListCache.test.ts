/**
 * The session's list cache over HTTP (TestClock): a `tools/list` with `ttlMs` is answered from the cache within the
 * TTL, asked again after it, and asked again at once after a list_changed; nothing is fetched in the background;
 * the stats say where each answer came from. The same holds for `prompts/list`, `resources/list` and
 * `resources/templates/list`, each invalidated by its own list_changed (resources' drops both resource lists).
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

  it.effect("prompts, resources and templates are cached for their ttlMs; each list_changed drops its own", () =>
    Effect.gen(function*() {
      const generation = { prompts: 0, resources: 0 }
      const page = (method: string) => {
        switch (method) {
          case "prompts/list":
            return { prompts: [{ name: `prompt_${generation.prompts}` }] }
          case "resources/list":
            return { resources: [{ uri: `fake://r${generation.resources}`, name: "r" }] }
          default:
            return { resourceTemplates: [{ uriTemplate: `fake://t${generation.resources}/{id}`, name: "t" }] }
        }
      }
      const peer = yield* serve((request, res) => {
        const message = request.message
        if (message === undefined) return json(res, {}, 405)
        if (message.id === undefined) return json(res, {}, 202)
        switch (message.method) {
          case "initialize":
            return json(
              res,
              result(message.id, {
                protocolVersion: "2025-11-25",
                capabilities: { prompts: { listChanged: true }, resources: { listChanged: true }, tools: {} },
                serverInfo: { name: "peer", version: "1" }
              })
            )
          case "prompts/list":
          case "resources/list":
          case "resources/templates/list":
            return json(res, result(message.id, { ...page(message.method), ttlMs: 60_000, cacheScope: "public" }))
          case "tools/call": {
            // `change {list}`: the change is announced on the call's own stream, before its answer.
            const params = message.params as { readonly arguments: { readonly list: "prompts" | "resources" } }
            const list = params.arguments.list
            generation[list] += 1
            openSse(res)
            res.write(
              event({
                event: "message",
                data: JSON.stringify({ jsonrpc: "2.0", method: `notifications/${list}/list_changed` })
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
      const all = Effect.all([
        Effect.map(client.listPrompts(), (l) => l.prompts.map((p) => p.name)),
        Effect.map(client.listResources(), (l) => l.resources.map((r) => r.uri)),
        Effect.map(client.listResourceTemplates(), (l) => l.resourceTemplates.map((t) => t.uriTemplate))
      ])
      const asked = () => [
        peer.calls("prompts/list").length,
        peer.calls("resources/list").length,
        peer.calls(
          "resources/templates/list"
        ).length
      ]
      assert.deepStrictEqual(yield* all, [["prompt_0"], ["fake://r0"], ["fake://t0/{id}"]])
      assert.deepStrictEqual(yield* all, [["prompt_0"], ["fake://r0"], ["fake://t0/{id}"]])
      assert.deepStrictEqual(asked(), [1, 1, 1])
      assert.deepStrictEqual(client.stats().listCache, {
        hits: 3,
        misses: 3,
        lastFromCache: { "prompts/list": true, "resources/list": true, "resources/templates/list": true }
      })
      // A prompts list_changed drops the prompts only.
      yield* client.callTool("change", { list: "prompts" })
      assert.deepStrictEqual(yield* all, [["prompt_1"], ["fake://r0"], ["fake://t0/{id}"]])
      assert.deepStrictEqual(asked(), [2, 1, 1])
      // A resources list_changed drops both resource lists.
      yield* client.callTool("change", { list: "resources" })
      assert.deepStrictEqual(yield* all, [["prompt_1"], ["fake://r1"], ["fake://t1/{id}"]])
      assert.deepStrictEqual(asked(), [2, 2, 2])
      assert.deepStrictEqual(client.stats().listCache?.lastFromCache, {
        "prompts/list": true,
        "resources/list": false,
        "resources/templates/list": false
      })
      // Expired: nothing is fetched in the background; the next lists ask the server.
      yield* TestClock.adjust(60_000)
      assert.deepStrictEqual(asked(), [2, 2, 2])
      yield* all
      assert.deepStrictEqual(asked(), [3, 3, 3])
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))
})
