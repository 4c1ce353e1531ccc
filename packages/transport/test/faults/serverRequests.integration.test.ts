/**
 * Fault suite, real processes: the fake server's `server_request` tool sends a request to the client and
 * answers with the client's reply, so the reply is checked as the server saw it on the wire.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Predicate } from "effect"
import { fake } from "./helpers.ts"

describe("Fault: server→client requests (real fake server)", () => {
  for (const method of ["roots/list", "elicitation/create", "sampling/createMessage", "completion/complete"]) {
    it.live(`${method} is answered with -32601 Method not found`, () =>
      Effect.gen(function*() {
        const client = yield* fake({})
        yield* client.awaitReady
        const reply = yield* client.callTool("server_request", { method, params: { probe: true } })
        assert.deepStrictEqual(reply.structuredContent, {
          id: "server-1",
          error: { code: -32601, message: `Method not found: ${method}` }
        })
        assert.isTrue(client.isAlive())
      }).pipe(Effect.provide(NodeServices.layer)))
  }

  it.live("server pings interleaved with 32 concurrent calls are each answered {} and the calls still pair", () =>
    Effect.gen(function*() {
      const client = yield* fake({})
      yield* client.awaitReady
      const results = yield* Effect.forEach(
        Array.from({ length: 32 }, (_, i) => i),
        (i) =>
          client.callTool(i % 2 === 0 ? "server_request" : "echo", i % 2 === 0 ? { method: "ping" } : { i }).pipe(
            Effect.map((r) => Predicate.isObject(r.structuredContent) ? r.structuredContent : undefined)
          ),
        { concurrency: "unbounded" }
      )
      const pings = results.filter((_, i) => i % 2 === 0)
      for (const ping of pings) assert.deepStrictEqual(ping?.result, {}, "each server ping was answered {}")
      assert.strictEqual(new Set(pings.map((ping) => ping?.id)).size, 16, "each with its own id")
      results.forEach((content, i) => {
        if (i % 2 === 1) assert.deepStrictEqual(content, { i }, "each call paired with its own answer")
      })
      assert.strictEqual(client.stats().serverRequests, 16)
    }).pipe(Effect.provide(NodeServices.layer)))
})
