/**
 * server-everything's tools that ask the client for something, called through `McpManager` (over stdio and
 * Streamable HTTP on 127.0.0.1) with the fleet's handlers: its sampling tool answered by `SamplingModel` over a
 * scripted `effect/ai` `LanguageModel`, and its URL elicitation's `-32042` error path completed by the fleet's URL
 * handler and retried once.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { SamplingModel } from "@mcp-fleet/ai"
import { McpManager } from "@mcp-fleet/manager"
import type { ManagerOptions } from "@mcp-fleet/manager"
import type { Elicitation } from "@mcp-fleet/transport"
import { Context, Effect, Layer, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import * as HttpPeers from "../src/HttpPeers.ts"
import * as ReferenceServers from "../src/ReferenceServers.ts"
import { texts } from "./support.ts"

const platform = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)

/** A LanguageModel that answers every call with one text, counting the calls. */
const model = (calls: Array<number>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: () =>
        Effect.sync(() => {
          calls.push(calls.length)
          return [
            { type: "text", text: "sampled through the manager" },
            { type: "finish", reason: "stop", usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } }
          ]
        }),
      streamText: () => Stream.empty
    })
  )

/** A manager of server-everything over `wire` with `handlers`, ready. */
const managerOf = (wire: "stdio" | "http", handlers: ManagerOptions.ManagerOptions["handlers"]) =>
  Effect.gen(function*() {
    const everything = wire === "stdio"
      ? ReferenceServers.command("everything", "/tmp")
      : { url: (yield* HttpPeers.start("everything-streamable")).url, transport: "http" as const }
    const context = yield* Layer.build(
      McpManager.layer({ servers: { everything }, handlers }).pipe(Layer.provide(platform))
    )
    const manager = Context.get(context, McpManager.McpManager)
    yield* manager.waitForReady("everything")
    return manager
  })

for (const wire of ["stdio", "http"] as const) {
  describe(`server-everything's asking tools through McpManager (${wire})`, { timeout: 60_000 }, () => {
    it.live("trigger-sampling-request: answered by SamplingModel (the fleet's sampling handler)", () =>
      Effect.gen(function*() {
        const calls: Array<number> = []
        const sampling = yield* SamplingModel.make({ allow: SamplingModel.allowAll }).pipe(
          Effect.provide(model(calls))
        )
        const manager = yield* managerOf(wire, { sampling })
        const client = yield* manager.client("everything")
        const result = yield* manager.call("everything", "trigger-sampling-request", { prompt: "hi", maxTokens: 5 })
        const text = texts(result).join("\n")
        assert.include(text, "sampled through the manager")
        assert.include(text, "\"stopReason\": \"endTurn\"")
        assert.deepStrictEqual(calls, [0])
        assert.strictEqual(client.stats().handlers.answered, 1)
      }).pipe(Effect.scoped, Effect.provide(platform)))

    it.live("trigger-url-elicitation's -32042: completed by the fleet's URL handler, the call retried once", () =>
      Effect.gen(function*() {
        const urls: Array<string> = []
        const elicitation: Elicitation.Service = {
          url: (request) => Effect.sync(() => urls.push(request.url)).pipe(Effect.as({ action: "accept" as const }))
        }
        const manager = yield* managerOf(wire, { elicitation })
        const result = yield* manager.call("everything", "trigger-url-elicitation", {
          url: "https://example.com/consent",
          errorPath: true,
          elicitationId: `manager-${wire}`
        })
        assert.include(texts(result).join("\n"), "User completed the URL elicitation flow")
        assert.deepStrictEqual(urls, ["https://modelcontextprotocol.io", "https://example.com/consent"])
      }).pipe(Effect.scoped, Effect.provide(platform)))
  })
}
