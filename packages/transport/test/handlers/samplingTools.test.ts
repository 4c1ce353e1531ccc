/**
 * Sampling with tools and `includeContext` (2025-11-25), through `McpClient.make` against an in-memory peer: the
 * capabilities a handler declares, a two-round tool loop (tool_use out, tool_result back), the -32602 a request gets
 * when the handler takes no tools or its messages break the spec's rules, an answer that breaks them never sent,
 * and the `includeContext` policy (nothing attached without a provider; the provider's text with one).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient, Sampling } from "@mcp-fleet/transport"
import { Effect } from "effect"
import { responses } from "../faults/helpers.ts"
import { awaitFrames, controlledPeer } from "../peers.ts"
import type { Message } from "../peers.ts"

const weather = {
  name: "get_weather",
  description: "Current weather of a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}

const ask = { role: "user" as const, content: { type: "text", text: "Weather in Paris and London?" } }
const uses = {
  role: "assistant" as const,
  content: [
    { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
    { type: "tool_use", id: "call_2", name: "get_weather", input: { city: "London" } }
  ]
}
const results = {
  role: "user" as const,
  content: [
    { type: "tool_result", toolUseId: "call_1", content: [{ type: "text", text: "18°C" }] },
    { type: "tool_result", toolUseId: "call_2", content: [{ type: "text", text: "15°C" }], isError: false }
  ]
}

/** A client of an in-memory peer with `sampling`, ready; `request` sends one sampling request and returns the reply. */
const withSampling = (sampling: Sampling.Service) =>
  Effect.gen(function*() {
    const { frames, layer, peer } = yield* controlledPeer({})
    const client = yield* McpClient.make({ command: "server", handlers: { sampling } }).pipe(Effect.provide(layer))
    yield* client.awaitReady
    const p = yield* peer
    const initialize = frames.find((f): f is Message =>
      typeof f === "object" && f !== null && "method" in f && f.method === "initialize"
    )
    let sent = 0
    const request = (params: unknown) =>
      Effect.gen(function*() {
        const id = `s-${sent++}`
        yield* p.send({ jsonrpc: "2.0", id, method: "sampling/createMessage", params })
        yield* awaitFrames(frames, () => responses(frames).some((r) => r.id === id))
        return responses(frames).find((r) => r.id === id)!
      })
    return { client, request, initialize }
  })

const field = (u: unknown, key: string): unknown =>
  typeof u === "object" && u !== null && key in u ? Reflect.get(u, key) : undefined

const capabilitiesOf = (initialize: Message | undefined): unknown => field(initialize?.["params"], "capabilities")

/** A reply's error code and message. */
const errorOf = (reply: Message) => ({
  code: field(reply["error"], "code"),
  message: String(field(reply["error"], "message"))
})

describe("sampling with tools and includeContext", () => {
  it.effect("capabilities: sampling.tools only with tools: true, sampling.context only with a provider", () =>
    Effect.gen(function*() {
      const answer = () => Effect.succeed({ role: "assistant" as const, content: { type: "text" }, model: "m" })
      const plain = yield* withSampling({ createMessage: answer })
      assert.deepStrictEqual(capabilitiesOf(plain.initialize), { sampling: {} })
      const tools = yield* withSampling({ createMessage: answer, tools: true })
      assert.deepStrictEqual(capabilitiesOf(tools.initialize), { sampling: { tools: {} } })
      const both = yield* withSampling({ createMessage: answer, tools: true, context: () => Effect.succeed("") })
      assert.deepStrictEqual(capabilitiesOf(both.initialize), { sampling: { tools: {}, context: {} } })
    }))

  it.effect("a tool loop: the handler gets tools and toolChoice, answers tool_use, then gets the tool_results", () =>
    Effect.gen(function*() {
      const seen: Array<Sampling.CreateMessageParams> = []
      const { client, request } = yield* withSampling({
        tools: true,
        createMessage: ({ params }) =>
          Effect.sync(() => {
            seen.push(params)
            const last = params.messages.at(-1)!
            const blocks = Array.isArray(last.content) ? last.content : [last.content]
            return blocks.some(Sampling.isToolResult)
              ? { role: "assistant", content: { type: "text", text: "Paris is warmer." }, model: "m" }
              : { ...uses, model: "m", stopReason: "toolUse" }
          })
      })
      const first = yield* request({ messages: [ask], tools: [weather], toolChoice: { mode: "auto" }, maxTokens: 100 })
      assert.deepStrictEqual(first.result, { ...uses, model: "m", stopReason: "toolUse" })
      assert.deepStrictEqual(seen[0]?.tools, [weather])
      assert.deepStrictEqual(seen[0]?.toolChoice, { mode: "auto" })
      const second = yield* request({ messages: [ask, uses, results], tools: [weather], maxTokens: 100 })
      assert.deepStrictEqual(second.result, {
        role: "assistant",
        content: { type: "text", text: "Paris is warmer." },
        model: "m"
      })
      assert.strictEqual(client.stats().handlers.answered, 2)
    }))

  it.effect("a handler without tools: a request with tools, toolChoice or tool blocks is -32602, never handled", () =>
    Effect.gen(function*() {
      let called = 0
      const { client, request } = yield* withSampling({
        createMessage: () => Effect.sync(() => called++).pipe(Effect.as({ role: "assistant", content: [], model: "m" }))
      })
      for (
        const params of [
          { messages: [ask], tools: [weather], maxTokens: 10 },
          { messages: [ask], toolChoice: { mode: "none" }, maxTokens: 10 },
          { messages: [ask, uses, results], maxTokens: 10 }
        ]
      ) {
        const reply = yield* request(params)
        assert.deepStrictEqual(reply.error, {
          code: -32602,
          message: "This client does not take tools in sampling (it did not declare sampling.tools)."
        })
      }
      assert.strictEqual(called, 0)
      assert.strictEqual(client.stats().handlers.invalid, 3)
    }))

  it.effect("messages that break the tool rules are -32602, each with its reason", () =>
    Effect.gen(function*() {
      let called = 0
      const { request } = yield* withSampling({
        tools: true,
        createMessage: () => Effect.sync(() => called++).pipe(Effect.as({ role: "assistant", content: [], model: "m" }))
      })
      const text = { type: "text", text: "here:" }
      const cases: ReadonlyArray<readonly [ReadonlyArray<unknown>, string]> = [
        [
          [ask, uses, { role: "user", content: [text, ...results.content] }],
          "message 2 must be the user's tool_result"
        ],
        [[ask, uses, { role: "user", content: [results.content[0]] }], "no tool_result for tool_use \"call_2\""],
        [[ask, uses, ask], "message 2 must be the user's tool_result blocks"],
        [[ask, uses], "the last message's tool_use blocks have no tool_result"],
        [[ask, { role: "user", content: results.content }], "answers no tool_use of the message before it"],
        [[{ role: "user", content: uses.content }], "message 0 is the user's but has a tool_use block"],
        [[ask, { role: "assistant", content: { type: "tool_use", id: "x" } }], "without an id, a name or an input"],
        [[
          ask,
          uses,
          { role: "user", content: [...results.content, { ...results.content[0], toolUseId: "call_9" }] }
        ], "a tool_result for \"call_9\", which no tool_use asked for"]
      ]
      for (const [messages, reason] of cases) {
        const reply = yield* request({ messages, tools: [weather], maxTokens: 10 })
        const error = errorOf(reply)
        assert.strictEqual(error.code, -32602)
        assert.include(error.message, reason)
      }
      assert.strictEqual(called, 0)
    }))

  it.effect("an answer that uses a tool it was not offered (or may not use) is never sent: -32603", () =>
    Effect.gen(function*() {
      const { client, request } = yield* withSampling({
        tools: true,
        createMessage: () => Effect.succeed({ ...uses, model: "m", stopReason: "toolUse" })
      })
      const replies = [
        yield* request({ messages: [ask], maxTokens: 10 }),
        yield* request({ messages: [ask], tools: [weather], toolChoice: { mode: "none" }, maxTokens: 10 }),
        yield* request({ messages: [ask], tools: [{ ...weather, name: "get_time" }], maxTokens: 10 })
      ]
      for (const reply of replies) {
        assert.deepStrictEqual(reply.error, {
          code: -32603,
          message: "The client's sampling handler answered an invalid message."
        })
        assert.isUndefined(reply.result)
      }
      assert.strictEqual(client.stats().handlers.failed, 3)
    }))

  it.effect("includeContext without a provider: nothing attached, and the handler sees what was asked", () =>
    Effect.gen(function*() {
      const seen: Array<Sampling.Request> = []
      const { request } = yield* withSampling({
        createMessage: (r) =>
          Effect.sync(() => seen.push(r)).pipe(
            Effect.as({ role: "assistant" as const, content: { type: "text", text: "ok" }, model: "m" })
          )
      })
      const reply = yield* request({ messages: [ask], includeContext: "thisServer", maxTokens: 10 })
      assert.isDefined(reply.result)
      assert.isUndefined(seen[0]?.context)
      assert.strictEqual(seen[0]?.params.includeContext, "thisServer")
    }))

  it.effect("includeContext with a provider: its text for thisServer / allServers, not asked for none", () =>
    Effect.gen(function*() {
      const asked: Array<Sampling.ContextRequest> = []
      const seen: Array<string | undefined> = []
      const { request } = yield* withSampling({
        context: (r) => Effect.sync(() => asked.push(r)).pipe(Effect.as(`context of ${r.include}`)),
        createMessage: (r) =>
          Effect.sync(() => seen.push(r.context)).pipe(
            Effect.as({ role: "assistant" as const, content: { type: "text", text: "ok" }, model: "m" })
          )
      })
      yield* request({ messages: [ask], includeContext: "thisServer", maxTokens: 10 })
      yield* request({ messages: [ask], includeContext: "allServers", maxTokens: 10 })
      yield* request({ messages: [ask], includeContext: "none", maxTokens: 10 })
      yield* request({ messages: [ask], maxTokens: 10 })
      assert.deepStrictEqual(asked, [
        { server: "server", include: "thisServer" },
        { server: "server", include: "allServers" }
      ])
      assert.deepStrictEqual(seen, ["context of thisServer", "context of allServers", undefined, undefined])
      const bad = yield* request({ messages: [ask], includeContext: "everything", maxTokens: 10 })
      assert.strictEqual(errorOf(bad).code, -32602)
    }))
})
