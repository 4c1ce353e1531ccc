import { describe, expect, it } from "vitest"
import * as CallOutput from "../src/CallOutput.ts"

describe("CallOutput", () => {
  it("prints text blocks as they are, one per line", () => {
    expect(CallOutput.render({ content: [{ type: "text", text: "one" }, { type: "text", text: "two\nlines" }] })).toBe(
      "one\ntwo\nlines"
    )
  })

  it("prefers structured content, as indented JSON, over its text copy", () => {
    const result = { content: [{ type: "text", text: "{\"n\":1}" }], structuredContent: { n: 1 } }
    expect(CallOutput.render(result)).toBe("{\n  \"n\": 1\n}")
    expect(CallOutput.renderContent(result)).toBe("{\"n\":1}")
  })

  it("describes binary and linked blocks instead of dumping them", () => {
    expect(CallOutput.renderBlock({ type: "image", mimeType: "image/png", data: "AAAA" })).toBe(
      "[image image/png, 3 bytes]"
    )
    expect(CallOutput.renderBlock({ type: "resource_link", uri: "file:///a.txt", name: "a.txt" })).toBe(
      "[resource link file:///a.txt a.txt]"
    )
    expect(CallOutput.renderBlock({ type: "resource", resource: { uri: "file:///a", text: "body" } })).toBe("body")
    expect(CallOutput.renderBlock({ type: "resource", resource: { uri: "file:///b", mimeType: "x/y", blob: "AAAA" } }))
      .toBe("[resource file:///b x/y, 3 bytes]")
    expect(CallOutput.renderBlock({ type: "future_kind", value: 1 })).toBe("{\"type\":\"future_kind\",\"value\":1}")
  })
})
