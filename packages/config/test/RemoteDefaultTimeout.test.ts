/**
 * The request timeout default has one source, the transport (issue 24, "tests that did not notice"): a remote
 * (`url`) entry without `requestTimeoutMs` or `timeout` is read without one, as a stdio entry is, so that a default
 * of the config's own (a literal `30_000` on the remote path) goes red here.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as McpConfig from "../src/McpConfig.ts"

const text = `{
  "mcpServers": {
    "plain": { "url": "https://mcp.example.com/mcp" },
    "sse": { "type": "sse", "url": "https://mcp.example.com/sse" },
    "given": { "url": "https://mcp.example.com/mcp", "requestTimeoutMs": 1234 },
    "seconds": { "type": "http", "url": "https://mcp.example.com/mcp", "timeout": 7 }
  }
}`

describe("a remote entry's request timeout", () => {
  it.effect("absent stays absent (the transport's default); a given one is kept", () =>
    Effect.gen(function*() {
      const config = yield* McpConfig.parse(text, { path: "/tmp/mcp.json", env: {} })
      const byName = (name: string) => config.remote.find((entry) => entry.name === name)!
      assert.deepStrictEqual(config.remote.map((entry) => entry.name).sort(), ["given", "plain", "seconds", "sse"])
      assert.isFalse("requestTimeoutMs" in byName("plain"), "absent stays absent")
      assert.isFalse("requestTimeoutMs" in byName("sse"), "absent stays absent over legacy SSE too")
      assert.strictEqual(byName("given").requestTimeoutMs, 1234)
      assert.strictEqual(byName("seconds").requestTimeoutMs, 7_000)
    }))
})
