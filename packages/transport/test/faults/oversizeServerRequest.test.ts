/**
 * Fault suite, in-memory peer: a server→client request over `maxMessageBytes` (issue 11, item 4).
 *
 * An oversize line settles a pending call only when it is a response (a top-level `result` or `error`, no
 * `method`). An oversize request whose id equals a pending call's id leaves that call alone, and gets a JSON-RPC
 * error reply (-32600) with its own id.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Exit, Fiber } from "effect"
import { sniffOversize } from "../../src/internal/JsonRpc.ts"
import { awaitFrames, awaitMethod, controlledPeer, echoResult } from "../peers.ts"
import { framesWith, responses } from "./helpers.ts"

const LIMIT = 1024
const padding = "x".repeat(4 * LIMIT)

const shapes: ReadonlyArray<readonly [string, (id: number) => string]> = [
  [
    "id and method first",
    (id) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "sampling/createMessage",
        params: { messages: [{ role: "user", content: { type: "text", text: padding } }], maxTokens: 1 }
      })
  ],
  [
    "method first, id last (the TypeScript SDK's order)",
    (id) =>
      JSON.stringify({
        method: "sampling/createMessage",
        params: { messages: [{ role: "user", content: { type: "text", text: padding } }], maxTokens: 1 },
        jsonrpc: "2.0",
        id
      })
  ],
  [
    "huge params first, method and id last",
    (id) => JSON.stringify({ params: { text: padding }, method: "sampling/createMessage", jsonrpc: "2.0", id })
  ]
]

describe("Fault: an oversize server request (in-memory peer)", () => {
  for (const [what, frame] of shapes) {
    it.effect(`${what}: the pending call with the same id keeps waiting and gets its answer; the request gets -32600`, () =>
      Effect.gen(function*() {
        const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
        const client = yield* McpClient.make({ command: "server", maxMessageBytes: LIMIT }).pipe(
          Effect.provide(layer)
        )
        yield* client.awaitReady
        const call = yield* client.callTool("x").pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
        yield* awaitMethod(frames, "tools/call", 1)
        const id = framesWith(frames, "tools/call")[0]!.id as number
        const p = yield* peer
        yield* p.sendRaw(`${frame(id)}\n`)
        yield* awaitFrames(frames, () => responses(frames).length === 1)
        assert.strictEqual(client.stats().oversize, 1)
        const reply = responses(frames)[0]!
        assert.strictEqual(reply.id, id, "the reply carries the request's own id")
        const error = reply.error as { code: number; message: string }
        assert.strictEqual(error.code, -32600)
        assert.match(error.message, /^Request too large: at least \d+ bytes, over this client's 1024-byte limit$/)
        assert.isUndefined(call.pollUnsafe(), "the client's own call is still waiting")
        yield* p.send({ jsonrpc: "2.0", id, result: echoResult("mine") })
        const exit = yield* Fiber.join(call)
        assert.isTrue(Exit.isSuccess(exit), "the call's real answer was delivered")
        if (Exit.isSuccess(exit)) assert.strictEqual(exit.value.content[0]?.text, JSON.stringify("mine"))
      }))
  }

  it("sniffOversize tells responses, requests and notifications apart from the excerpts only", () => {
    const cut = (text: string) => [text.slice(0, 512), text.slice(-512)] as const
    const kind = (value: unknown) => sniffOversize(...cut(JSON.stringify(value)))
    const big = { text: padding }
    assert.deepStrictEqual(kind({ jsonrpc: "2.0", id: 3, result: big }), { kind: "response", id: 3 })
    assert.deepStrictEqual(kind({ result: big, jsonrpc: "2.0", id: 3 }), { kind: "response", id: 3 })
    assert.deepStrictEqual(kind({ jsonrpc: "2.0", id: "a", error: { code: 1, message: padding } }), {
      kind: "response",
      id: "a"
    })
    assert.deepStrictEqual(kind({ jsonrpc: "2.0", id: 3, method: "m", params: big }), { kind: "request", id: 3 })
    assert.deepStrictEqual(kind({ jsonrpc: "2.0", method: "m", params: big }), {
      kind: "notification",
      id: undefined
    })
    // A nested "method" or "id" at the end of a response's result is not the message's own.
    assert.deepStrictEqual(kind({ jsonrpc: "2.0", id: 3, result: { ...big, method: "m", id: 9 } }), {
      kind: "response",
      id: 3
    })
    assert.deepStrictEqual(kind({ jsonrpc: "2.0", id: 3, params: big }), { kind: "unknown", id: 3 })
  })
})
