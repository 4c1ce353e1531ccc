/**
 * An `effect/ai` agent that uses the whole fleet as its toolkit. Run: `node packages/ai/examples/agent.ts`.
 *
 * The language model here is scripted (no network, no API key). Its first turn calls one read-only tool and
 * one tool that fails; its second turn reads the two tool results it was given and answers. With a real
 * provider, replace `ScriptedModel` by that provider's `LanguageModel` layer: nothing else changes.
 * The servers are the test kit's fake server; use any stdio MCP servers instead.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { FleetToolkit } from "@mcp-fleet/ai"
import { McpManager } from "@mcp-fleet/manager"
import { FakeServer } from "@mcp-fleet/testing"
import { Console, Effect, Layer, Stream } from "effect"
import { LanguageModel, Prompt } from "effect/ai"
import type { Response } from "effect/ai"

const Fleet = McpManager.layer({
  servers: { notes: FakeServer.command({ modes: ["annotations"] }) }
}).pipe(Layer.provide(NodeServices.layer))

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } }

/** What the model was given as tool results, one line each, in the order of its calls (they run concurrently). */
const toolResultsIn = (prompt: Prompt.Prompt): Array<string> =>
  prompt.content.flatMap((message) => message.role === "tool" ? message.content : [])
    .flatMap((part) => part.type === "tool-result" ? [part] : [])
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((part) => `${part.id} ${part.name} ${part.isFailure ? "failed" : "ok"}: ${JSON.stringify(part.result)}`)

/** Turn 1: call a read-only tool and a failing one. Turn 2: answer from what came back. */
const ScriptedModel = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.gen(function*() {
        const received = toolResultsIn(options.prompt)
        if (received.length === 0) {
          const offered = options.tools.map((tool) => tool.name)
          yield* Console.log(`model was offered ${offered.length} tools, among them ${offered.slice(0, 3).join(", ")}`)
          const parts: Array<Response.PartEncoded> = [
            { type: "tool-call", id: "call_1", name: "notes__hint_read_only", params: {} },
            { type: "tool-call", id: "call_2", name: "notes__change_tools", params: { burst: -1 } },
            { type: "finish", reason: "tool-calls", usage }
          ]
          return parts
        }
        for (const line of received) yield* Console.log(`model received: ${line}`)
        const parts: Array<Response.PartEncoded> = [
          { type: "text", text: `I got ${received.length} tool results.` },
          { type: "finish", reason: "stop", usage }
        ]
        return parts
      }),
    streamText: () => Stream.empty
  })
)

const program = Effect.gen(function*() {
  const manager = yield* McpManager.McpManager
  yield* manager.waitForReady("notes")
  // An Effect, not a value: every turn reads the fleet as it is then.
  const toolkit = FleetToolkit.toolkit(manager)
  const prompt = Prompt.make("Read my notes, then reset the tool set.")
  const first = yield* LanguageModel.generateText({ prompt, toolkit })
  const second = yield* LanguageModel.generateText({
    prompt: Prompt.concat(prompt, Prompt.fromResponseParts(first.content)),
    toolkit
  })
  yield* Console.log(`answer: ${second.text}`)
}).pipe(Effect.provide(Layer.merge(Fleet, ScriptedModel)))

NodeRuntime.runMain(program)
