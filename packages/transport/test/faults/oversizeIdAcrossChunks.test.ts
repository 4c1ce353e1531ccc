/**
 * Regression (fixed): whether an oversize answer fails its call at once depends on how stdout was chunked.
 *
 * Expected: a line over `maxMessageBytes` that carries the id of a pending call fails that call at once with
 * `MessageTooLarge`, whatever the chunk boundaries. Actual: the framer's `head` excerpt is cut from the first
 * buffered part only and its `tail` excerpt from the bytes after the overflow only
 * (`src/wire/Stdio/LineFramer.ts`, `beginOversize`), so when a line starts at the end of one read, or ends a
 * few bytes into the read that overflowed, `sniffId` finds no id and the call waits for its full timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Fiber } from "effect"
import fc from "fast-check"
import { sniffId } from "../../src/internal/JsonRpc.ts"
import { LineFramer } from "../../src/wire/Stdio/LineFramer.ts"
import { awaitMethod, controlledPeer } from "../peers.ts"
import { failureOf, framesWith } from "./helpers.ts"

const setup = Effect.gen(function*() {
  const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
  const client = yield* McpClient.make({ command: "server", maxMessageBytes: 1024, requestTimeout: "1 hour" }).pipe(
    Effect.provide(layer)
  )
  yield* client.awaitReady
  const call = yield* client.callTool("x").pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
  yield* awaitMethod(frames, "tools/call", 1)
  return { client, call, id: framesWith(frames, "tools/call")[0]!.id as number, peer: yield* peer }
})

describe("regression: an oversize id across chunk boundaries", () => {
  it.effect("id first (our order), the line's first 10 bytes in their own read: fails at once", () =>
    Effect.gen(function*() {
      const { call, client, id, peer } = yield* setup
      const big = `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${"x".repeat(5000)}"}]}}\n`
      yield* peer.sendRaw(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message" })}\n${big.slice(0, 10)}`)
      yield* peer.sendRaw(big.slice(10))
      yield* peer.read
      assert.strictEqual(client.stats().oversize, 1)
      assert.isDefined(call.pollUnsafe(), "the call is still waiting for its timeout")
      assert.strictEqual(failureOf(yield* Fiber.join(call))._tag, "MessageTooLarge")
    }))

  it.effect("id last (the SDK's order), only its last 2 bytes in the read that overflowed: fails at once", () =>
    Effect.gen(function*() {
      const { call, client, id, peer } = yield* setup
      const frame = (pad: number) =>
        `{"result":{"content":[{"type":"text","text":"${"x".repeat(pad)}"}]},"jsonrpc":"2.0","id":${id}}`
      // 1025 bytes: the first read (1023 bytes) fits under the 1024-byte cap; the second ("2}\n") overflows it.
      const line = frame(1025 - frame(0).length)
      yield* peer.sendRaw(line.slice(0, line.length - 2))
      yield* peer.sendRaw(`${line.slice(line.length - 2)}\n`)
      yield* peer.read
      assert.strictEqual(client.stats().oversize, 1)
      assert.isDefined(call.pollUnsafe(), "the call is still waiting for its timeout")
      assert.strictEqual(failureOf(yield* Fiber.join(call))._tag, "MessageTooLarge")
    }))

  it("property: the id read from an oversize line is the same for any chunking", () => {
    const sniffed = (maxBytes: number, chunks: ReadonlyArray<Uint8Array>) => {
      const ids: Array<unknown> = []
      const framer = new LineFramer(maxBytes, {
        line: () => {},
        invalidUtf8: () => {},
        oversize: (_bytes, head, tail) => ids.push(sniffId(head, tail) ?? null)
      })
      for (const chunk of chunks) framer.push(chunk)
      framer.end()
      return ids
    }
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.boolean(),
        fc.integer({ min: 600, max: 3_000 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (id, idFirst, padding, offsets) => {
          const body = `"result":{"content":[{"type":"text","text":"${"p".repeat(padding)}"}]}`
          const line = idFirst ? `{"jsonrpc":"2.0","id":${id},${body}}\n` : `{${body},"jsonrpc":"2.0","id":${id}}\n`
          const bytes = new TextEncoder().encode(line)
          const points = [...new Set(offsets.map((o) => o % bytes.length))].sort((a, b) => a - b)
          const chunks = [...points, bytes.length].map((end, i) => bytes.slice(i === 0 ? 0 : points[i - 1]!, end))
          assert.deepStrictEqual(sniffed(512, chunks), [id])
        }
      )
    )
  })
})
