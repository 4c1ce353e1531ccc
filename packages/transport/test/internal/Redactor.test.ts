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

describe("Redactor: redact before you cut", () => {
  const SECRET = "tok_Z9qX3vK7mW2pL5nR8sT4"
  const r = Redactor.make([SECRET])

  it("excerpt replaces the secret before it cuts: at every offset across the cut, no piece of it shows", () => {
    for (let start = 160 - SECRET.length + 1; start < 160; start++) {
      const text = `${"x".repeat(start)}${SECRET}${"y".repeat(300)}`
      const out = r.excerpt(text)
      assert.include(out, `${"x".repeat(start)}<redacted>`.slice(0, 160), `token at ${start}`)
      assert.notInclude(out, SECRET.slice(0, 8), `token at ${start}`)
      assert.match(out, /… \(\d+ more characters\)$/)
    }
  })

  it("excerpt replaces a prefix of a secret of 8 characters or more that stands against the cut; 7 may show", () => {
    for (let k = 1; k < SECRET.length; k++) {
      const out = r.excerpt(`${"x".repeat(160 - k)}${SECRET.slice(0, k)}${"y".repeat(50)}`)
      if (k >= Redactor.MIN_FRAGMENT) assert.isTrue(out.startsWith(`${"x".repeat(160 - k)}<redacted>…`), `${k}: ${out}`)
      else assert.isTrue(out.startsWith(`${"x".repeat(160 - k)}${SECRET.slice(0, k)}…`), `${k}: ${out}`)
    }
    // A prefix that does not stand against the cut is not a secret's piece: it stays.
    assert.strictEqual(r.excerpt(`a ${SECRET.slice(0, 12)} b`), `a ${SECRET.slice(0, 12)} b`)
  })

  it("fragment replaces a secret's suffix against a cut start and its prefix against a cut end", () => {
    const tail = SECRET.slice(-10)
    const head = SECRET.slice(0, 10)
    assert.strictEqual(r.fragment(`${tail} middle ${head}`, { start: true, end: true }), "<redacted> middle <redacted>")
    assert.strictEqual(r.fragment(`${tail} middle ${head}`, {}), `${tail} middle ${head}`)
    assert.strictEqual(r.fragment(`${tail} ${SECRET} x`, { start: true }), "<redacted> <redacted> x")
    assert.strictEqual(r.fragment(SECRET.slice(-7), { start: true }), SECRET.slice(-7), "7 characters pass")
  })

  it("none: no secret, but excerpt still makes one line and cuts", () => {
    assert.isFalse(Redactor.none.active)
    assert.strictEqual(Redactor.none.excerpt("a\nb"), "a\\nb")
    assert.strictEqual(Redactor.none.excerpt("x".repeat(170)), `${"x".repeat(160)}… (10 more characters)`)
  })
})
