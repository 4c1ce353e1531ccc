/**
 * Issue 24, item 9, through the manager: a remote server whose error bodies echo the `Authorization` header, with
 * the token across the 160-character cut of the error's excerpt. Before the fix the excerpt was cut before it was
 * redacted, and up to 23 of the token's 24 characters showed in `manager.call` errors, in `health().lastError`
 * and in the status lines. Over real HTTP on 127.0.0.1.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import { HttpPeer } from "@mcp-fleet/testing"
import { Context, Effect, Layer, Redacted } from "effect"

const TOKEN = "tok_Z9qX3vK7mW2pL5nR8sT4"

/** The longest piece of the token that `text` shows. */
const shown = (text: string): number => {
  let best = 0
  for (let start = 0; start < TOKEN.length; start++) {
    for (let end = TOKEN.length; end > start + best; end--) {
      if (text.includes(TOKEN.slice(start, end))) best = end - start
    }
  }
  return best
}

/** A 500 body whose token starts `start` characters in (the 160-character cut falls inside it), echoed. */
const echoBody = (authorization: string, start: number) =>
  `${"x".repeat(start - "Authorization: Bearer ".length)}Authorization: ${authorization} ${"y".repeat(200)}`

describe("McpManager: a remote server echoing the Authorization header across an excerpt's cut", () => {
  it.live("call errors, health().lastError and the status lines show no piece of the token", () =>
    Effect.gen(function*() {
      const good = HttpPeer.mcpPeer({ reply: "json", tools: ["echo"] })
      // Calls fail with the token at 143 (17 characters of it before the cut); tools/list and the rest work.
      const calls = yield* HttpPeer.serve((request, res) => {
        if (request.message?.method !== "tools/call") return good.handler(request, res)
        res.writeHead(500, { "content-type": "text/plain" }).end(
          echoBody(String(request.headers["authorization"]), 143)
        )
      })
      // Every request fails, initialize first: the server never starts, and its last error is that 500.
      const broken = yield* HttpPeer.serve((request, res) => {
        res.writeHead(500, { "content-type": "text/plain" }).end(
          echoBody(String(request.headers["authorization"]), 150)
        )
      })
      const headers = { authorization: Redacted.make(`Bearer ${TOKEN}`) }
      const layer = McpManager.layer({
        servers: { calls: { url: calls.url, headers }, broken: { url: broken.url, headers } },
        reconnect: { maxAttempts: 1, initialDelay: "10 millis" }
      }).pipe(Layer.provide([NodeServices.layer, NodeHttpClient.layerUndici]))
      const manager = Context.get(yield* Layer.build(layer), McpManager.McpManager)
      yield* manager.waitForReady("calls")
      const failure = yield* Effect.flip(manager.call("calls", "echo", { text: "x" }))
      assert.strictEqual(failure._tag, "HttpStatusError")
      assert.include(failure.message, "HTTP 500")
      yield* Effect.flip(manager.waitForReady("broken"))
      const health = manager.health()
      const lastError = health.find((h) => h.name === "broken")?.lastError ?? ""
      assert.include(lastError, "HTTP 500", "broken's last error is the echoing 500")
      const texts = {
        "the call's message": failure.message,
        "the call's error": JSON.stringify(failure),
        "broken's lastError": lastError,
        "the health": JSON.stringify(health),
        "the status lines": manager.statusLines()
      }
      for (const [where, text] of Object.entries(texts)) {
        assert.isBelow(shown(text), 8, `${where} shows ${shown(text)} of the token's 24 characters: ${text}`)
      }
      assert.strictEqual(calls.requests[0]!.headers["authorization"], `Bearer ${TOKEN}`, "the header was sent")
    }).pipe(Effect.scoped))
})
