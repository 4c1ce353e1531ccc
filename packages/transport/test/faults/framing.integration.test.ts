/**
 * Fault suite, real processes: malformed and partial stdout input over a real pipe.
 *
 * The fake server's `emit` tool writes raw lines/bytes to stdout just before its own answer, so once the
 * `emit` call has returned, the reader has already seen (and counted) what was emitted.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Option } from "effect"
import { exists } from "../support.ts"
import { base64, fake } from "./helpers.ts"

/** A plain-JS server that answers initialize, then answers a tools/call with a last line that has no newline. */
const EOF_SERVER = `
const rl = require("node:readline").createInterface({ input: process.stdin })
const send = (msg, end) => process.stdout.write(JSON.stringify(msg) + end)
rl.on("line", (line) => {
  const msg = JSON.parse(line)
  if (msg.method === "initialize") {
    send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "eof", version: "1" } } }, "\\n")
  } else if (msg.method === "tools/call") {
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "last words" }] } }), () => process.exit(0))
  }
})
`

describe("Fault: framing (real fake server)", () => {
  it.live("invalid UTF-8 lines on a real pipe are counted and skipped; valid multi-byte text still flows", () =>
    Effect.gen(function*() {
      const client = yield* fake({})
      yield* client.awaitReady
      const invalid = new Uint8Array([
        ...[0xc3, 0x28, 0x0a], // a broken two-byte sequence
        ...[0xed, 0xa0, 0x80, 0x0a], // an encoded surrogate
        ...[0xc0, 0xaf, 0x0a], // an overlong "/"
        ...[0x7b, 0xff, 0x7d, 0x0a] // a 0xff byte inside braces
      ])
      yield* client.callTool("emit", {
        lines: [JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "é 😀 \u2028 ✓" } })],
        base64: base64(invalid)
      })
      const stats = client.stats()
      assert.strictEqual(stats.invalidUtf8, 4)
      assert.strictEqual(stats.notifications, 1, "the valid multi-byte line was delivered")
      assert.strictEqual(stats.notJson, 0)
      assert.isTrue(client.isAlive())
      const result = yield* client.callTool("echo", { after: "ü" })
      assert.deepStrictEqual(result.structuredContent, { after: "ü" })
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("\\r\\n line endings on a real pipe are accepted", () =>
    Effect.gen(function*() {
      const client = yield* fake({})
      yield* client.awaitReady
      yield* client.callTool("emit", {
        lines: [
          `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "crlf" } })}\r`,
          `${JSON.stringify({ jsonrpc: "2.0", id: 424242, result: {} })}\r`
        ]
      })
      const stats = client.stats()
      assert.strictEqual(stats.notifications, 1)
      assert.strictEqual(stats.unknownId, 1)
      assert.strictEqual(stats.notJson + stats.invalid + stats.invalidUtf8, 0)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("responses to unknown ids on a real pipe are counted and skipped; the client stays usable", () =>
    Effect.gen(function*() {
      const client = yield* fake({})
      yield* client.awaitReady
      yield* client.callTool("emit", {
        lines: [
          JSON.stringify({ jsonrpc: "2.0", id: 987654, result: { content: [] } }),
          JSON.stringify({ jsonrpc: "2.0", id: "not-ours", result: {} }),
          JSON.stringify({ jsonrpc: "2.0", id: 987655, error: { code: -32603, message: "stray" } })
        ]
      })
      assert.strictEqual(client.stats().unknownId, 3)
      assert.strictEqual(client.stats().pending, 0)
      yield* client.ping()
      assert.isTrue(client.isAlive())
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("partial line at EOF from a real process: the last answer, without its newline, is delivered", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.make({ command: process.execPath, args: ["-e", EOF_SERVER], name: "eof" })
      yield* client.awaitReady
      const result = yield* client.callTool("any", {})
      assert.strictEqual(result.content[0]?.text, "last words")
      yield* client.awaitExit
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: 0, signal: null })
      assert.isFalse(exists(client.pid))
    }).pipe(Effect.provide(NodeServices.layer)))
})
