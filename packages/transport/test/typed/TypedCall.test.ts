/**
 * Typed calls: `callTool(name, args, { schema })` decodes `structuredContent`; tool errors stay results.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpPeer } from "@mcp-fleet/testing"
import { ErrorKind, McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Option, Schema } from "effect"

const Weather = Schema.Struct({ city: Schema.String, celsius: Schema.Number })

/** A server whose `weather` tool answers with what `results` holds for the city it is asked about. */
const results: Record<string, unknown> = {
  oslo: { content: [{ type: "text", text: "cold" }], structuredContent: { city: "Oslo", celsius: -3 } },
  rome: { content: [{ type: "text", text: "warm" }], structuredContent: { city: "Rome", celsius: "hot" } },
  none: { content: [{ type: "text", text: "no data" }] },
  fail: { content: [{ type: "text", text: "no such city" }], isError: true }
}

const CallParams = Schema.Struct({ arguments: Schema.Struct({ city: Schema.String }) })
const cityOf = Schema.decodeUnknownSync(CallParams)

const peer = McpPeer.layer({
  onRequest: (msg) =>
    Effect.sync(() => msg.method === "tools/call" ? results[cityOf(msg.params).arguments.city] : undefined)
})

const client = Effect.gen(function*() {
  const client = yield* McpClient.make({ command: "weather", name: "meteo" }).pipe(Effect.provide(peer))
  yield* client.awaitReady
  return client
})

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
  if (Option.isNone(error)) throw new Error("expected a typed failure")
  return error.value
}

describe("typed calls", () => {
  it.effect("structuredContent is decoded with the caller's schema", () =>
    Effect.gen(function*() {
      const c = yield* client
      const result = yield* c.callTool("weather", { city: "oslo" }, { schema: Weather })
      assert.isFalse(result.isError === true)
      if (result.isError !== true) assert.deepStrictEqual(result.structured, { city: "Oslo", celsius: -3 })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "cold" }])
    }))

  it.effect("a mismatch is StructuredContentInvalid, a permanent error with a one-sentence message", () =>
    Effect.gen(function*() {
      const c = yield* client
      const error = failureOf(yield* Effect.exit(c.callTool("weather", { city: "rome" }, { schema: Weather })))
      assert.strictEqual(error._tag, "StructuredContentInvalid")
      if (error._tag !== "StructuredContentInvalid") return
      assert.strictEqual(error.server, "meteo")
      assert.strictEqual(error.tool, "weather")
      assert.isFalse(ErrorKind.isRetryable(error))
      assert.match(error.message, /^MCP server "meteo" answered tool "weather" with structuredContent that does not/)
      assert.include(error.message, "celsius")
      assert.notInclude(error.message, "\n")
    }))

  it.effect("a success without structuredContent is StructuredContentInvalid too", () =>
    Effect.gen(function*() {
      const c = yield* client
      const error = failureOf(yield* Effect.exit(c.callTool("weather", { city: "none" }, { schema: Weather })))
      assert.strictEqual(error._tag, "StructuredContentInvalid")
      assert.include(error.message, "has no structuredContent")
    }))

  it.effect("an isError result stays a result and is not decoded", () =>
    Effect.gen(function*() {
      const c = yield* client
      const result = yield* c.callTool("weather", { city: "fail" }, { schema: Weather })
      assert.isTrue(result.isError)
      assert.isUndefined(result.structured)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "no such city" }])
    }))

  it.effect("without a schema the call is untyped, as before", () =>
    Effect.gen(function*() {
      const c = yield* client
      const result = yield* c.callTool("weather", { city: "rome" })
      assert.deepStrictEqual(result.structuredContent, { city: "Rome", celsius: "hot" })
      assert.notProperty(result, "structured")
    }))
})
