/**
 * The client's handlers against server-everything, over stdio and over Streamable HTTP on 127.0.0.1: its sampling
 * tool answered by a scripted `effect/ai` `LanguageModel` through `SamplingModel`, its elicitation tool answered
 * with the form's defaults, and `roots/list` answered — with a change of roots observed by the server (it asks
 * again and logs the new count).
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { SamplingModel } from "@mcp-fleet/ai"
import { Elicitation, McpClient, McpError, Roots } from "@mcp-fleet/transport"
import type { ClientHandlers } from "@mcp-fleet/transport"
import { Effect, Fiber, Layer, Option, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import * as HttpPeers from "../src/HttpPeers.ts"
import * as ReferenceServers from "../src/ReferenceServers.ts"
import { texts } from "./support.ts"

const layer = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)

/** A LanguageModel that answers every call with one text and records each prompt. */
const scriptedModel = () => {
  const prompts: Array<LanguageModel.ProviderOptions["prompt"]> = []
  const model = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          prompts.push(options.prompt)
          return [
            { type: "text", text: "a scripted answer" },
            { type: "finish", reason: "length", usage: { inputTokens: { total: 3 }, outputTokens: { total: 10 } } }
          ]
        }),
      streamText: () => Stream.empty
    })
  )
  return { model, prompts }
}

/** server-everything over `wire`, and a ready client of it with `handlers`. */
const connect = (wire: "stdio" | "http", handlers: ClientHandlers.ClientHandlers) =>
  Effect.gen(function*() {
    if (wire === "stdio") {
      const { args, command, env } = ReferenceServers.command("everything", "/tmp")
      const client = yield* McpClient.make({ command, args, env, name: "everything", handlers })
      yield* client.awaitReady
      return client
    }
    const peer = yield* HttpPeers.start("everything-streamable")
    const client = yield* McpClient.make({ url: peer.url, transport: "http", name: "everything", handlers })
    yield* client.awaitReady
    return client
  })

/** The first log message of the server whose data contains `text`. */
const logged = (client: McpClient.McpClient, text: string) =>
  client.notifications.pipe(
    Stream.filter((n) =>
      n.method === "notifications/message" && typeof n.params === "object" && n.params !== null &&
      "data" in n.params && String(n.params.data).includes(text)
    ),
    Stream.runHead
  )

for (const wire of ["stdio", "http"] as const) {
  describe(`server→client handlers against server-everything (${wire})`, { timeout: 60_000 }, () => {
    it.live("trigger-sampling-request is answered by a scripted LanguageModel (prompt, system prompt, stop reason)", () =>
      Effect.gen(function*() {
        const { model, prompts } = scriptedModel()
        const seenServers: Array<string> = []
        const sampling = yield* SamplingModel.make({
          allow: (request) => Effect.sync(() => seenServers.push(request.server)).pipe(Effect.as(true))
        }).pipe(Effect.provide(model))
        const client = yield* connect(wire, { sampling })
        const result = yield* client.callTool("trigger-sampling-request", { prompt: "say hi", maxTokens: 10 })
        const text = texts(result).join("\n")
        assert.include(text, "LLM sampling result")
        assert.include(text, "a scripted answer")
        assert.include(text, "\"stopReason\": \"maxTokens\"")
        assert.deepStrictEqual(seenServers, ["everything"])
        const prompt = prompts[0]!.content
        assert.deepStrictEqual(prompt.map((m) => m.role), ["system", "user"])
        assert.strictEqual(prompt[0]!.content, "You are a helpful test server.")
        assert.deepStrictEqual(client.stats().handlers?.answered, 1)
      }).pipe(Effect.scoped, Effect.provide(layer)))

    it.live("trigger-elicitation-request is answered with the form's defaults (and the one required field)", () =>
      Effect.gen(function*() {
        const forms: Array<Elicitation.FormRequest> = []
        const elicitation: Elicitation.Service = {
          form: (request) =>
            Effect.sync(() => forms.push(request)).pipe(
              Effect.as({ action: "accept" as const, content: { ...request.values, name: "Ada Lovelace" } })
            )
        }
        const client = yield* connect(wire, { elicitation })
        const text = texts(yield* client.callTool("trigger-elicitation-request", {})).join("\n")
        assert.include(text, "User provided the requested information")
        assert.include(text, "- Name: Ada Lovelace")
        assert.include(text, "- Favorite Integer: 42")
        assert.include(text, "- Favorite Number: 3.14")
        assert.deepStrictEqual(forms[0]?.values, {
          firstLine: "It was a dark and stormy night.",
          integer: 42,
          number: 3.14,
          untitledSingleSelectEnum: "Monica",
          untitledMultipleSelectEnum: ["Guitar"],
          titledSingleSelectEnum: "hero-1",
          titledMultipleSelectEnum: ["fish-1"],
          legacyTitledEnum: "pet-1"
        })
      }).pipe(Effect.scoped, Effect.provide(layer)))

    it.live("trigger-url-elicitation's -32042: the URL handler completes the prerequisite, the call is retried once", () =>
      Effect.gen(function*() {
        const urls: Array<Elicitation.UrlRequest> = []
        const elicitation: Elicitation.Service = {
          url: (request) => Effect.sync(() => urls.push(request)).pipe(Effect.as({ action: "accept" as const }))
        }
        const client = yield* connect(wire, { elicitation })
        const args = { url: "https://example.com/consent", errorPath: true, elicitationId: `fleet-${wire}` }
        const text = texts(yield* client.callTool("trigger-url-elicitation", args)).join("\n")
        assert.include(text, "User completed the URL elicitation flow")
        // The -32042's prerequisite first (another URL, the server's own id), then the retried call's own request.
        assert.deepStrictEqual(urls.map((r) => r.url), [
          "https://modelcontextprotocol.io",
          "https://example.com/consent"
        ])
        assert.strictEqual(urls[1]?.elicitationId, `fleet-${wire}`)
        assert.strictEqual(client.stats().requests["tools/call"], 2)
      }).pipe(Effect.scoped, Effect.provide(layer)))

    it.live("trigger-url-elicitation's -32042, declined: UrlElicitationRequired carrying the prerequisite", () =>
      Effect.gen(function*() {
        const client = yield* connect(wire, { elicitation: Elicitation.declineAll })
        const args = { url: "https://example.com/consent", errorPath: true, elicitationId: `fleet-declined-${wire}` }
        const error = yield* Effect.flip(client.callTool("trigger-url-elicitation", args))
        assert.instanceOf(error, McpError.UrlElicitationRequired)
        if (!(error instanceof McpError.UrlElicitationRequired)) return
        assert.strictEqual(error.outcome, "declined")
        assert.deepStrictEqual(error.elicitations.map((e) => e.url), ["https://modelcontextprotocol.io"])
        assert.strictEqual(client.stats().requests["tools/call"], 1)
      }).pipe(Effect.scoped, Effect.provide(layer)))

    it.live("roots/list is answered, and a change of roots is observed by the server (it asks again)", () =>
      Effect.gen(function*() {
        const roots = yield* Roots.make([{ uri: "file:///tmp/fleet-a", name: "a" }])
        const client = yield* connect(wire, { roots })
        // ~350 ms after initialized the server asks roots/list on its GET stream and logs the count it got. (A tool
        // call before that would race the GET stream's opening: the SDK drops what it sends before the stream exists.)
        assert.isTrue(Option.isSome(yield* logged(client, "Roots updated: 1 root(s)")))
        const first = texts(yield* client.callTool("get-roots-list", {})).join("\n")
        assert.include(first, "URI: file:///tmp/fleet-a")
        const updated = yield* Effect.forkChild(logged(client, "Roots updated: 2 root(s)"))
        yield* roots.set([{ uri: "file:///tmp/fleet-a", name: "a" }, "file:///tmp/fleet-b"])
        assert.isTrue(Option.isSome(yield* Fiber.join(updated)))
        const second = texts(yield* client.callTool("get-roots-list", {})).join("\n")
        assert.include(second, "URI: file:///tmp/fleet-b")
        assert.deepStrictEqual(client.stats().handlers?.answered, 2)
      }).pipe(Effect.scoped, Effect.provide(layer)))
  })
}
