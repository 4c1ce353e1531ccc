import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Fiber, Option } from "effect"
import type { HttpClient } from "effect/http/HttpClient"
import type { Scope } from "effect/Scope"
import type * as Http from "node:http"
import { EraCache } from "../../src/session/EraCache.ts"
import type { Recorded } from "./HttpPeer.ts"
import { event, json, openSse, paramsOf, result, serve } from "./HttpPeer.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const found = Cause.findErrorOption(exit.cause)
  if (Option.isNone(found)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.value
}

const live = <A, E>(body: Effect.Effect<A, E, Scope | HttpClient>) =>
  body.pipe(Effect.scoped, Effect.provideService(EraCache, new Map()), Effect.provide(NodeHttpClient.layerUndici))

const metaVersion = (request: Recorded): unknown => {
  const meta = paramsOf(request)["_meta"]
  return typeof meta === "object" && meta !== null
    ? Reflect.get(meta, "io.modelcontextprotocol/protocolVersion")
    : undefined
}

const TOOLS = [
  {
    name: "routed",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        count: { type: "integer", "x-mcp-header": "Count" },
        nested: { type: "object", properties: { flag: { type: "boolean", "x-mcp-header": "Flag" } } }
      }
    }
  },
  {
    name: "dup",
    inputSchema: {
      type: "object",
      properties: { a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } }
    }
  },
  {
    name: "in_items",
    inputSchema: {
      type: "object",
      properties: { l: { type: "array", items: { type: "string", "x-mcp-header": "L" } } }
    }
  },
  { name: "number", inputSchema: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } } },
  { name: "plain", inputSchema: { type: "object" } }
]

/**
 * A stateless 2026-07-28 server (as `@modelcontextprotocol/server` 2.x answers): `server/discover`, `-32022` for a
 * claim-less `initialize`, and `-32020` (400 with the request's id) when the headers disagree with the body.
 */
const modernPeer =
  (override?: (request: Recorded, res: Http.ServerResponse) => boolean) =>
  (request: Recorded, res: Http.ServerResponse) => {
    if (request.method !== "POST") return res.writeHead(405).end()
    const msg = request.message
    if (msg === undefined || msg.id === undefined) return res.writeHead(202).end()
    if (msg.method === "initialize") {
      return json(res, {
        jsonrpc: "2.0",
        id: msg.id,
        error: { code: -32022, message: "Unsupported", data: { supported: ["2026-07-28"] } }
      }, 400)
    }
    const version = request.headers["mcp-protocol-version"]
    if (version !== metaVersion(request) || request.headers["mcp-method"] !== msg.method) {
      return json(res, {
        jsonrpc: "2.0",
        id: msg.id,
        error: { code: -32020, message: "Header mismatch", data: { mismatch: "mcp-method" } }
      }, 400)
    }
    if (override?.(request, res) === true) return
    switch (msg.method) {
      case "server/discover":
        return json(
          res,
          result(msg.id, { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} } })
        )
      case "tools/list":
        return json(res, result(msg.id, { resultType: "complete", ttlMs: 0, cacheScope: "private", tools: TOOLS }))
      case "tools/call":
        return json(res, result(msg.id, { resultType: "complete", content: [{ type: "text", text: "ok" }] }))
      case "resources/read":
        return json(res, result(msg.id, { resultType: "complete", contents: [] }))
      default:
        return json(res, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } }, 404)
    }
  }

describe("Streamable HTTP, 2026-07-28", () => {
  it.live("auto finds the modern era: no initialize, no session, the standard headers on every POST", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve(modernPeer())
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      const session = yield* client.awaitReady
      assert.strictEqual(session.era, "modern")
      yield* client.callTool("plain", {})
      yield* client.request("resources/read", { uri: "file:///a b" })
      assert.strictEqual(peer.calls("initialize").length, 0)
      for (const request of peer.requests) {
        assert.strictEqual(request.headers["mcp-protocol-version"], "2026-07-28")
        assert.strictEqual(request.headers["mcp-method"], request.message?.method)
        assert.isUndefined(request.headers["mcp-session-id"])
      }
      assert.strictEqual(peer.calls("tools/call")[0]!.headers["mcp-name"], "plain")
      assert.strictEqual(peer.calls("resources/read")[0]!.headers["mcp-name"], "file:///a b")
    })))

  it.live("x-mcp-header: invalid tools are skipped with the rule they break; Mcp-Param-* sent, unsafe values in base64", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve(modernPeer())
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const listed = yield* client.listTools()
      assert.deepStrictEqual(listed.tools.map((t) => t.name), ["routed", "plain"])
      const reasons = Object.fromEntries(listed.skipped.map((s) => [s.name, s.reason]))
      assert.include(reasons["dup"], "used twice")
      assert.include(reasons["in_items"], "reachable only through items")
      assert.include(reasons["number"], "not a primitive")
      yield* client.callTool("routed", { region: " Zürich", count: 3, nested: { flag: false } })
      yield* client.callTool("routed", { region: "eu-west", count: null })
      const [first, second] = peer.calls("tools/call")
      assert.strictEqual(first!.headers["mcp-param-region"], `=?base64?${Buffer.from(" Zürich").toString("base64")}?=`)
      assert.strictEqual(first!.headers["mcp-param-count"], "3")
      assert.strictEqual(first!.headers["mcp-param-flag"], "false")
      assert.strictEqual(second!.headers["mcp-param-region"], "eu-west")
      assert.isUndefined(second!.headers["mcp-param-count"], "a null value is omitted")
    })))

  it.live("a 400 with a JSON-RPC error body goes to its request; the session lives", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve(modernPeer((request, res) => {
        if (paramsOf(request)["name"] !== "refused") return false
        json(
          res,
          { jsonrpc: "2.0", id: request.message?.id, error: { code: -32020, message: "Mcp-Param-X missing" } },
          400
        )
        return true
      }))
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const refused = failureOf(yield* Effect.exit(client.callTool("refused", {})))
      assert.isTrue(refused._tag === "RemoteError" && refused.code === -32020)
      assert.deepStrictEqual((yield* client.callTool("plain", {})).content, [{ type: "text", text: "ok" }])
    })))

  it.live("a response stream that breaks before its answer: the request is sent again with a new id", () =>
    live(Effect.gen(function*() {
      let broken = 0
      const peer = yield* serve(modernPeer((request, res) => {
        if (request.message?.method !== "tools/call" || broken++ > 0) return false
        openSse(res)
        res.end(event({ data: JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: {} }) }))
        return true
      }))
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      assert.deepStrictEqual((yield* client.callTool("plain", {})).content, [{ type: "text", text: "ok" }])
      const calls = peer.calls("tools/call")
      assert.strictEqual(calls.length, 2)
      assert.notStrictEqual(calls[0]!.message?.id, calls[1]!.message?.id)
      assert.strictEqual(peer.requests.filter((r) => r.method === "GET").length, 0, "no resumption in this era")
    })))

  it.live("cancellation is closing the request's stream: no notifications/cancelled is posted", () =>
    live(Effect.gen(function*() {
      const peer = yield* serve(modernPeer((request, res) => {
        if (request.message?.method !== "tools/call") return false
        openSse(res) // and never answers
        return true
      }))
      const client = yield* McpClient.http({ url: peer.url, transport: "http" })
      yield* client.awaitReady
      const call = yield* Effect.forkChild(client.callTool("slow", {}))
      yield* peer.waitFor((r) => r.message?.method === "tools/call")
      yield* Fiber.interrupt(call)
      const closed = yield* peer.waitFor((r) => r.message?.method === "tools/call" && r.aborted)
      assert.isTrue(closed.aborted)
      // A request after the cancel: a cancellation notification, had one been posted, would have been first.
      yield* client.request("resources/read", { uri: "x" })
      assert.strictEqual(peer.calls("notifications/cancelled").length, 0)
    })))
})
