/**
 * The CLI's elicitation handler: on a terminal, a prompt per field with the defaults prefilled (driven here by a
 * scripted terminal: keys in, screen out); without one, a refusal; URL mode prints the URL.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ElicitationPrompt } from "@mcp-fleet/cli"
import type { Elicitation } from "@mcp-fleet/transport"
import { Effect, Terminal } from "effect"
import { TerminalCapabilities } from "effect/cli"
import { TestConsole } from "effect/testing"
import { enter, key, scripted, typed } from "./ScriptedTerminal.ts"

const form: Elicitation.FormRequest = {
  _tag: "Form",
  server: "everything",
  message: "Who are you?\u001b[2J",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Name", default: "John" },
      age: { type: "integer", default: 30, minimum: 0 },
      verified: { type: "boolean", default: true },
      status: { type: "string", enum: ["active", "inactive"], default: "inactive" }
    },
    required: ["name"]
  },
  values: { name: "John", age: 30, verified: true, status: "inactive" }
}

const withTerminal = (keys: ReadonlyArray<Terminal.UserInput>, canPrompt: boolean) =>
  Effect.gen(function*() {
    const { shown, terminal } = yield* scripted(keys)
    const handler = yield* ElicitationPrompt.make.pipe(
      Effect.provideService(Terminal.Terminal, terminal),
      Effect.provideService(TerminalCapabilities.TerminalCapabilities, {
        canColor: false,
        canAnimate: false,
        canPrompt
      })
    )
    return { handler, shown }
  }).pipe(Effect.provide(NodeServices.layer))

describe("ElicitationPrompt", () => {
  it.effect("on a terminal, Enter on every field keeps the prefilled defaults, and the form is sent", () =>
    Effect.gen(function*() {
      const { handler, shown } = yield* withTerminal([enter, enter, enter, enter, enter], true)
      const answer = yield* handler.form!(form)
      assert.deepStrictEqual(answer, {
        action: "accept",
        content: { name: "John", age: 30, verified: true, status: "inactive" }
      })
      assert.isTrue(shown.some((s) => s.includes("Name")))
      assert.isFalse(shown.some((s) => s.includes("\u001b[2J")), "the server's escape sequence is not shown")
    }))

  it.effect("typed values replace the defaults; No at the end declines", () =>
    Effect.gen(function*() {
      const backspaces = Array.from({ length: 4 }, () => key("backspace"))
      const keys = [...backspaces, ...typed("Ann"), enter, key("backspace"), key("backspace"), ...typed("41"), enter]
      const { handler } = yield* withTerminal([...keys, enter, enter, enter], true)
      const answer = yield* handler.form!(form)
      assert.deepStrictEqual(answer, {
        action: "accept",
        content: { name: "Ann", age: 41, verified: true, status: "inactive" }
      })
      const declined = yield* withTerminal([enter, enter, enter, enter, key("n", "n")], true)
      assert.deepStrictEqual(yield* declined.handler.form!(form), { action: "decline" })
    }))

  it.effect("without a terminal, the form is refused (decline) and nothing is read", () =>
    Effect.gen(function*() {
      const { handler, shown } = yield* withTerminal([], false)
      assert.deepStrictEqual(yield* handler.form!(form), { action: "decline" })
      assert.deepStrictEqual(shown, [])
      const url = yield* handler.url!({
        _tag: "Url",
        server: "s",
        message: "sign in",
        elicitationId: "e",
        url: "https://example.com/a"
      })
      assert.deepStrictEqual(url, { action: "decline" })
      const said = (yield* TestConsole.errorLines).map(String)
      assert.match(said[0] ?? "", /everything asks: Who are you\? .*declined: there is no terminal/)
      assert.include(said[1] ?? "", "open: https://example.com/a")
    }).pipe(Effect.provide(TestConsole.layer)))

  it("printable replaces control characters", () => {
    assert.strictEqual(ElicitationPrompt.printable("a\u001b[31mb\nc\u009bd"), "a [31mb c d")
  })
})
