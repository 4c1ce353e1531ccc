/**
 * Fault suite: error text from servers is bounded (issue 11, item 6). Every message derived from server text is
 * one line of at most ~500 characters of that text, ending in "… (N more characters)"; the full text stays in a
 * field for callers who want it.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient, McpError } from "@mcp-fleet/transport"
import { Effect, Fiber } from "effect"
import { awaitMethod, controlledPeer } from "../peers.ts"
import { failureOf, framesWith } from "./helpers.ts"

/** 200,000 characters over 3 lines. */
const huge = `${"a".repeat(100_000)}\n${"b".repeat(99_998)}\r\nc`

const assertBounded = (message: string) => {
  assert.notMatch(message, /[\r\n]/, "one line")
  assert.isBelow(message.length, 700, "bounded")
  assert.match(message, /… \(\d+ more characters\)/)
}

describe("Fault: server text in error messages is bounded", () => {
  it.effect("a 200,000-character error.message with newlines: a one-line message; remoteMessage keeps it all", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server", name: "chatty" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const call = yield* client.callTool("x").pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* awaitMethod(frames, "tools/call", 1)
      const id = framesWith(frames, "tools/call")[0]!.id
      yield* (yield* peer).send({ jsonrpc: "2.0", id, error: { code: -32000, message: huge } })
      const error = failureOf(yield* Fiber.join(call))
      assert.strictEqual(error._tag, "RemoteError")
      if (error._tag !== "RemoteError") return
      assertBounded(error.message)
      assert.isTrue(error.message.startsWith("MCP server \"chatty\" answered tools/call with error -32000: aaaa"))
      assert.isTrue(error.message.endsWith("… (199503 more characters)"))
      assert.strictEqual(error.remoteMessage, huge, "the full text is kept")
    }))

  it("ProtocolError, ProcessExited and UnsupportedProtocolVersion bound the server text they carry", () => {
    assertBounded(new McpError.ProtocolError({ server: "s", method: "tools/call", detail: huge }).message)
    assertBounded(
      new McpError.ProcessExited({ server: "s", code: 1, signal: null, stderrTail: ["ok", "x".repeat(600)] }).message
    )
    const version = new McpError.UnsupportedProtocolVersion({ server: "s", answered: huge, supported: ["2025-11-25"] })
    assert.notMatch(version.message, /[\r\n]/)
    assert.isBelow(version.message.length, 300)
    const rejected = new McpError.UnsupportedProtocolVersion({
      server: "s",
      requested: "2025-11-25",
      serverSupported: [huge],
      supported: ["2025-11-25"]
    })
    assertBounded(rejected.message.replace(/; this client supports .*$/, ""))
    assert.isBelow(rejected.message.length, 700)
  })

  it("short server text is kept as it is, newlines escaped", () => {
    const error = new McpError.RemoteError({ server: "s", method: "m", code: 1, remoteMessage: "two\nlines" })
    assert.strictEqual(error.message, "MCP server \"s\" answered m with error 1: two\\nlines")
  })
})
