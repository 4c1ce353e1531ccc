/**
 * The request timeout default has one source: the transport. The manager passes a server's `requestTimeout`
 * to `McpClient.stdio` (what it starts a `command` with) untouched, so an absent one arrives absent (a
 * `?? 30_000` of the manager's own goes red here). `McpClient.stdio` is wrapped, not replaced: the real client
 * runs, and its options are recorded.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import type * as Transport from "@mcp-fleet/transport"
import type { McpClientOptions } from "@mcp-fleet/transport"
import { Context, Effect, Layer } from "effect"
import { vi } from "vitest"
import { fleetSpawner, toolServer } from "./fleetPeers.ts"

const made = vi.hoisted(() => [] as Array<McpClientOptions.McpClientOptions>)

vi.mock("@mcp-fleet/transport", async (importOriginal) => {
  const actual = await importOriginal<typeof Transport>()
  const stdio: typeof actual.McpClient.stdio = (options) => {
    made.push(options)
    return actual.McpClient.stdio(options)
  }
  return { ...actual, McpClient: { ...actual.McpClient, stdio } }
})

describe("the request timeout default has one source", () => {
  it.effect("an absent requestTimeout reaches McpClient.stdio absent; a given one, unchanged", () =>
    Effect.gen(function*() {
      const { layer } = fleetSpawner({
        plain: (_, peer) => toolServer("plain", () => ["t"])(peer),
        given: (_, peer) => toolServer("given", () => ["t"])(peer)
      })
      const context = yield* Layer.build(
        McpManager.layer({
          servers: { plain: { command: "plain" }, given: { command: "given", requestTimeout: "5 seconds" } }
        }).pipe(Layer.provide(layer))
      )
      const manager = Context.get(context, McpManager.McpManager)
      yield* manager.waitForReady("plain")
      yield* manager.waitForReady("given")
      const byName = (name: string) => made.find((options) => options.name === name)
      assert.isDefined(byName("plain"), "the manager made its clients with McpClient.stdio")
      assert.strictEqual(byName("plain")!.requestTimeout, undefined)
      assert.strictEqual(byName("given")!.requestTimeout, "5 seconds")
      assert.strictEqual(made.length, 2, "one client per server")
    }))
})
