/**
 * The CLI's sampling handler (`--sampling`): on a terminal the user types the model's answer (driven here by a
 * scripted terminal); an empty answer, no terminal, or `decline` refuses with the spec's `SamplingRefused`; what the
 * server wrote is shown with its control characters replaced.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { SamplingPrompt } from "@mcp-fleet/cli"
import { Sampling } from "@mcp-fleet/transport"
import { Effect, Terminal } from "effect"
import { TerminalCapabilities } from "effect/cli"
import { TestConsole } from "effect/testing"
import { enter, scripted, typed } from "./ScriptedTerminal.ts"

const request: Sampling.Request = {
  server: "everything",
  params: {
    maxTokens: 50,
    systemPrompt: "Be brief.\u001b[2J",
    messages: [
      { role: "user", content: { type: "text", text: "Weather in Paris?" } },
      { role: "assistant", content: [{ type: "text", text: "Which day?" }, { type: "image", data: "", mimeType: "x" }] }
    ],
    tools: [{ name: "get_weather", inputSchema: { type: "object" } }]
  }
}

const handlerFor = (mode: SamplingPrompt.Mode, keys: ReadonlyArray<Terminal.UserInput>, canPrompt: boolean) =>
  Effect.gen(function*() {
    const { terminal } = yield* scripted(keys)
    return yield* SamplingPrompt.forMode(mode).pipe(
      Effect.provideService(Terminal.Terminal, terminal),
      Effect.provideService(TerminalCapabilities.TerminalCapabilities, {
        canColor: false,
        canAnimate: false,
        canPrompt
      })
    )
  }).pipe(Effect.provide(NodeServices.layer))

describe("SamplingPrompt", () => {
  it("describe: who asks, the system prompt, each message, the tools offered; control characters replaced", () => {
    assert.strictEqual(
      SamplingPrompt.describe(request),
      [
        "everything asks to sample (at most 50 tokens):",
        "  system: Be brief. [2J",
        "  user: Weather in Paris?",
        "  assistant: Which day? [image]",
        "  tools offered: get_weather"
      ].join("\n")
    )
  })

  it.effect("on a terminal, the typed text is the model's answer", () =>
    Effect.gen(function*() {
      const handler = yield* handlerFor("ask", [...typed("Sunny, 18°C."), enter], true)
      assert.isUndefined(handler.tools, "a typed answer cannot call tools: sampling.tools is not declared")
      const answer = yield* handler.createMessage(request)
      assert.deepStrictEqual(answer, {
        role: "assistant",
        content: { type: "text", text: "Sunny, 18°C." },
        model: SamplingPrompt.MODEL,
        stopReason: "endTurn"
      })
    }))

  it.effect("an empty answer, no terminal, or decline: SamplingRefused with the reason, said on stderr", () =>
    Effect.gen(function*() {
      const cases = [
        [yield* handlerFor("ask", [enter], true), "the user did not answer"],
        [yield* handlerFor("ask", [], false), "there is no terminal to answer on"],
        [yield* handlerFor("decline", [...typed("x"), enter], true), "--sampling decline"]
      ] as const
      for (const [handler, reason] of cases) {
        const refused = yield* Effect.flip(handler.createMessage(request))
        assert.instanceOf(refused, Sampling.SamplingRefused)
        assert.strictEqual(refused instanceof Sampling.SamplingRefused ? refused.reason : undefined, reason)
      }
      const said = (yield* TestConsole.errorLines).map(String)
      assert.include(said.join("\n"), "mcp-fleet: refused: --sampling decline")
    }))
})
