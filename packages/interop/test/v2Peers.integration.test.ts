/**
 * The `@modelcontextprotocol/server` 2.4.0 fixtures against raw JSON-RPC: over stdio (`serveStdio`) in its
 * `legacy: "serve"` and `legacy: "reject"` modes, and over HTTP modern-only (`createMcpHandler`,
 * `legacy: "reject"`). Each answers the era it claims to, lists and calls tools, announces a tool change on
 * `subscriptions/listen` exactly once, asks for input through MRTR, and is gone once its scope closes.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Option, Scope, Stream } from "effect"
import * as HttpPeers from "../src/HttpPeers.ts"
import * as V2Stdio from "../src/V2Stdio.ts"
import { initialize, post, replyOf, SseReader } from "./httpRaw.ts"
import { exists } from "./support.ts"

type Message = Record<string, unknown>
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "interop-raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
}
const clientInfo = "io.modelcontextprotocol/clientInfo"
const modern = (id: number, method: string, params: Message = {}): Message => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { ...params, _meta: META }
})
const isRecord = (u: unknown): u is Message => typeof u === "object" && u !== null && !Array.isArray(u)

/** The first message (from the start of the fixture's output) that `match` accepts. */
const first = (peer: V2Stdio.Running, match: (m: Message) => boolean) =>
  peer.messages.pipe(
    Stream.filter((u): u is Message => isRecord(u) && match(u)),
    Stream.runHead,
    Effect.map(Option.getOrThrow)
  )
const reply = (peer: V2Stdio.Running, id: number) => first(peer, (m) => m.id === id && m.method === undefined)
const resultOf = (message: Message): Message => {
  if (!isRecord(message.result)) throw new Error(`expected a result, got ${JSON.stringify(message)}`)
  return message.result
}
const toolNames = (result: Message): Array<string> =>
  (result.tools as Array<{ readonly name: string }>).map((t) => t.name)

/** Starts the stdio fixture in its own scope, runs `use`, closes the scope, and checks the process is gone. */
const withStdio = <A>(mode: V2Stdio.Mode, use: (peer: V2Stdio.Running) => Effect.Effect<A>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const peer = yield* V2Stdio.start(mode).pipe(Scope.provide(scope))
    const result = yield* use(peer).pipe(Effect.onExit((exit) => Scope.close(scope, exit)))
    assert.isFalse(exists(peer.pid), `pid ${peer.pid} is still running`)
    return result
  }).pipe(Effect.provide(NodeServices.layer))

describe("@modelcontextprotocol/server 2.4.0 fixtures", { timeout: 60_000 }, () => {
  it.live("stdio legacy=serve, modern opening: discover, listen ack, one list_changed per change, MRTR", () =>
    withStdio("serve", (peer) =>
      Effect.gen(function*() {
        yield* peer.send(modern(1, "server/discover"))
        assert.deepStrictEqual(resultOf(yield* reply(peer, 1)).supportedVersions, ["2026-07-28"])
        yield* peer.send(modern(2, "subscriptions/listen", { notifications: { toolsListChanged: true } }))
        const ack = yield* first(peer, (m) => m.method === "notifications/subscriptions/acknowledged")
        assert.deepStrictEqual(ack.params, {
          notifications: { toolsListChanged: true },
          _meta: { "io.modelcontextprotocol/subscriptionId": 2 }
        })
        yield* peer.send(modern(3, "tools/list"))
        assert.deepStrictEqual(toolNames(resultOf(yield* reply(peer, 3))), ["echo", "change_tools", "confirm"])
        yield* peer.send(modern(4, "tools/call", { name: "change_tools", arguments: {} }))
        yield* reply(peer, 4)
        yield* peer.send(modern(5, "tools/list"))
        assert.include(toolNames(resultOf(yield* reply(peer, 5))), "generation_1")
        // Everything up to the answer to 5 is in: exactly one list_changed, tagged with the listen id.
        const changes = yield* peer.messages.pipe(
          Stream.filter(isRecord),
          Stream.takeUntil((m) => m.id === 5),
          Stream.filter((m) => m.method === "notifications/tools/list_changed"),
          Stream.runCollect
        )
        assert.deepStrictEqual(changes.map((m) => m.params), [{
          _meta: { "io.modelcontextprotocol/subscriptionId": 2 }
        }])
        yield* peer.send(modern(6, "tools/call", { name: "confirm", arguments: { what: "deploy" } }))
        const asked = resultOf(yield* reply(peer, 6))
        assert.strictEqual(asked.resultType, "input_required")
        assert.strictEqual((asked.inputRequests as Message).confirm !== undefined, true)
        yield* peer.send(modern(7, "tools/call", {
          name: "confirm",
          arguments: { what: "deploy" },
          inputResponses: { confirm: { action: "accept", content: { confirm: true } } }
        }))
        const done = resultOf(yield* reply(peer, 7))
        assert.strictEqual(done.resultType, "complete")
        assert.deepStrictEqual(done.content, [{ type: "text", text: "confirmed deploy" }])
      })))

  it.live("stdio legacy=serve, legacy opening: initialize pins 2025-11-25; confirm is a real elicitation/create", () =>
    withStdio("serve", (peer) =>
      Effect.gen(function*() {
        yield* peer.send({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: META[clientInfo] }
        })
        assert.strictEqual(resultOf(yield* reply(peer, 1)).protocolVersion, "2025-11-25")
        yield* peer.send({ jsonrpc: "2.0", method: "notifications/initialized" })
        yield* peer.send({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "hi" } }
        })
        assert.deepStrictEqual(resultOf(yield* reply(peer, 2)).content, [{ type: "text", text: "hi" }])
        yield* peer.send({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "confirm", arguments: { what: "x" } }
        })
        const request = yield* first(peer, (m) => m.method === "elicitation/create")
        yield* peer.send({ jsonrpc: "2.0", id: request.id, result: { action: "accept", content: { confirm: true } } })
        assert.deepStrictEqual(resultOf(yield* reply(peer, 3)).content, [{ type: "text", text: "confirmed x" }])
      })))

  it.live("stdio legacy=reject: initialize gets -32022 naming 2026-07-28; a modern opening still works; stdin end exits", () =>
    withStdio("reject", (peer) =>
      Effect.gen(function*() {
        yield* peer.send(initialize(1, "2025-11-25"))
        const rejected = yield* reply(peer, 1)
        assert.deepStrictEqual(rejected.error, {
          code: -32022,
          message: "Unsupported protocol version: 2025-11-25",
          data: { supported: ["2026-07-28"], requested: "2025-11-25" }
        })
        yield* peer.send(modern(2, "tools/call", { name: "echo", arguments: { text: "modern" } }))
        assert.deepStrictEqual(resultOf(yield* reply(peer, 2)).content, [{ type: "text", text: "modern" }])
        yield* peer.endInput
        assert.strictEqual(yield* peer.exitCode, 0)
      })))

  it.live("HTTP v2-modern (legacy: reject): initialize → -32022, listen stream acks and carries one list_changed", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const peer = yield* HttpPeers.start("v2-modern").pipe(Scope.provide(scope))
      yield* Effect.promise(async () => {
        const init = await post(peer.url, initialize(1, "2025-11-25"))
        const rejected = await replyOf(init)
        assert.strictEqual((rejected.error as Message).code, -32022)
        const headers = (method: string, name?: string): Record<string, string> => ({
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          ...(name === undefined ? {} : { "mcp-name": name })
        })
        const listen = await post(
          peer.url,
          modern(2, "subscriptions/listen", { notifications: { toolsListChanged: true } }),
          headers("subscriptions/listen")
        )
        assert.strictEqual(listen.headers.get("content-type")?.split(";")[0], "text/event-stream")
        const stream = new SseReader(listen)
        const ack = await stream.nextMessage()
        assert.strictEqual(ack.method, "notifications/subscriptions/acknowledged")
        const change = await post(
          peer.url,
          modern(3, "tools/call", { name: "change_tools", arguments: {} }),
          headers("tools/call", "change_tools")
        )
        assert.strictEqual(resultOf(await replyOf(change)).resultType, "complete")
        const changed = await stream.nextMessage()
        assert.deepStrictEqual(changed, {
          jsonrpc: "2.0",
          method: "notifications/tools/list_changed",
          params: { _meta: { "io.modelcontextprotocol/subscriptionId": 2 } }
        })
        const list = await post(peer.url, modern(4, "tools/list"), headers("tools/list"))
        assert.include(toolNames(resultOf(await replyOf(list))), "generation_1")
        await stream.cancel()
      }).pipe(Effect.onExit((exit) => Scope.close(scope, exit)))
      assert.isFalse(exists(peer.pid), `pid ${peer.pid} is still running`)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("HTTP v2-modern with a tools/list cache hint: the client answers the second listing from its cache", () =>
    Effect.gen(function*() {
      const peer = yield* HttpPeers.start("v2-modern", { ttlMs: 600_000 })
      const client = yield* McpClient.make({ url: peer.url, name: "v2-cached" })
      const session = yield* client.awaitReady
      assert.strictEqual(session.era, "modern")
      const first = yield* client.listTools()
      const second = yield* client.listTools()
      assert.deepStrictEqual(second.tools.map((t) => t.name), first.tools.map((t) => t.name))
      assert.strictEqual(client.stats().requests["tools/list"], 1)
      assert.deepStrictEqual(client.stats().listCache, { hits: 1, misses: 1, lastFromCache: { "tools/list": true } })
    }).pipe(Effect.scoped, Effect.provide([NodeServices.layer, NodeHttpClient.layerUndici])))
})
