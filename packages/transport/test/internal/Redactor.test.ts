import { assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import * as Redactor from "../../src/internal/Redactor.ts"

describe("Redactor", () => {
  it("replaces every occurrence of every secret, longest first, in text and in JSON values", () => {
    const r = Redactor.make(["abc", "abcdef", ""])
    assert.isTrue(r.active)
    assert.strictEqual(r.text("x abcdef y abc z abcabc"), "x <redacted> y <redacted> z <redacted><redacted>")
    assert.deepStrictEqual(r.value({ abc: ["abcdef", 1, null, { k: "-abc-" }], n: 2 }), {
      "<redacted>": ["<redacted>", 1, null, { k: "-<redacted>-" }],
      n: 2
    })
  })

  it("fromEnv takes only Redacted values; without any it changes nothing", () => {
    const r = Redactor.fromEnv({ A: Redacted.make("secret-a"), B: "plain-b" })
    assert.strictEqual(r.text("secret-a plain-b"), "<redacted> plain-b")
    const none = Redactor.fromEnv({ B: "plain-b" })
    assert.isFalse(none.active)
    const value = { x: "plain-b" }
    assert.strictEqual(none.value(value), value)
  })
})
