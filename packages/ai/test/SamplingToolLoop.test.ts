/**
 * A server's tool loop through a real client: an in-memory MCP server sends `sampling/createMessage` with tools to
 * `McpClient`, whose `SamplingModel` asks a scripted `LanguageModel`; the model's tool call reaches the server as
 * `tool_use`, and the server's `tool_result` reaches the model in the next round. The client declared
 * `sampling.tools` because the adapter takes tools.
 */
import { assert, describe, it } from "@effect/vitest"
import { SamplingModel } from "@mcp-fleet/ai"
import { McpPeer } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Effect } from "effect"
import { finish, scripted, toolCall } from "./fleet.ts"

const weather = {
  name: "get_weather",
  description: "Current weather of a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}

const isMessage = (u: unknown): u is McpPeer.Message => typeof u === "object" && u !== null && !Array.isArray(u)

describe("SamplingModel through McpClient: a server's tool loop", () => {
  it.effect("tool_use out, tool_result back, the final text last", () =>
    Effect.gen(function*() {
      const model = scripted([
        () => [toolCall("call_1", "get_weather", { city: "Paris" }), finish("tool-calls")],
        () => [{ type: "text", text: "18°C in Paris." }, finish("stop")]
      ])
      const sampling = yield* SamplingModel.make({ allow: SamplingModel.allowAll, model: "scripted" }).pipe(
        Effect.provide(model.layer)
      )
      const { frames, layer, peer } = yield* McpPeer.controlled({})
      const client = yield* McpClient.make({ command: "server", handlers: { sampling } }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const initialize = frames.find((f) => isMessage(f) && f.method === "initialize")
      assert.deepStrictEqual(
        isMessage(initialize) && isMessage(initialize.params) ? initialize.params.capabilities : undefined,
        { sampling: { tools: {} } }
      )
      const p = yield* peer
      const answer = (id: string) =>
        McpPeer.awaitFrames(frames, () => frames.some((f) => isMessage(f) && f.id === id && f.method === undefined))
          .pipe(Effect.map(() => frames.find((f): f is McpPeer.Message => isMessage(f) && f.id === id)!))
      const question = { role: "user", content: { type: "text", text: "Weather in Paris?" } }
      yield* p.send({
        jsonrpc: "2.0",
        id: "r1",
        method: "sampling/createMessage",
        params: { messages: [question], tools: [weather], maxTokens: 200 }
      })
      const first = yield* answer("r1")
      assert.deepStrictEqual(first.result, {
        role: "assistant",
        content: { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
        model: "scripted",
        stopReason: "toolUse"
      })
      yield* p.send({
        jsonrpc: "2.0",
        id: "r2",
        method: "sampling/createMessage",
        params: {
          messages: [
            question,
            {
              role: "assistant",
              content: [{ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } }]
            },
            {
              role: "user",
              content: [{ type: "tool_result", toolUseId: "call_1", content: [{ type: "text", text: "18°C" }] }]
            }
          ],
          tools: [weather],
          toolChoice: { mode: "none" },
          maxTokens: 200
        }
      })
      const second = yield* answer("r2")
      assert.deepStrictEqual(second.result, {
        role: "assistant",
        content: { type: "text", text: "18°C in Paris." },
        model: "scripted",
        stopReason: "endTurn"
      })
      const round = model.seen[1]!
      assert.strictEqual(round.toolChoice, "none")
      assert.deepStrictEqual(round.prompt.content.map((m) => m.role), ["user", "assistant", "tool"])
      assert.strictEqual(client.stats().handlers.answered, 2)
    }))
})
