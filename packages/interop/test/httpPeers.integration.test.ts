/**
 * The HTTP fixtures against raw HTTP: server-everything in its `streamableHttp` and `sse` modes and
 * `@modelcontextprotocol/server` on node:http each start on 127.0.0.1 (and only there), answer the
 * handshake and a real call, and are gone — process and port — once the scope that started them closes.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Scope } from "effect"
import { networkInterfaces } from "node:os"
import * as HttpPeers from "../src/HttpPeers.ts"
import { initialize, isListening, post, replyOf, SseReader } from "./httpRaw.ts"
import { exists } from "./support.ts"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)
const resultOf = (message: Record<string, unknown>): Record<string, unknown> => {
  if (message.error !== undefined) throw new Error(`expected a result, got ${JSON.stringify(message.error)}`)
  return message.result as Record<string, unknown>
}
const toolNames = (result: Record<string, unknown>): Array<string> =>
  (result.tools as Array<{ name: string }>).map((t) => t.name)
/** An IPv4 address of this machine other than loopback, if it has one. */
const otherAddress = Object.values(networkInterfaces()).flat().find((a) =>
  a !== undefined && a.family === "IPv4" && !a.internal
)?.address

/** Starts `name` in its own scope, runs `use`, closes the scope, and checks process and port are gone. */
const withPeer = <A>(
  name: HttpPeers.Name,
  use: (peer: HttpPeers.Running) => Effect.Effect<A>,
  options: { readonly port?: number } = {}
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const { peer, result } = yield* Effect.gen(function*() {
      const peer = yield* HttpPeers.start(name, options).pipe(Scope.provide(scope))
      return { peer, result: yield* use(peer) }
    }).pipe(Effect.onExit((exit) => Scope.close(scope, exit)))
    assert.isFalse(exists(peer.pid), `pid ${peer.pid} is still running`)
    assert.isFalse(yield* promise(() => isListening(peer.port)), `port ${peer.port} still accepts connections`)
    return { peer, result }
  }).pipe(Effect.provide(NodeServices.layer))

describe("HTTP peers", { timeout: 60_000 }, () => {
  it.live("server-everything streamableHttp: 127.0.0.1 only, sessions, SSE replies, a real call, DELETE", () =>
    withPeer("everything-streamable", (peer) =>
      promise(async () => {
        assert.strictEqual(peer.url, `http://127.0.0.1:${peer.port}/mcp`)
        if (otherAddress !== undefined) {
          assert.isFalse(await isListening(peer.port, otherAddress), `listening on ${otherAddress} too`)
        }
        const init = await post(peer.url, initialize(1, "2025-11-25"))
        assert.strictEqual(init.status, 200)
        assert.strictEqual(init.headers.get("content-type"), "text/event-stream")
        const sessionId = init.headers.get("mcp-session-id") ?? ""
        assert.match(sessionId, /^[\x21-\x7e]+$/)
        assert.strictEqual(resultOf(await replyOf(init)).protocolVersion, "2025-11-25")
        const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }
        const ack = await post(peer.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
        assert.strictEqual(ack.status, 202)
        const tools = toolNames(
          resultOf(await replyOf(await post(peer.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, headers)))
        )
        assert.includeMembers(tools, ["echo", "get-sum"])
        const call = resultOf(
          await replyOf(
            await post(peer.url, {
              jsonrpc: "2.0",
              id: 3,
              method: "tools/call",
              params: { name: "echo", arguments: { message: "hi" } }
            }, headers)
          )
        )
        assert.deepStrictEqual(call.content, [{ type: "text", text: "Echo: hi" }])
        const deleted = await fetch(peer.url, { method: "DELETE", headers })
        assert.strictEqual(deleted.status, 200)
        // everything-server answers 400, not 404, for a session it no longer has.
        const after = await post(peer.url, { jsonrpc: "2.0", id: 4, method: "tools/list" }, headers)
        assert.strictEqual(after.status, 400)
        assert.include(await after.text(), "No valid session ID provided")
      })))

  it.live("server-everything sse: the endpoint event, 202 'Accepted', replies on the GET stream", () =>
    withPeer("everything-sse", (peer) =>
      promise(async () => {
        assert.strictEqual(peer.url, `http://127.0.0.1:${peer.port}/sse`)
        const stream = new SseReader(await fetch(peer.url, { headers: { accept: "text/event-stream" } }))
        const endpoint = await stream.next()
        assert.strictEqual(endpoint?.event, "endpoint")
        const messageUrl = new URL(endpoint?.data ?? "", peer.url)
        assert.strictEqual(messageUrl.origin, peer.origin)
        const init = await post(messageUrl.href, initialize(1, "2024-11-05"))
        assert.strictEqual(init.status, 202)
        assert.strictEqual(await init.text(), "Accepted")
        assert.strictEqual(resultOf(await stream.nextResponse(1)).protocolVersion, "2024-11-05")
        await post(messageUrl.href, { jsonrpc: "2.0", method: "notifications/initialized" })
        await post(messageUrl.href, { jsonrpc: "2.0", id: 2, method: "tools/list" })
        assert.include(toolNames(resultOf(await stream.nextResponse(2))), "echo")
        // What an auto-detecting client tries first: POST initialize to the SSE URL.
        assert.strictEqual((await post(peer.url, initialize(3, "2025-11-25"))).status, 404)
        await stream.cancel()
      })))

  it.live("@modelcontextprotocol/server 2.4.0 on node:http: legacy initialize, a call, 2026-07-28 discover, GET 405", () =>
    withPeer("v2", (peer) =>
      promise(async () => {
        assert.strictEqual(HttpPeers.v2Version(), "2.4.0")
        const init = await post(peer.url, initialize(1, "2025-11-25"))
        assert.strictEqual(init.status, 200)
        assert.isNull(init.headers.get("mcp-session-id"))
        const result = resultOf(await replyOf(init))
        assert.deepStrictEqual(result.serverInfo, { name: "echo-v2", version: "1.0.0" })
        const call = await post(peer.url, {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "hi" } }
        }, { "mcp-protocol-version": "2025-11-25" })
        assert.deepStrictEqual(resultOf(await replyOf(call)).content, [{ type: "text", text: "hi" }])
        const meta = {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "interop-raw", version: "0" },
          "io.modelcontextprotocol/clientCapabilities": {}
        }
        const discover = await post(
          peer.url,
          { jsonrpc: "2.0", id: 3, method: "server/discover", params: { _meta: meta } },
          { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" }
        )
        assert.strictEqual(discover.status, 200)
        assert.deepStrictEqual(resultOf(await replyOf(discover)).supportedVersions, ["2026-07-28"])
        const get = await fetch(peer.url, { headers: { accept: "text/event-stream" } })
        assert.strictEqual(get.status, 405)
      })))

  it.live("a peer restarts on the port it had", () =>
    Effect.gen(function*() {
      const first = yield* withPeer("everything-streamable", () => Effect.void)
      const second = yield* withPeer(
        "everything-streamable",
        (peer) => promise(async () => (await post(peer.url, initialize(1, "2025-11-25"))).status),
        { port: first.peer.port }
      )
      assert.strictEqual(second.peer.port, first.peer.port)
      assert.strictEqual(second.result, 200)
    }))
})
