import { assert, describe, it } from "@effect/vitest"
import { Cause, Exit, Schema } from "effect"
import { vi } from "vitest"
import * as Protocol from "../../src/Protocol.ts"
import * as WireDecoders from "../../src/session/WireDecoders.ts"
import * as Tool from "../../src/Tool.ts"

// A second, separately evaluated copy of the schema modules: its ASTs are new objects that the JIT compiler was
// never enabled for, so these decoders run the interpreter.
vi.resetModules()
const InterpretedProtocol = await import("../../src/Protocol.ts")
const InterpretedTool = await import("../../src/Tool.ts")

const interpreted = {
  initialize: Schema.decodeUnknownExit(InterpretedProtocol.InitializeResult),
  callResult: Schema.decodeUnknownExit(InterpretedProtocol.CallToolResult),
  tool: Schema.decodeUnknownExit(InterpretedTool.DiscoveredTool)
}

/** A plain object's entries in key order: values are compared, not the order of keys. */
const sortKeys = (value: unknown): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
    : value

/**
 * The outcome as text: the value with every key (absent keys stay absent; the order of keys is not compared: a
 * decoder may return the input as parsed or a copy with the declared keys first), or the error message.
 */
const outcome = (exit: Exit.Exit<unknown, Schema.SchemaError>): string => {
  if (Exit.isSuccess(exit)) {
    return `ok ${JSON.stringify(exit.value, (_key, value) => value === undefined ? "<undefined>" : sortKeys(value))}`
  }
  const error = Cause.findErrorOption(exit.cause)
  return error._tag === "Some" ? `error ${error.value.message}` : `defect ${Cause.pretty(exit.cause)}`
}

/** A small deterministic generator of wrong shapes around valid ones. */
const corpus = (valid: ReadonlyArray<unknown>, count: number): ReadonlyArray<unknown> => {
  let seed = 7
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
  const odd: ReadonlyArray<unknown> = [null, undefined, 0, -1.5, "", "x", true, false, [], {}, [1], { a: 1 }]
  const keys = [
    "name",
    "title",
    "inputSchema",
    "annotations",
    "readOnlyHint",
    "content",
    "type",
    "text",
    "isError",
    "structuredContent",
    "protocolVersion",
    "capabilities",
    "serverInfo",
    "version",
    "instructions",
    "extra"
  ]
  const mutate = (value: unknown, depth: number): unknown => {
    if (depth > 3 || random() < 0.15) return pick(odd)
    if (Array.isArray(value)) return value.map((item) => random() < 0.3 ? mutate(item, depth + 1) : item)
    if (typeof value === "object" && value !== null) {
      const copy: Record<string, unknown> = { ...value }
      for (const key of Object.keys(copy)) {
        const r = random()
        if (r < 0.15) delete copy[key]
        else if (r < 0.4) copy[key] = mutate(copy[key], depth + 1)
      }
      if (random() < 0.3) copy[pick(keys)] = mutate(pick(valid), depth + 1)
      return copy
    }
    return pick(odd)
  }
  return [...valid, ...Array.from({ length: count }, () => mutate(pick(valid), 0))]
}

describe("WireDecoders (JIT-compiled schemas, checked before decoding)", () => {
  it("decode exactly like the interpreted schemas: same values, same absent keys, same error messages", () => {
    assert.notStrictEqual(InterpretedProtocol.CallToolResult.ast, Protocol.CallToolResult.ast, "a separate copy")
    assert.notStrictEqual(InterpretedTool.DiscoveredTool.ast, Tool.DiscoveredTool.ast, "a separate copy")
    const validInit = {
      protocolVersion: "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "s", version: "1", title: "S", vendor: "v" },
      instructions: "use it",
      extra: [1]
    }
    const validCall = {
      content: [{ type: "text", text: "x" }, { type: "image", data: "AA==", mimeType: "image/png" }],
      structuredContent: { a: 1 },
      isError: false,
      _meta: {}
    }
    const validTool = {
      name: "t",
      title: "T",
      description: "d",
      inputSchema: { type: "object" },
      outputSchema: { type: "object" },
      annotations: { title: "a", readOnlyHint: true, destructiveHint: false, vendorHint: 1 },
      icons: [{ src: "x" }],
      _meta: { k: 1 },
      execution: {}
    }
    const cases = [
      {
        name: "initialize",
        compiled: WireDecoders.decodeInitialize,
        reference: interpreted.initialize,
        valid: validInit
      },
      {
        name: "tools/call",
        compiled: WireDecoders.decodeCallResult,
        reference: interpreted.callResult,
        valid: validCall
      },
      { name: "tool", compiled: WireDecoders.decodeTool, reference: interpreted.tool, valid: validTool }
    ]
    const inputs = corpus([validInit, validCall, validTool, { name: "bare", inputSchema: {} }], 1_000)
    let successes = 0
    for (const { compiled, name, reference } of cases) {
      for (const input of inputs) {
        const expected = outcome(reference(input))
        if (expected.startsWith("ok")) successes++
        assert.strictEqual(outcome(compiled(input)), expected, `${name}: ${JSON.stringify(input)}`)
      }
    }
    assert.isAbove(successes, 30, "the corpus has successes, not only failures")
  })

  it("decode a tools/list page like the interpreted envelope: same verdicts, same tools and cursor, same messages", () => {
    // The envelope as the transport reads it (internal to WireDecoders), interpreted here.
    const reference = Schema.decodeUnknownExit(
      Schema.Struct({ tools: Schema.Array(Schema.Unknown), nextCursor: Schema.optionalKey(Schema.String) })
    )
    const validPages = [
      { tools: [{ name: "a", inputSchema: {} }], nextCursor: "20" },
      { tools: [], _meta: { page: 1 } },
      { tools: [1, "x", null] }
    ]
    let successes = 0
    for (const input of corpus(validPages, 1_000)) {
      const expected = reference(input)
      const actual = WireDecoders.decodePage(input)
      if (Exit.isSuccess(expected)) {
        successes++
        assert.isTrue(Exit.isSuccess(actual), JSON.stringify(input))
        if (Exit.isSuccess(actual)) {
          assert.deepStrictEqual(actual.value.tools, expected.value.tools)
          assert.strictEqual("nextCursor" in actual.value, "nextCursor" in expected.value)
          assert.strictEqual(actual.value.nextCursor, expected.value.nextCursor)
        }
      } else {
        assert.strictEqual(outcome(actual), outcome(expected), JSON.stringify(input))
      }
    }
    assert.isAbove(successes, 10, "the corpus has successes, not only failures")
  })

  it("keep absent hints absent and unknown fields as sent", () => {
    const decoded = WireDecoders.decodeTool({
      name: "t",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: false },
      vendor: { x: 1 }
    })
    assert.isTrue(Exit.isSuccess(decoded))
    if (Exit.isSuccess(decoded)) {
      assert.deepStrictEqual(decoded.value, {
        name: "t",
        inputSchema: { type: "object" },
        annotations: { readOnlyHint: false },
        vendor: { x: 1 }
      })
      assert.isFalse("destructiveHint" in decoded.value.annotations!)
      assert.strictEqual(Tool.hint(decoded.value, "idempotentHint"), "absent")
    }
  })

  it("return a valid value as it was parsed (checked, not copied)", () => {
    const tool = { name: "t", inputSchema: { type: "object" } }
    const result = { content: [{ type: "text", text: "x" }] }
    const decodedTool = WireDecoders.decodeTool(tool)
    const decodedResult = WireDecoders.decodeCallResult(result)
    assert.isTrue(Exit.isSuccess(decodedTool) && decodedTool.value === tool)
    assert.isTrue(Exit.isSuccess(decodedResult) && decodedResult.value === result)
  })

  it("fail with the path of the wrong field", () => {
    const decoded = WireDecoders.decodeCallResult({ content: [{ type: "text" }, { text: "no type" }] })
    assert.isTrue(Exit.isFailure(decoded))
    assert.include(outcome(decoded), `["content"][1]["type"]`)
  })
})
