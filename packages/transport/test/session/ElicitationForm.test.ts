/**
 * Elicitation form mode: SEP-1034 default filling and the check of an answer against the requested schema.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ElicitationForm from "../../src/session/ElicitationForm.ts"

/** The schema of the conformance scenario `elicitation-sep1034-client-defaults`, plus fields without defaults. */
const schema = {
  type: "object",
  properties: {
    name: { type: "string", description: "User name", default: "John Doe", minLength: 1, maxLength: 20 },
    age: { type: "integer", default: 30, minimum: 0, maximum: 150 },
    score: { type: "number", default: 95.5 },
    status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", default: true },
    tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["a"] },
    email: { type: "string", format: "email" },
    bad: { type: "string", default: null },
    obj: { type: "string", default: { no: 1 } },
    choice: { type: "string", oneOf: [{ const: "x", title: "X" }, { const: "y", title: "Y" }] }
  },
  required: ["name", "email"]
}

const read = () => {
  const read = ElicitationForm.readSchema(schema)
  if (typeof read === "string") throw new Error(read)
  return read
}

const check = () => {
  const compiled = ElicitationForm.compile(read())
  if (typeof compiled === "string") throw new Error(compiled)
  return compiled
}

describe("ElicitationForm", () => {
  it("defaults: every field whose default is a possible value, of every kind; others left out", () => {
    assert.deepStrictEqual(ElicitationForm.defaults(read()), {
      name: "John Doe",
      age: 30,
      score: 95.5,
      status: "active",
      verified: true,
      tags: ["a"]
    })
  })

  it("readSchema: says why a requestedSchema is not a flat object schema", () => {
    assert.strictEqual(ElicitationForm.readSchema(null), "requestedSchema is not an object")
    assert.strictEqual(ElicitationForm.readSchema({ type: "string" }), "requestedSchema's type is not \"object\"")
    assert.strictEqual(ElicitationForm.readSchema({ type: "object" }), "requestedSchema has no properties object")
    assert.match(String(ElicitationForm.readSchema({ type: "object", properties: { a: 1 } })), /"a" is not a schema/)
    assert.match(String(ElicitationForm.readSchema({ type: "object", properties: {}, required: [1] })), /required/)
  })

  it("check: the defaults plus the required fields pass", () => {
    assert.isUndefined(check()({ ...ElicitationForm.defaults(read()), email: "a@b.c" }))
  })

  it("check: each kind of mismatch is named", () => {
    const c = check()
    const base = { name: "Ann", email: "a@b.c" }
    assert.match(String(c({ email: "a@b.c" })), /Missing key.*name/)
    assert.match(String(c({ ...base, age: 1.5 })), /integer.*age/)
    assert.match(String(c({ ...base, age: 151 })), /age/)
    assert.match(String(c({ ...base, status: "gone" })), /status/)
    assert.match(String(c({ ...base, verified: "yes" })), /verified/)
    assert.match(String(c({ ...base, tags: ["c"] })), /tags/)
    assert.match(String(c({ ...base, choice: "z" })), /choice/)
    assert.match(String(c({ ...base, name: "" })), /name/)
    assert.match(String(c({ ...base, extra: "x" })), /extra/)
    assert.match(String(c({ ...base, nested: { a: 1 } })), /"nested" is not a string, number, boolean or string list/)
    assert.strictEqual(c([]), "the content is not an object")
  })

  it("compile: a keyword the importer cannot translate makes the schema unusable, not a crash", () => {
    const compiled = ElicitationForm.compile({
      type: "object",
      properties: { a: { type: "string", if: { minLength: 1 }, then: { maxLength: 2 } } }
    })
    assert.isString(compiled)
    assert.match(String(compiled), /requestedSchema cannot be checked/)
  })
})
