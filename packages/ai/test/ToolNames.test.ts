import { assert, describe, it } from "@effect/vitest"
import { ToolNames } from "@mcp-fleet/ai"

const valid = (name: string) => assert.match(name, ToolNames.VALID_NAME, name)

describe("ToolNames", () => {
  it("sanitise: every character outside [a-zA-Z0-9_-] becomes _, and empty text becomes `tool`", () => {
    assert.strictEqual(ToolNames.sanitize("my.notes__read file"), "my_notes__read_file")
    assert.strictEqual(ToolNames.sanitize("ünïcode/tool:v2"), "_n_code_tool_v2")
    assert.strictEqual(ToolNames.sanitize(""), "tool")
    assert.strictEqual(ToolNames.sanitize("ok-name_1"), "ok-name_1")
    for (const name of ["my.notes__read file", "", "ünïcode/tool:v2"]) valid(ToolNames.sanitize(name))
  })

  it("shorten: names over 64 characters keep 55, then _ and a digest, so a shared prefix still differs", () => {
    const a = `${"s".repeat(70)}__alpha`
    const b = `${"s".repeat(70)}__beta`
    const [sa, sb] = [ToolNames.sanitize(a), ToolNames.sanitize(b)]
    assert.lengthOf(sa, 64)
    assert.lengthOf(sb, 64)
    assert.notStrictEqual(sa, sb)
    assert.strictEqual(sa.slice(0, 55), a.slice(0, 55))
    assert.match(sa, /_[0-9a-f]{8}$/)
    assert.strictEqual(ToolNames.sanitize(a), sa, "deterministic")
    valid(sa)
    assert.strictEqual(ToolNames.sanitize("x".repeat(64)), "x".repeat(64), "64 is still whole")
  })

  it("assign: server order then listing order; the first keeps a name, later ones are reported", () => {
    const tool = (name: string) => ({ name, inputSchema: {} })
    const { collisions, named } = ToolNames.assign(
      [
        { server: "b", tool: tool("x") },
        { server: "a", tool: tool("x") },
        { server: "a", tool: tool("y") },
        { server: "c", tool: tool("x") }
      ],
      (_, t) => t
    )
    assert.deepStrictEqual(named.map((n) => `${n.server}/${n.tool.name}=${n.name}`), ["a/x=x", "a/y=y"])
    assert.deepStrictEqual(collisions.map((c) => `${c.server}/${c.tool} lost ${c.name} to ${c.keptBy.server}`), [
      "b/x lost x to a",
      "c/x lost x to a"
    ])
    assert.deepStrictEqual(
      ToolNames.assign([{ server: "s", tool: tool("t") }]).named.map((n) => n.name),
      ["s__t"],
      "the default naming is server__tool"
    )
  })
})
