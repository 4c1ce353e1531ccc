/**
 * `manager.call(server, tool, args, { schema })` and the manager errors' kind (`ErrorKind.isRetryable`).
 */
import { assert, describe, it } from "@effect/vitest"
import { ManagerError } from "@mcp-fleet/manager"
import { ErrorKind } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Option, Schema } from "effect"
import { always, build, fleetSpawner, toolServer } from "./fleetPeers.ts"

const Count = Schema.Struct({ count: Schema.Number })

const counter = toolServer("counter", () => ["count"], {
  onRequest: (msg) =>
    Effect.succeed(
      msg.method === "tools/list"
        ? { tools: [{ name: "count", inputSchema: { type: "object" } }] }
        : msg.method === "tools/call"
        ? { content: [{ type: "text", text: "3" }], structuredContent: { count: 3 } }
        : undefined
    )
})

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
  if (Option.isNone(error)) throw new Error("expected a typed failure")
  return error.value
}

describe("manager typed calls", () => {
  it.effect("decodes structuredContent with the schema; a mismatch is StructuredContentInvalid", () =>
    Effect.gen(function*() {
      const { layer } = fleetSpawner({ counter: (_, peer) => counter(peer) })
      const manager = yield* build({ servers: { counter: { command: "counter" } } }, layer)
      yield* manager.waitForReady("counter")
      const typed = yield* manager.call("counter", "count", {}, { schema: Count, timeout: "5 seconds" })
      if (typed.isError === true) return assert.fail("not a tool error")
      assert.strictEqual(typed.structured.count, 3)
      const wrong = failureOf(
        yield* Effect.exit(manager.call("counter", "count", {}, { schema: Schema.Struct({ count: Schema.String }) }))
      )
      assert.strictEqual(wrong._tag, "StructuredContentInvalid")
      assert.isFalse(ErrorKind.isRetryable(wrong))
      const untyped = yield* manager.call("counter", "count", {})
      assert.deepStrictEqual(untyped.structuredContent, { count: 3 })
    }))

  it.effect("ErrIndexBuilding from a starting server is retryable; an unknown server is not", () =>
    Effect.gen(function*() {
      const { layer } = fleetSpawner({ cold: always({ initialize: "never" }) })
      const manager = yield* build({ servers: { cold: { command: "cold" } } }, layer)
      const building = failureOf(yield* Effect.exit(manager.call("cold", "t", {})))
      assert.strictEqual(building._tag, "ErrIndexBuilding")
      assert.isTrue(ErrorKind.isRetryable(building))
      const unknown = failureOf(yield* Effect.exit(manager.call("nope", "t", {})))
      assert.strictEqual(unknown._tag, "UnknownServer")
      assert.isFalse(ErrorKind.isRetryable(unknown))
    }))
})

describe("manager errors' kind", () => {
  it("ServerUnavailable is transient while reconnecting, the server's once given up, the config's when disabled", () => {
    const base = { server: "s", attempt: 2 }
    assert.isTrue(
      ErrorKind.isRetryable(new ManagerError.ServerUnavailable({ ...base, state: "offline", gaveUp: false }))
    )
    assert.isTrue(
      ErrorKind.isRetryable(new ManagerError.ServerUnavailable({ ...base, state: "starting", gaveUp: false }))
    )
    assert.isFalse(
      ErrorKind.isRetryable(new ManagerError.ServerUnavailable({ ...base, state: "offline", gaveUp: true }))
    )
    assert.isFalse(
      ErrorKind.isRetryable(new ManagerError.ServerUnavailable({ ...base, state: "disabled", gaveUp: false }))
    )
    assert.isFalse(ErrorKind.isRetryable(new ManagerError.UnknownServer({ server: "s", known: [] })))
    assert.isFalse(ErrorKind.isRetryable(new ManagerError.ServerNotReady({ server: "s", state: "degraded" })))
    assert.isFalse(ErrorKind.isRetryable(new ManagerError.DuplicateServer({ server: "s" })))
    assert.strictEqual(
      new ManagerError.ServerUnavailable({ ...base, state: "offline", gaveUp: true }).kind._tag,
      "ServerFault"
    )
    assert.strictEqual(
      new ManagerError.ServerUnavailable({ ...base, state: "disabled", gaveUp: false }).kind._tag,
      "ConfigFault"
    )
  })
})
