import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { AuthRoutes, type McpAuth } from "../src/index.ts"

/** A service that answers with its own name and records what it was asked. */
const named = (name: string, calls: Array<string>): McpAuth.Service => ({
  headers: (server, request) =>
    Effect.sync(() => {
      calls.push(`${name} headers ${server} ${request?.method ?? "-"}`)
      return { authorization: Redacted.make(name) }
    }),
  onChallenge: (server, challenge) =>
    Effect.sync(() => {
      calls.push(`${name} challenge ${server} ${challenge.status} ${challenge.dpopNonce ?? "-"}`)
    }),
  onSuccess: (server, response) =>
    Effect.sync(() => {
      calls.push(`${name} success ${server} ${response?.dpopNonce ?? "-"}`)
    })
})

describe("AuthRoutes", () => {
  it.effect("each server its strategy, matched by canonical URI; every other server the fallback", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const auth = AuthRoutes.make(
        [["https://Reports.Example.com/mcp", named("svc", calls)]],
        named("interactive", calls)
      )
      const header = (server: string) =>
        Effect.map(auth.headers(server, { method: "GET" }), (h) => Redacted.value(h["authorization"]!))
      assert.strictEqual(yield* header("https://reports.example.com/mcp"), "svc")
      assert.strictEqual(yield* header("https://reports.example.com/mcp?session=1#x"), "svc")
      assert.strictEqual(yield* header("https://reports.example.com/other"), "interactive")
      assert.strictEqual(yield* header("not a url"), "interactive")
      yield* auth.onChallenge("https://reports.example.com/mcp", {
        status: 401,
        wwwAuthenticate: undefined,
        dpopNonce: "n"
      })
      yield* auth.onSuccess("https://elsewhere.example/mcp", { dpopNonce: "m" })
      assert.deepStrictEqual(calls.slice(-2), [
        "svc challenge https://reports.example.com/mcp 401 n",
        "interactive success https://elsewhere.example/mcp m"
      ])
      assert.strictEqual(calls[0], "svc headers https://reports.example.com/mcp GET")
    }))
})
