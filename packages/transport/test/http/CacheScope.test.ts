/**
 * Issue 24, "protocol details": `cacheScope` on list results. The spec (`server/utilities/caching`): a `private`
 * result "MAY be reused for the same authorization context", and caches "MUST NOT be shared across authorization
 * contexts (e.g. a different access token requires a different cache)". The client's cache belongs to one session;
 * its authorization context changes when the credentials `McpAuth` would send change. Before, both scopes were
 * served whatever the token. Over HTTP, with an `McpAuth` whose token the test replaces, under `TestClock`.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as McpAuth from "@mcp-fleet/auth/McpAuth"
import { HttpPeer } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Redacted } from "effect"

/** An `McpAuth` that sends `Bearer <token()>` and never needs to authorize. */
const bearer = (token: () => string): McpAuth.McpAuth["Service"] => ({
  headers: () => Effect.sync(() => ({ authorization: Redacted.make(`Bearer ${token()}`) })),
  onChallenge: () => Effect.void,
  onSuccess: () => Effect.void
})

describe("cacheScope (issue 24)", () => {
  it.effect("a private list is not served under another access token; a public one is", () =>
    Effect.gen(function*() {
      const peer = yield* HttpPeer.serve((request, res) => {
        const message = request.message
        if (message === undefined) return HttpPeer.json(res, {}, 405)
        if (message.id === undefined) return HttpPeer.json(res, {}, 202)
        const who = String(request.headers["authorization"])
        switch (message.method) {
          case "initialize":
            return HttpPeer.json(
              res,
              HttpPeer.result(message.id, {
                protocolVersion: "2025-11-25",
                capabilities: { tools: {}, prompts: {} },
                serverInfo: { name: "peer", version: "1" }
              })
            )
          case "tools/list":
            return HttpPeer.json(
              res,
              HttpPeer.result(message.id, {
                tools: [{ name: `for ${who}`, inputSchema: { type: "object" } }],
                ttlMs: 60_000,
                cacheScope: "private"
              })
            )
          case "prompts/list":
            return HttpPeer.json(
              res,
              HttpPeer.result(message.id, { prompts: [{ name: "everyone's" }], ttlMs: 60_000, cacheScope: "public" })
            )
          default:
            return HttpPeer.json(res, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "nope" } })
        }
      })
      let token = "alice-token"
      const client = yield* McpClient.make({ url: peer.url }).pipe(
        Effect.provideService(McpAuth.McpAuth, bearer(() => token))
      )
      yield* client.awaitReady
      const tools = Effect.map(client.listTools(), (list) => list.tools.map((t) => t.name))
      const prompts = Effect.map(client.listPrompts(), (list) => list.prompts.map((p) => p.name))

      assert.deepStrictEqual(yield* tools, ["for Bearer alice-token"])
      assert.deepStrictEqual(yield* tools, ["for Bearer alice-token"])
      assert.deepStrictEqual(yield* prompts, ["everyone's"])
      assert.deepStrictEqual(yield* prompts, ["everyone's"])
      assert.lengthOf(peer.calls("tools/list"), 1, "the same token: the private list from the cache")
      assert.lengthOf(peer.calls("prompts/list"), 1)

      // Another access token, and no request made with it yet.
      token = "bob-token"
      assert.deepStrictEqual(yield* tools, ["for Bearer bob-token"])
      assert.lengthOf(peer.calls("tools/list"), 2, "another token: the private list is asked again")
      assert.deepStrictEqual(yield* prompts, ["everyone's"])
      assert.lengthOf(peer.calls("prompts/list"), 1, "a public list is served whatever the token")
      // Bob's private list is kept for Bob.
      assert.deepStrictEqual(yield* tools, ["for Bearer bob-token"])
      assert.lengthOf(peer.calls("tools/list"), 2)
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))

  it.effect("a DPoP proof, made afresh for every request, is not a new authorization context (issue 28)", () =>
    Effect.gen(function*() {
      const peer = yield* HttpPeer.serve((request, res) => {
        const message = request.message
        if (message === undefined) return HttpPeer.json(res, {}, 405)
        if (message.id === undefined) return HttpPeer.json(res, {}, 202)
        if (message.method === "initialize") {
          return HttpPeer.json(
            res,
            HttpPeer.result(message.id, {
              protocolVersion: "2025-11-25",
              capabilities: { tools: {} },
              serverInfo: { name: "peer", version: "1" }
            })
          )
        }
        return HttpPeer.json(
          res,
          HttpPeer.result(message.id, {
            tools: [{ name: "t", inputSchema: { type: "object" } }],
            ttlMs: 60_000,
            cacheScope: "private"
          })
        )
      })
      let proofs = 0
      const dpop: McpAuth.McpAuth["Service"] = {
        headers: () =>
          Effect.sync(() => ({
            authorization: Redacted.make("DPoP the-token"),
            dpop: Redacted.make(`proof-${++proofs}`)
          })),
        onChallenge: () => Effect.void,
        onSuccess: () => Effect.void
      }
      const client = yield* McpClient.make({ url: peer.url }).pipe(Effect.provideService(McpAuth.McpAuth, dpop))
      yield* client.awaitReady
      yield* client.listTools()
      yield* client.listTools()
      yield* client.listTools()
      assert.isAbove(proofs, 2)
      assert.lengthOf(peer.calls("tools/list"), 1, "the same token, another proof: the list from the cache")
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))
})
