/**
 * Fault suite, in-memory peer: what the reader does with malformed, partial, duplicated or oversize input.
 *
 * Invariant: bad input is counted and skipped, never kills the reader, never settles the wrong call, and a
 * real answer that follows it still pairs with its call.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Protocol } from "@mcp-fleet/transport"
import { McpClient } from "@mcp-fleet/transport"
import { Clock, Effect, Exit, Fiber } from "effect"
import { awaitMethod, controlledPeer, echoResult } from "../peers.ts"
import { failureOf, framesWith } from "./helpers.ts"

/** A client whose peer answers nothing by itself (the test writes the answers), after initialize. */
const silentClient = (options: { readonly maxMessageBytes?: number } = {}) =>
  Effect.gen(function*() {
    const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
    const client = yield* McpClient.make({ command: "server", requestTimeout: "1 hour", ...options }).pipe(
      Effect.provide(layer)
    )
    yield* client.awaitReady
    return { client, frames, peer: yield* peer }
  })

/** Starts a tools/call and returns its fiber and the id it was sent with. */
const startCall = (
  client: McpClient.McpClient,
  frames: ReadonlyArray<unknown>,
  tool: string
) =>
  Effect.gen(function*() {
    const before = framesWith(frames, "tools/call").length
    const fiber = yield* client.callTool(tool, {}).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
    yield* awaitMethod(frames, "tools/call", before + 1)
    const id = framesWith(frames, "tools/call")[before]!.id as number
    return { fiber, id }
  })

/** The text of a call's first content block, or why the call failed. */
const text = (exit: Exit.Exit<Protocol.CallToolResult, unknown>): unknown =>
  Exit.isSuccess(exit) ? exit.value.content[0]?.text : `failed: ${String(exit.cause)}`

describe("Fault: framing (in-memory peer)", () => {
  it.effect("partial line at EOF: a complete answer without its newline is still delivered", () =>
    Effect.gen(function*() {
      const { client, frames, peer } = yield* silentClient()
      const { fiber, id } = yield* startCall(client, frames, "last")
      yield* peer.sendRaw(JSON.stringify({ jsonrpc: "2.0", id, result: echoResult("no newline") }))
      yield* peer.exit(0)
      const exit = yield* Fiber.join(fiber)
      assert.strictEqual(text(exit), JSON.stringify("no newline"))
      assert.strictEqual(yield* Clock.currentTimeMillis, 0)
    }))

  it.effect("partial line at EOF: a truncated answer is skipped and its call fails at once with ProcessExited", () =>
    Effect.gen(function*() {
      const { client, frames, peer } = yield* silentClient()
      const { fiber, id } = yield* startCall(client, frames, "cut")
      yield* peer.sendRaw(JSON.stringify({ jsonrpc: "2.0", id, result: echoResult("cut short") }).slice(0, 30))
      yield* peer.exit(9)
      const error = failureOf(yield* Fiber.join(fiber))
      assert.strictEqual(error._tag, "ProcessExited")
      if (error._tag === "ProcessExited") assert.strictEqual(error.code, 9)
      assert.strictEqual(client.stats().notJson, 1, "the fragment was read and skipped")
      assert.strictEqual(yield* Clock.currentTimeMillis, 0)
    }))

  it.effect("\\r\\n: answers ending in \\r\\n pair with their calls, even with \\r and \\n in different chunks", () =>
    Effect.gen(function*() {
      const { client, frames, peer } = yield* silentClient()
      const a = yield* startCall(client, frames, "a")
      const b = yield* startCall(client, frames, "b")
      yield* peer.sendRaw(`${JSON.stringify({ jsonrpc: "2.0", id: b.id, result: echoResult("B") })}\r\n`)
      yield* peer.sendRaw(`${JSON.stringify({ jsonrpc: "2.0", id: a.id, result: echoResult("A") })}\r`)
      yield* peer.sendRaw("\n")
      assert.strictEqual(text(yield* Fiber.join(a.fiber)), JSON.stringify("A"))
      assert.strictEqual(text(yield* Fiber.join(b.fiber)), JSON.stringify("B"))
      const stats = client.stats()
      assert.strictEqual(stats.notJson + stats.invalid + stats.invalidUtf8, 0, "nothing was seen as junk")
    }))

  it.effect("duplicate response: the first answer wins, the duplicate is counted and skipped", () =>
    Effect.gen(function*() {
      const { client, frames, peer } = yield* silentClient()
      const { fiber, id } = yield* startCall(client, frames, "once")
      const next = yield* startCall(client, frames, "next")
      yield* peer.sendRaw(
        `${JSON.stringify({ jsonrpc: "2.0", id, result: echoResult("first") })}\n` +
          `${JSON.stringify({ jsonrpc: "2.0", id, result: echoResult("second") })}\n` +
          `${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: "third" } })}\n`
      )
      assert.strictEqual(text(yield* Fiber.join(fiber)), JSON.stringify("first"))
      yield* peer.read
      assert.strictEqual(client.stats().unknownId, 2)
      assert.isUndefined(next.fiber.pollUnsafe(), "the duplicates did not settle another call")
      yield* peer.send({ jsonrpc: "2.0", id: next.id, result: echoResult("next") })
      assert.strictEqual(text(yield* Fiber.join(next.fiber)), JSON.stringify("next"))
      assert.isTrue(client.isAlive())
    }))

  it.effect("error response with a null id (a server's parse error) fails no call; the call still pairs", () =>
    Effect.gen(function*() {
      const { client, frames, peer } = yield* silentClient()
      const { fiber, id } = yield* startCall(client, frames, "x")
      yield* peer.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
      yield* peer.send({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" } })
      yield* peer.read
      assert.strictEqual(client.stats().invalid, 2)
      assert.isUndefined(fiber.pollUnsafe(), "no pending call was failed by an id-less error")
      yield* peer.send({ jsonrpc: "2.0", id, result: echoResult("ok") })
      assert.strictEqual(text(yield* Fiber.join(fiber)), JSON.stringify("ok"))
    }))

  it.effect("a response with both result and error for an unknown id fails nothing and is counted", () =>
    Effect.gen(function*() {
      const { client, frames, peer } = yield* silentClient()
      const { fiber, id } = yield* startCall(client, frames, "x")
      yield* peer.send({ jsonrpc: "2.0", id: id + 1000, result: {}, error: { code: 1, message: "both" } })
      yield* peer.read
      assert.strictEqual(client.stats().invalid, 1)
      assert.isUndefined(fiber.pollUnsafe())
      yield* peer.send({ jsonrpc: "2.0", id, result: echoResult("ok") })
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(fiber)))
    }))

  it.effect("an oversize line without an id (a huge notification) fails no call; the connection lives on", () =>
    Effect.gen(function*() {
      const { client, frames, peer } = yield* silentClient({ maxMessageBytes: 1024 })
      const { fiber, id } = yield* startCall(client, frames, "x")
      const huge = JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "y".repeat(10_000) }
      })
      for (let i = 0; i < huge.length; i += 333) yield* peer.sendRaw(huge.slice(i, i + 333))
      yield* peer.sendRaw("\n")
      yield* peer.read
      assert.strictEqual(client.stats().oversize, 1)
      assert.isUndefined(fiber.pollUnsafe(), "the oversize notification settled nothing")
      assert.strictEqual(client.stats().notifications, 0, "and was not delivered")
      yield* peer.send({ jsonrpc: "2.0", id, result: echoResult("ok") })
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(fiber)))
    }))

  it.effect("an oversize answer cut off by EOF fails its call at once with MessageTooLarge", () =>
    Effect.gen(function*() {
      const { client, frames, peer } = yield* silentClient({ maxMessageBytes: 1024 })
      const { fiber, id } = yield* startCall(client, frames, "x")
      yield* peer.sendRaw(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${"z".repeat(4096)}`)
      yield* peer.exit(0)
      const error = failureOf(yield* Fiber.join(fiber))
      assert.strictEqual(error._tag, "MessageTooLarge")
      assert.strictEqual(client.stats().oversize, 1)
      assert.strictEqual(yield* Clock.currentTimeMillis, 0)
    }))
})
