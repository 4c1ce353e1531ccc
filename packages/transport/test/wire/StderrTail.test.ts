import { assert, describe, it } from "@effect/vitest"
import * as Redactor from "../../src/internal/Redactor.ts"
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

describe("StderrTail: a secret across its bounds", () => {
  const SECRET = "env_Q4wE8rT2yU6iO0pA3sD7"
  const redactor = Redactor.make([SECRET])

  it("an unfinished line held from its end: the secret's suffix at its start is replaced in the snapshot", () => {
    for (let k = 8; k < SECRET.length; k++) {
      const tail = new StderrTail(4, 512, redactor)
      tail.push(bytes(`${"c".repeat(100)}${SECRET}${"d".repeat(512 - k)}`))
      const [line] = tail.snapshot()
      assert.isTrue(line!.startsWith("<redacted>d"), `${k}: ${line!.slice(0, 40)}`)
      assert.notInclude(line!, SECRET.slice(-8))
    }
  })

  it("a line over the bound: the secret is replaced before the cut; a piece against the cut too", () => {
    const tail = new StderrTail(4, 512, redactor)
    assert.deepStrictEqual(tail.push(bytes(`${"a".repeat(500)}${SECRET}b\n`)), [`${"a".repeat(500)}<redacted>b`])
    // Only a prefix of the secret at the bound (a server that printed part of it).
    const [cut] = tail.push(bytes(`${"a".repeat(500)}${SECRET.slice(0, 20)}${"b".repeat(40)}\n`))
    assert.strictEqual(cut, `${"a".repeat(500)}<redacted>…`)
  })
})
