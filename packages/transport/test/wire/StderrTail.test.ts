import { assert, describe, it } from "@effect/vitest"
import { StderrTail } from "../../src/wire/Stdio/StderrTail.ts"

const bytes = (text: string) => new TextEncoder().encode(text)

describe("StderrTail.push", () => {
  it("returns the lines each chunk completes, across chunk boundaries, as they are kept", () => {
    const tail = new StderrTail(2, 8)
    assert.deepStrictEqual(tail.push(bytes("npm err")), [])
    assert.deepStrictEqual(tail.push(bytes("or 404\r\n\nsecond\nthi")), ["npm erro…", "second"])
    assert.deepStrictEqual(tail.push(bytes("rd\n")), ["third"])
    assert.deepStrictEqual(tail.snapshot(), ["second", "third"])
  })

  it("returns nothing when no lines are kept", () => {
    assert.deepStrictEqual(new StderrTail(0, 8).push(bytes("a\nb\n")), [])
  })
})
