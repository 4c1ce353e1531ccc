/**
 * `extensions`, the typed option: declared in `initialize`'s `capabilities.extensions` (legacy era) and in every
 * modern request's `_meta` client capabilities, beside raw `capabilities` (a setting given in `extensions` wins) and
 * the handlers' own capabilities.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient, McpClientOptions } from "@mcp-fleet/transport"
import { Effect } from "effect"
import { framesWith } from "../faults/helpers.ts"
import { serve } from "../http/HttpPeer.ts"
import { mcpPeer } from "../http/mcpPeer.ts"
import { controlledPeer, echoResult } from "../peers.ts"
import type { Message } from "../peers.ts"

const field = (u: unknown, key: string): unknown =>
  typeof u === "object" && u !== null && key in u ? Reflect.get(u, key) : undefined

const skills = { "io.modelcontextprotocol/skills": {} }

describe("the extensions option", () => {
  it.effect("legacy era: initialize declares them, merged with raw capabilities and the handlers' own", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({})
      const client = yield* McpClient.make({
        command: "server",
        capabilities: { experimental: { x: {} }, extensions: { "com.example/a": { v: 1 }, "com.example/b": {} } },
        extensions: { ...skills, "com.example/a": { v: 2 } },
        handlers: { sampling: { createMessage: () => Effect.die("unused") } }
      }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const [initialize] = framesWith(frames, "initialize")
      assert.deepStrictEqual(field(initialize?.["params"], "capabilities"), {
        experimental: { x: {} },
        extensions: { "com.example/a": { v: 2 }, "com.example/b": {}, ...skills },
        sampling: {}
      })
    }))

  it.effect("modern era: every request's _meta carries them in the client capabilities", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({
        discover: "script",
        onRequest: (msg: Message) =>
          Effect.succeed(
            msg.method === "server/discover"
              ? { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} } }
              : msg.method === "tools/call"
              ? { resultType: "complete", ...echoResult("ok") }
              : undefined
          )
      })
      const client = yield* McpClient.make({ command: "server", extensions: skills }).pipe(Effect.provide(layer))
      const session = yield* client.awaitReady
      assert.strictEqual(session.era, "modern")
      yield* client.callTool("echo", {})
      const [call] = framesWith(frames, "tools/call")
      const meta = field(call?.["params"], "_meta")
      // Beside the tasks extension, which the client declares on every modern request (`ModernTasks.declare`).
      assert.deepStrictEqual(field(meta, "io.modelcontextprotocol/clientCapabilities"), {
        extensions: { ...skills, "io.modelcontextprotocol/tasks": {} }
      })
    }))

  it.live("over HTTP: initialize declares them", () =>
    Effect.gen(function*() {
      const peer = yield* serve(mcpPeer().handler)
      const client = yield* McpClient.make({ url: peer.url, transport: "http", protocol: "legacy", extensions: skills })
      yield* client.awaitReady
      const [initialize] = peer.calls("initialize")
      assert.deepStrictEqual(field(initialize?.message?.params, "capabilities"), { extensions: skills })
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))

  it("declared: none given leaves capabilities as they are", () => {
    const given = { roots: {} }
    assert.strictEqual(McpClientOptions.declared(given, undefined), given)
    assert.strictEqual(McpClientOptions.declared(given, {}), given)
    assert.deepStrictEqual(McpClientOptions.declared(undefined, skills), { extensions: skills })
  })
})
