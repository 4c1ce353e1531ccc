/**
 * ToolFilter: allow and deny globs (Effect's Glob, dot: true), deny winning, and readOnly with an absent hint
 * kept apart from a false one.
 */
import { assert, describe, it } from "@effect/vitest"
import { ToolFilter } from "@mcp-fleet/gateway"
import type { Tool } from "@mcp-fleet/transport"

const tool = (name: string, readOnlyHint?: boolean): Tool.DiscoveredTool =>
  readOnlyHint === undefined ? { name, inputSchema: {} } : { name, inputSchema: {}, annotations: { readOnlyHint } }

const tag = (filter: ToolFilter.ServerFilter, t: Tool.DiscoveredTool) => ToolFilter.compile(filter).decide(t)._tag

describe("ToolFilter", () => {
  it("no filter keeps everything", () => {
    assert.strictEqual(tag({}, tool("anything")), "Kept")
  })

  it("allow keeps only what matches; an empty allow keeps nothing", () => {
    const filter = { allow: ["read_*", "list_?"] }
    assert.strictEqual(tag(filter, tool("read_file")), "Kept")
    assert.strictEqual(tag(filter, tool("list_x")), "Kept")
    assert.strictEqual(tag(filter, tool("list_xy")), "Dropped")
    assert.strictEqual(tag(filter, tool("write_file")), "Dropped")
    assert.deepStrictEqual(ToolFilter.compile({ allow: [] }).decide(tool("x")), {
      _tag: "Dropped",
      reason: "the allow list is empty"
    })
  })

  it("deny wins over allow, and says which glob", () => {
    const decision = ToolFilter.compile({ allow: ["*"], deny: ["*_secret", "delete_*"] }).decide(tool("get_secret"))
    assert.deepStrictEqual(decision, { _tag: "Dropped", reason: "matches the deny glob \"*_secret\"" })
  })

  it("globs match the whole name, with case, including dotted names; braces and sets work", () => {
    assert.strictEqual(tag({ allow: ["read"] }, tool("read_file")), "Dropped")
    assert.strictEqual(tag({ allow: ["Read_*"] }, tool("read_file")), "Dropped")
    assert.strictEqual(tag({ allow: ["*"] }, tool(".hidden")), "Kept")
    assert.strictEqual(tag({ allow: ["admin.*"] }, tool("admin.tools.list")), "Kept")
    assert.strictEqual(tag({ allow: ["{read,list}_*"] }, tool("list_dir")), "Kept")
    assert.strictEqual(tag({ deny: ["[a-c]*"] }, tool("create")), "Dropped")
  })

  it("readOnly: true keeps only readOnlyHint true; absent and false are dropped for different reasons", () => {
    const compiled = ToolFilter.compile({ readOnly: true })
    assert.deepStrictEqual(compiled.decide(tool("r", true)), { _tag: "Kept" })
    assert.deepStrictEqual(compiled.decide(tool("w", false)), {
      _tag: "Dropped",
      reason: "readOnly: its readOnlyHint is false"
    })
    assert.deepStrictEqual(compiled.decide(tool("u")), {
      _tag: "Dropped",
      reason: "readOnly: it has no readOnlyHint (unknown, treated as a write)"
    })
  })

  it("readOnly: lenient drops only readOnlyHint false", () => {
    assert.strictEqual(tag({ readOnly: "lenient" }, tool("u")), "Kept")
    assert.strictEqual(tag({ readOnly: "lenient" }, tool("r", true)), "Kept")
    assert.strictEqual(tag({ readOnly: "lenient" }, tool("w", false)), "Dropped")
    assert.strictEqual(tag({ readOnly: false }, tool("w", false)), "Kept")
  })

  it("all: the first filter that drops says why", () => {
    const both = ToolFilter.all([ToolFilter.compile({ deny: ["x*"] }), ToolFilter.compile({ readOnly: true })])
    assert.strictEqual(both.decide(tool("xy", true))._tag, "Dropped")
    assert.strictEqual(both.decide(tool("ok", true))._tag, "Kept")
    const why = both.decide(tool("ok"))
    assert.match(why._tag === "Dropped" ? why.reason : "", /readOnly/)
  })
})
