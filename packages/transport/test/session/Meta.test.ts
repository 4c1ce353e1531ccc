import { assert, describe, it } from "@effect/vitest"
import * as Meta from "../../src/session/Meta.ts"

describe("Meta.merge", () => {
  it("adds _meta to absent params", () => {
    assert.deepStrictEqual(Meta.merge(undefined, { traceparent: "t" }), { _meta: { traceparent: "t" } })
  })

  it("keeps every key of params and of an existing _meta (the caller's win) and adds the others", () => {
    const params = { name: "x", arguments: { a: 1 }, _meta: { progressToken: 7, traceparent: "caller" } }
    assert.deepStrictEqual(Meta.merge(params, { traceparent: "span", tracestate: "s" }), {
      name: "x",
      arguments: { a: 1 },
      _meta: { progressToken: 7, traceparent: "caller", tracestate: "s" }
    })
    assert.deepStrictEqual(params._meta, { progressToken: 7, traceparent: "caller" }, "the input is not changed")
  })

  it("replaces a _meta that is not an object, and leaves array params alone", () => {
    assert.deepStrictEqual(Meta.merge({ _meta: "junk" }, { k: 1 }), { _meta: { k: 1 } })
    assert.deepStrictEqual(Meta.merge([1, 2], { k: 1 }), [1, 2])
  })
})
