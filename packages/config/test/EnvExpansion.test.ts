import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as EnvExpansion from "../src/EnvExpansion.ts"

const env: EnvExpansion.Environment = { HOME: "/home/ada", EMPTY: "", TOKEN: "s3cr3t", DOLLAR: "$x", UNSET: undefined }

const ok = (template: string): string => {
  const result = EnvExpansion.expand(template, env)
  if (Result.isFailure(result)) assert.fail(`expected success, got ${result.failure._tag}`)
  return result.success
}

const issue = (template: string): EnvExpansion.ExpansionIssue => {
  const result = EnvExpansion.expand(template, env)
  if (Result.isSuccess(result)) assert.fail(`expected an issue, got ${JSON.stringify(result.success)}`)
  return result.failure
}

describe("EnvExpansion", () => {
  it("leaves text without placeholders alone", () => {
    assert.strictEqual(ok(""), "")
    assert.strictEqual(ok("plain text, ünïcødé, 日本"), "plain text, ünïcødé, 日本")
  })

  it("expands ${NAME} anywhere in the text, as often as it occurs", () => {
    assert.strictEqual(ok("${HOME}"), "/home/ada")
    assert.strictEqual(ok("${HOME}/a:${HOME}/b"), "/home/ada/a:/home/ada/b")
    assert.strictEqual(ok("Bearer ${TOKEN}"), "Bearer s3cr3t")
  })

  it("accepts VS Code's ${env:NAME} spelling", () => {
    assert.strictEqual(ok("${env:HOME}/x"), "/home/ada/x")
    assert.strictEqual(ok("${env:NOPE:-d}"), "d")
  })

  it("uses the :-default when the variable is unset or empty, and the value otherwise", () => {
    assert.strictEqual(ok("${NOPE:-fallback}"), "fallback")
    assert.strictEqual(ok("${UNSET:-fallback}"), "fallback")
    assert.strictEqual(ok("${EMPTY:-fallback}"), "fallback")
    assert.strictEqual(ok("${HOME:-fallback}"), "/home/ada")
    assert.strictEqual(ok("${NOPE:-}"), "")
    assert.strictEqual(ok("${NOPE:-a b:c/${x}"), "a b:c/${x", "the default is literal text up to the first }")
  })

  it("keeps an empty but set variable as empty", () => {
    assert.strictEqual(ok("[${EMPTY}]"), "[]")
  })

  it("treats $$ as one literal dollar and never expands it further", () => {
    assert.strictEqual(ok("$$"), "$")
    assert.strictEqual(ok("$${HOME}"), "${HOME}")
    assert.strictEqual(ok("cost: $$5"), "cost: $5")
    assert.strictEqual(ok("$$$${HOME}"), "$${HOME}")
    assert.strictEqual(ok("$$${HOME}"), "$/home/ada")
  })

  it("keeps a lone $ that is not followed by { or $", () => {
    assert.strictEqual(ok("$HOME and 5$ and $"), "$HOME and 5$ and $")
  })

  it("does not expand values again", () => {
    assert.strictEqual(ok("${DOLLAR}"), "$x")
    const recursive = EnvExpansion.expand("${A}", { A: "${B}", B: "no" })
    assert.deepStrictEqual(recursive, Result.succeed("${B}"))
  })

  it("fails on an unset variable, naming it", () => {
    assert.deepStrictEqual(issue("${NOPE}"), { _tag: "MissingVariable", variable: "NOPE" })
    assert.deepStrictEqual(issue("${UNSET}"), { _tag: "MissingVariable", variable: "UNSET" })
    assert.deepStrictEqual(issue("${HOME}/${FIRST}/${SECOND}"), { _tag: "MissingVariable", variable: "FIRST" })
  })

  it("never resolves a name through Object.prototype", () => {
    assert.deepStrictEqual(issue("${constructor}"), { _tag: "MissingVariable", variable: "constructor" })
    assert.deepStrictEqual(issue("${toString}"), { _tag: "MissingVariable", variable: "toString" })
  })

  it("reports VS Code's ${input:ID} as a prompt input, and suggests a variable name for it", () => {
    assert.deepStrictEqual(issue("${input:apiKey}"), { _tag: "PromptInput", id: "apiKey" })
    assert.deepStrictEqual(issue("Bearer ${input:perplexity-key}"), { _tag: "PromptInput", id: "perplexity-key" })
    assert.strictEqual(EnvExpansion.suggestedVariable("perplexity-key"), "PERPLEXITY_KEY")
    assert.strictEqual(EnvExpansion.suggestedVariable("apiKey"), "APIKEY")
    assert.strictEqual(EnvExpansion.suggestedVariable("1st"), "_1ST")
  })

  it("resolves ${workspaceFolder} and ${userHome} from the predefined values, never ${env:…} from them", () => {
    const predefined = { workspaceFolder: "/work/app", userHome: "/home/ada" }
    assert.deepStrictEqual(
      EnvExpansion.expand("${workspaceFolder}/x:${userHome}", {}, predefined),
      Result.succeed("/work/app/x:/home/ada")
    )
    assert.deepStrictEqual(
      EnvExpansion.expand("${env:userHome}", { userHome: "from-env" }, predefined),
      Result.succeed("from-env")
    )
    assert.deepStrictEqual(
      EnvExpansion.expand("${workspaceFolder}", {}),
      Result.fail({
        _tag: "MissingVariable",
        variable: "workspaceFolder"
      })
    )
  })

  it("fails on malformed placeholders with their offset", () => {
    assert.deepStrictEqual(issue("ab${HOME"), { _tag: "MalformedPlaceholder", offset: 2 })
    assert.deepStrictEqual(issue("${}"), { _tag: "MalformedPlaceholder", offset: 0 })
    assert.deepStrictEqual(issue("x ${1ABC}"), { _tag: "MalformedPlaceholder", offset: 2 })
    assert.deepStrictEqual(issue("${A-B}"), { _tag: "MalformedPlaceholder", offset: 0 })
    assert.deepStrictEqual(issue("${ HOME }"), { _tag: "MalformedPlaceholder", offset: 0 })
  })

  it("$$ escapes a dollar, also before a brace (the case the round-trip property found)", () => {
    assert.deepStrictEqual(EnvExpansion.expand("$${", env), Result.succeed("${"))
    assert.deepStrictEqual(EnvExpansion.expand("a$$${HOME}", { HOME: "/h" }), Result.succeed("a$/h"))
  })

  it.prop(
    "a template without $ is returned unchanged, and $-escaping any text round-trips",
    [Schema.String],
    ([text]) => {
      // A function replacement: the string "$$" would be replaceAll's own escape for one "$".
      const escaped = text.replaceAll("$", () => "$$")
      assert.deepStrictEqual(EnvExpansion.expand(escaped, env), Result.succeed(text))
      if (!text.includes("$")) assert.deepStrictEqual(EnvExpansion.expand(text, {}), Result.succeed(text))
    }
  )

  it.prop("${NAME} yields exactly the variable's value, whatever it holds", [Schema.String], ([value]) => {
    assert.deepStrictEqual(EnvExpansion.expand("<${V}>", { V: value }), Result.succeed(`<${value}>`))
  })
})
