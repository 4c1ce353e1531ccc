/**
 * SamplingModel: `sampling/createMessage` answered by a scripted `LanguageModel` — the prompt it builds, the
 * answer and stop reason it maps, and the host's per-request decision.
 */
import { assert, describe, it } from "@effect/vitest"
import { SamplingModel } from "@mcp-fleet/ai"
import { Sampling } from "@mcp-fleet/transport"
import { Effect } from "effect"
import type { Response } from "effect/ai"
import { scripted } from "./fleet.ts"

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

  it.effect("a content block the model cannot take (tool_use) is refused with the reason", () =>
    Effect.gen(function*() {
      const model = scripted([])
      const sampling = yield* SamplingModel.make({ allow: SamplingModel.allowAll }).pipe(Effect.provide(model.layer))
      const refused = yield* Effect.flip(sampling.createMessage(request({
        messages: [{ role: "assistant", content: { type: "tool_use", id: "t", name: "x", input: {} } }]
      })))
      assert.instanceOf(refused, Sampling.SamplingRefused)
      assert.match(refused instanceof Sampling.SamplingRefused ? refused.reason : "", /"tool_use" content block/)
      assert.strictEqual(model.seen.length, 0)
    }))
})
