/**
 * SamplingModel: `sampling/createMessage` answered by a scripted `LanguageModel` — the prompt it builds, the
 * answer and stop reason it maps, and the host's per-request decision.
 */
import { assert, describe, it } from "@effect/vitest"
import { SamplingModel } from "@mcp-fleet/ai"
import { Sampling } from "@mcp-fleet/transport"
import { Effect } from "effect"
import { Tool } from "effect/ai"
import type { Response } from "effect/ai"
import { finish, scripted, toolCall } from "./fleet.ts"

const weather = {
  name: "weather.get",
  description: "Current weather",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}

const request = (params: Partial<Sampling.CreateMessageParams>, server = "everything"): Sampling.Request => ({
  server,
  params: { messages: [], maxTokens: 100, ...params }
})

const finishing = (reason: Response.FinishReason): ReadonlyArray<Response.PartEncoded> => [
  { type: "text", text: "an answer" },
  { type: "finish", reason, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } }
]

describe("SamplingModel", () => {
  it.effect("maps the system prompt and every message into the prompt, and the response into an MCP message", () =>
    Effect.gen(function*() {
      const model = scripted([() => [...finishing("stop")]])
      const configured: Array<number> = []
      const sampling = yield* SamplingModel.make({
        allow: SamplingModel.allowAll,
        model: "scripted-1",
        configure: (r) => (call) => Effect.andThen(Effect.sync(() => configured.push(r.params.maxTokens)), call)
      }).pipe(Effect.provide(model.layer))
      const result = yield* sampling.createMessage(request({
        systemPrompt: "be brief",
        maxTokens: 42,
        messages: [
          { role: "user", content: { type: "text", text: "hello" } },
          { role: "assistant", content: [{ type: "text", text: "hi" }] },
          { role: "user", content: [{ type: "image", data: "aGk=", mimeType: "image/png" }] }
        ]
      }))
      assert.deepStrictEqual(result, {
        role: "assistant",
        content: { type: "text", text: "an answer" },
        model: "scripted-1",
        stopReason: "endTurn"
      })
      assert.deepStrictEqual(configured, [42])
      const prompt = model.seen[0]!.prompt.content
      assert.deepStrictEqual(prompt.map((m) => m.role), ["system", "user", "assistant", "user"])
      assert.strictEqual(prompt[0]!.content, "be brief")
      const image = prompt[3]!.content[0]
      assert.strictEqual(typeof image === "object" && image.type, "file")
    }))

  it("stop reasons: stop → endTurn, length → maxTokens, tool-calls → toolUse, others as they are", () => {
    assert.deepStrictEqual(
      (["stop", "length", "tool-calls", "content-filter"] as const).map(SamplingModel.stopReason),
      ["endTurn", "maxTokens", "toolUse", "content-filter"]
    )
  })

  it.effect("the host refuses by server: SamplingRefused, and the model is never called", () =>
    Effect.gen(function*() {
      const model = scripted([() => [...finishing("length")]])
      const sampling = yield* SamplingModel.make({ allow: (r) => Effect.succeed(r.server === "trusted") }).pipe(
        Effect.provide(model.layer)
      )
      const refused = yield* Effect.flip(sampling.createMessage(request({}, "stranger")))
      assert.instanceOf(refused, Sampling.SamplingRefused)
      assert.strictEqual(model.seen.length, 0)
      const allowed = yield* sampling.createMessage(request({}, "trusted"))
      assert.strictEqual(allowed.stopReason, "maxTokens")
    }))

  it.effect("a content block the model cannot take (a kind it does not know) is refused with the reason", () =>
    Effect.gen(function*() {
      const model = scripted([])
      const sampling = yield* SamplingModel.make({ allow: SamplingModel.allowAll }).pipe(Effect.provide(model.layer))
      const refused = yield* Effect.flip(sampling.createMessage(request({
        messages: [{ role: "user", content: { type: "video", data: "AAAA", mimeType: "video/mp4" } }]
      })))
      assert.instanceOf(refused, Sampling.SamplingRefused)
      assert.match(refused instanceof Sampling.SamplingRefused ? refused.reason : "", /"video" content block/)
      assert.strictEqual(model.seen.length, 0)
    }))

  it.effect("declares tools (unless tools: false) and passes the host's context provider on", () =>
    Effect.gen(function*() {
      const model = scripted([])
      const context = () => Effect.succeed("open files: a.ts")
      const withTools = yield* SamplingModel.make({ allow: SamplingModel.allowAll, context }).pipe(
        Effect.provide(model.layer)
      )
      assert.isTrue(withTools.tools)
      assert.strictEqual(withTools.context, context)
      const without = yield* SamplingModel.make({ allow: SamplingModel.allowAll, tools: false }).pipe(
        Effect.provide(model.layer)
      )
      assert.isFalse(without.tools)
    }))

  it.effect("tools: the model gets the offered tools (names made valid) and toolChoice; its calls come back as tool_use", () =>
    Effect.gen(function*() {
      const model = scripted([() => [
        { type: "text", text: "checking" },
        toolCall("c1", "weather_get", { city: "Paris" }),
        toolCall("c2", "weather_get", { city: "London" }),
        finish("tool-calls")
      ]])
      const sampling = yield* SamplingModel.make({ allow: SamplingModel.allowAll }).pipe(Effect.provide(model.layer))
      const result = yield* sampling.createMessage(request({
        messages: [{ role: "user", content: { type: "text", text: "weather?" } }],
        tools: [weather],
        toolChoice: { mode: "required" }
      }))
      assert.deepStrictEqual(result, {
        role: "assistant",
        content: [
          { type: "text", text: "checking" },
          { type: "tool_use", id: "c1", name: "weather.get", input: { city: "Paris" } },
          { type: "tool_use", id: "c2", name: "weather.get", input: { city: "London" } }
        ],
        model: "effect-ai",
        stopReason: "toolUse"
      })
      const seen = model.seen[0]!
      assert.deepStrictEqual(seen.tools.map((tool) => tool.name), ["weather_get"])
      assert.deepStrictEqual(Tool.getJsonSchema(seen.tools[0]!), weather.inputSchema)
      assert.strictEqual(seen.tools[0]!.description, "Current weather")
      assert.strictEqual(seen.toolChoice, "required")
    }))

  it.effect("tools: the next round's tool uses and results become tool calls and a tool message", () =>
    Effect.gen(function*() {
      const model = scripted([() => [{ type: "text", text: "Paris is warmer." }, finish("stop")]])
      const sampling = yield* SamplingModel.make({ allow: SamplingModel.allowAll }).pipe(Effect.provide(model.layer))
      const result = yield* sampling.createMessage({
        server: "everything",
        context: "the user is in Europe",
        params: {
          maxTokens: 100,
          includeContext: "thisServer",
          tools: [weather],
          messages: [
            { role: "user", content: { type: "text", text: "weather?" } },
            {
              role: "assistant",
              content: [{ type: "tool_use", id: "c1", name: "weather.get", input: { city: "Paris" } }]
            },
            {
              role: "user",
              content: [{
                type: "tool_result",
                toolUseId: "c1",
                content: [{ type: "text", text: "18°C" }],
                isError: true
              }]
            }
          ]
        }
      })
      assert.deepStrictEqual(result, {
        role: "assistant",
        content: { type: "text", text: "Paris is warmer." },
        model: "effect-ai",
        stopReason: "endTurn"
      })
      const prompt = model.seen[0]!.prompt.content
      assert.deepStrictEqual(prompt.map((m) => m.role), ["system", "user", "assistant", "tool"])
      assert.strictEqual(
        prompt[0]!.content,
        "Context from MCP servers (includeContext: thisServer):\nthe user is in Europe"
      )
      const call = prompt[2]!.content[0]
      assert.deepStrictEqual(
        typeof call === "object" && call.type === "tool-call" ? [call.id, call.name, call.params] : undefined,
        ["c1", "weather_get", { city: "Paris" }]
      )
      const output = prompt[3]!.content[0]
      assert.deepStrictEqual(
        typeof output === "object" && output.type === "tool-result"
          ? [output.id, output.name, output.isFailure]
          : undefined,
        ["c1", "weather_get", true]
      )
    }))
})
