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
import { HttpClient } from "effect/http"
import { vi } from "vitest"
import { fleetSpawner, toolServer } from "./fleetPeers.ts"

const made = vi.hoisted(() => [] as Array<McpClientOptions.McpClientOptions>)
const madeRemote = vi.hoisted(() => [] as Array<McpClientOptions.RemoteOptions>)

vi.mock("@mcp-fleet/transport", async (importOriginal) => {
  const actual = await importOriginal<typeof Transport>()
  const stdio: typeof actual.McpClient.stdio = (options) => {
    made.push(options)
    return actual.McpClient.stdio(options)
  }
  const http: typeof actual.McpClient.http = (options) => {
    madeRemote.push(options)
    return actual.McpClient.http(options)
  }
  return { ...actual, McpClient: { ...actual.McpClient, stdio, http } }
})

/** An HTTP client whose requests never get an answer: the remote servers stay starting, and nothing is sent. */
const silentHttp = Layer.succeed(HttpClient.HttpClient, HttpClient.make(() => Effect.never))

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

  it.effect("the same on the remote path: an absent requestTimeout reaches McpClient.http absent", () =>
    Effect.gen(function*() {
      const { layer } = fleetSpawner({})
      const context = yield* Layer.build(
        McpManager.layer({
          servers: {
            plainRemote: { url: "http://127.0.0.1:9/mcp" },
            sseRemote: { url: "http://127.0.0.1:9/sse", transport: "sse" },
            givenRemote: { url: "http://127.0.0.1:9/mcp", requestTimeout: "5 seconds" }
          }
        }).pipe(Layer.provide(Layer.merge(layer, silentHttp)))
      )
      Context.get(context, McpManager.McpManager)
      // The manager spawns every server before its layer is built: each remote client is made by now.
      const byUrl = (url: string, transport?: string) =>
        madeRemote.find((options) =>
          options.url === url && (transport === undefined || options.transport === transport)
        )
      assert.strictEqual(madeRemote.length, 3, "one client per remote server")
      assert.isDefined(byUrl("http://127.0.0.1:9/sse", "sse"))
      assert.strictEqual(byUrl("http://127.0.0.1:9/sse")!.requestTimeout, undefined, "over legacy SSE too")
      const [first, second] = madeRemote.filter((options) => options.url === "http://127.0.0.1:9/mcp")
      assert.deepStrictEqual(
        [first!.requestTimeout, second!.requestTimeout].sort(),
        ["5 seconds", undefined],
        "the given one unchanged, the absent one absent"
      )
    }))
})
