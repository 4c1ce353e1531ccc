/**
 * Remote servers under the manager (issue 14): a `url` entry beside a local one, over real HTTP on 127.0.0.1.
 * The peer is the test kit's `node:http` MCP peer (`HttpPeer`).
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import { FakeServer, HttpPeer } from "@mcp-fleet/testing"
import { Elicitation, Roots } from "@mcp-fleet/transport"
import type { Sampling } from "@mcp-fleet/transport"
import { Context, Effect, Exit, Layer, Option, Predicate, Redacted, Stream } from "effect"

const { mcpPeer, serve } = HttpPeer

const build = (options: Parameters<typeof McpManager.layer>[0]) =>
  Effect.gen(function*() {
    const layer = McpManager.layer(options).pipe(Layer.provide([NodeServices.layer, NodeHttpClient.layerUndici]))
    return Context.get(yield* Layer.build(layer), McpManager.McpManager)
  })

describe("McpManager with remote servers", () => {
  it.live("a url entry beside a command: both ready, tools listed, a call, health says transport and redacted URL", () =>
    Effect.gen(function*() {
      const peer = yield* serve(mcpPeer({ reply: "sse", tools: ["echo", "add"] }).handler)
      const local = FakeServer.command({})
      const manager = yield* build({
        servers: {
          local: { command: local.command, args: local.args, env: local.env },
          remote: {
            url: Redacted.make(`${peer.url}?token=abcdef`),
            headers: { authorization: Redacted.make("Bearer abcdef") }
          }
        }
      })
      yield* manager.waitForReady("remote")
      yield* manager.waitForReady("local")
      const remote = yield* manager.serverHealth("remote")
      assert.strictEqual(remote.state, "ready")
      assert.strictEqual(remote.transport, "http")
      assert.strictEqual(remote.url, `${peer.url}?token=***`)
      assert.isUndefined(remote.pid)
      assert.deepStrictEqual(remote.tools.map((t) => t.name), ["echo", "add"])
      assert.strictEqual((yield* manager.serverHealth("local")).transport, "stdio")
      const result = yield* manager.call("remote", "echo", { text: "via manager" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "echo: via manager" }])
      assert.notInclude(JSON.stringify(manager.health()), "abcdef")
    }).pipe(Effect.scoped))

  it.live("fleet-wide handlers reach every server (local too), a server's own override them one by one", () =>
    Effect.gen(function*() {
      const plain = yield* serve(mcpPeer().handler)
      const own = yield* serve(mcpPeer().handler)
      const roots = yield* Roots.make(["file:///fleet"])
      const sampling: Sampling.Service = {
        createMessage: () => Effect.succeed({ role: "assistant", content: { type: "text", text: "x" }, model: "m" })
      }
      const local = FakeServer.command({})
      const manager = yield* build({
        servers: {
          local: { command: local.command, args: local.args, env: local.env },
          plain: { url: plain.url },
          own: { url: own.url, client: { handlers: { sampling, elicitation: Elicitation.declineAll } } }
        },
        handlers: { roots, elicitation: Elicitation.acceptDefaults }
      })
      yield* manager.waitForReady("plain")
      yield* manager.waitForReady("own")
      const declared = (peer: HttpPeer.Peer) => {
        const params = peer.calls("initialize")[0]?.message?.params
        return typeof params === "object" && params !== null && "capabilities" in params
          ? params.capabilities
          : undefined
      }
      assert.deepStrictEqual(declared(plain), { roots: { listChanged: true }, elicitation: { form: {} } })
      assert.deepStrictEqual(declared(own), {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} }
      })
      // A local server gets the fleet's handlers too: its roots/list is answered with them.
      yield* manager.waitForReady("local")
      const asked = yield* manager.call("local", "server_request", { method: "roots/list" })
      const structured = asked.structuredContent
      assert.deepStrictEqual(Predicate.isObject(structured) ? structured["result"] : structured, {
        roots: [{ uri: "file:///fleet" }]
      })
    }).pipe(Effect.scoped))

  it.live("a session loss is a re-initialize, not a crash: the server stays ready and calls go on", () =>
    Effect.gen(function*() {
      const { handler, state } = mcpPeer()
      const peer = yield* serve(handler)
      const manager = yield* build({ servers: { remote: { url: peer.url } } })
      yield* manager.waitForReady("remote")
      const seen: Array<string> = []
      yield* manager.changes.pipe(
        Stream.filter((c) => c.server === "remote"),
        Stream.runForEach((c) => Effect.sync(() => seen.push(c.to))),
        Effect.forkScoped
      )
      state.session = undefined // the server forgot the session
      const first = yield* Effect.exit(manager.call("remote", "echo", { text: "a" }))
      assert.isTrue(Exit.isFailure(first), "the call in flight at the loss fails (retryable)")
      const second = yield* manager.call("remote", "echo", { text: "b" })
      assert.deepStrictEqual(second.content, [{ type: "text", text: "echo: b" }])
      assert.strictEqual((yield* manager.serverHealth("remote")).state, "ready")
      assert.strictEqual(peer.calls("initialize").length, 2)
      assert.deepStrictEqual(seen, [], "no state change: not offline, not starting")
    }).pipe(Effect.scoped))

  it.live("an unreachable url is offline (not degraded), with the connection's reason", () =>
    Effect.gen(function*() {
      const manager = yield* build({
        servers: { down: { url: "http://127.0.0.1:9/mcp" } },
        reconnect: { maxAttempts: 1, initialDelay: "10 millis" }
      })
      const offline = yield* manager.changes.pipe(
        Stream.filter((c) => c.server === "down" && c.to === "offline"),
        Stream.runHead
      )
      assert.isTrue(Option.isSome(offline))
      // The health the change carries, taken at the transition: a read after it races the reconnect (10 ms later,
      // real time), which under load had already moved the server back to starting.
      const health = Option.getOrThrow(offline).health
      assert.strictEqual(health.state, "offline")
      assert.include(health.lastError ?? "", "ECONNREFUSED")
    }).pipe(Effect.scoped))
})
