/**
 * A server that lists two tools with the same name: the manager exposes the first one and says, in the server's
 * health, that the later one was left out (issue 11, item 7).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import { Context, Effect, Layer } from "effect"
import { always, fleetSpawner } from "./fleetPeers.ts"

describe("a duplicate tool name through the manager", () => {
  it.effect("the first tool is kept and the health says the repeated one was left out", () =>
    Effect.gen(function*() {
      const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object" } })
      const { layer } = fleetSpawner({
        dup: always({
          onRequest: (msg) =>
            Effect.succeed(
              msg.method === "tools/list" ? { tools: [tool("a", "first"), tool("b", "b"), tool("a", "second")] } : {}
            )
        })
      })
      const context = yield* Layer.build(
        McpManager.layer({ servers: { dup: { command: "dup" } } }).pipe(Layer.provide(layer))
      )
      const manager = Context.get(context, McpManager.McpManager)
      const health = yield* manager.waitForReady("dup")
      assert.deepStrictEqual(health.tools.map((t) => [t.name, t.description]), [["a", "first"], ["b", "b"]])
      assert.include(JSON.stringify(health), "1 listed tools were left out, as invalid or as a repeated name (a)")
    }))
})
