/**
 * Fault suite, in-memory peer: requests the server sends to the client.
 *
 * The client declares no capabilities, so per the MCP specification it answers `ping` with `{}` and every
 * other method (sampling, roots, elicitation, anything unknown) with JSON-RPC error -32601 — at any time,
 * even before `initialize` has been answered — and never lets them disturb its own calls.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Exit, Fiber } from "effect"
import { awaitFrames, awaitMethod, controlledPeer, echoResult } from "../peers.ts"
import { framesWith, responses } from "./helpers.ts"

const undeclared = [
  "sampling/createMessage",
  "roots/list",
  "elicitation/create",
  "completion/complete",
  "tasks/get",
  "x-vendor/anything"
]

describe("Fault: server→client requests (in-memory peer)", () => {
  it.effect("every kind is answered per spec: ping → {}, undeclared methods → -32601, ids echoed exactly", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({})
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const p = yield* peer
      yield* p.send({ jsonrpc: "2.0", id: 0, method: "ping" })
      yield* p.send({ jsonrpc: "2.0", id: -7, method: "ping", params: {} })
      yield* p.send({ jsonrpc: "2.0", id: "p-1", method: "ping", params: { _meta: { x: 1 } } })
      for (const [i, method] of undeclared.entries()) {
        yield* p.send({ jsonrpc: "2.0", id: `u-${i}`, method, params: { anything: i } })
      }
      const expected = 3 + undeclared.length
      yield* awaitFrames(frames, () => responses(frames).length === expected)
      assert.deepStrictEqual(responses(frames).slice(0, 3), [
        { jsonrpc: "2.0", id: 0, result: {} },
        { jsonrpc: "2.0", id: -7, result: {} },
        { jsonrpc: "2.0", id: "p-1", result: {} }
      ])
      assert.deepStrictEqual(
        responses(frames).slice(3),
        undeclared.map((method, i) => ({
          jsonrpc: "2.0",
          id: `u-${i}`,
          error: { code: -32601, message: `Method not found: ${method}` }
        }))
      )
      assert.strictEqual(client.stats().serverRequests, expected)
      assert.isTrue(client.isAlive())
    }))

  it.effect("a server ping that arrives before initialize is answered still gets {}", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({ initialize: "never" })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      const p = yield* peer
      yield* p.send({ jsonrpc: "2.0", id: "early", method: "ping" })
      yield* awaitFrames(frames, () => responses(frames).length === 1)
      assert.deepStrictEqual(responses(frames)[0], { jsonrpc: "2.0", id: "early", result: {} })
      assert.isFalse(client.isReady())
    }))

  it.effect("server requests whose ids equal a pending call's id never settle that call", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const call = yield* client.callTool("x", {}).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* awaitMethod(frames, "tools/call", 1)
      const id = framesWith(frames, "tools/call")[0]!.id
      const p = yield* peer
      // Ids are per sender: the server's request id 2 is not the client's request id 2.
      yield* p.send({ jsonrpc: "2.0", id, method: "ping" })
      yield* p.send({ jsonrpc: "2.0", id, method: "sampling/createMessage", params: {} })
      yield* awaitFrames(frames, () => responses(frames).length === 2)
      assert.isUndefined(call.pollUnsafe(), "the client's own call is still waiting")
      yield* p.send({ jsonrpc: "2.0", id, result: echoResult("mine") })
      const exit = yield* Fiber.join(call)
      assert.isTrue(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) assert.strictEqual(exit.value.content[0]?.text, JSON.stringify("mine"))
    }))
})
