import type { Tool } from "@mcp-fleet/transport"
import { describe, expect, it } from "vitest"
import * as ToolListing from "../src/ToolListing.ts"

const tool = (name: string, extra: Partial<Tool.DiscoveredTool> = {}): Tool.DiscoveredTool => ({
  name,
  inputSchema: { type: "object" },
  ...extra
})

describe("ToolListing", () => {
  it("shows readOnlyHint tri-state: ro, rw, and ? when absent (never defaulted)", () => {
    expect(ToolListing.readOnlyTag(tool("a", { annotations: { readOnlyHint: true } }))).toBe("ro")
    expect(ToolListing.readOnlyTag(tool("b", { annotations: { readOnlyHint: false } }))).toBe("rw")
    expect(ToolListing.readOnlyTag(tool("c", { annotations: { destructiveHint: false } }))).toBe("?")
    expect(ToolListing.readOnlyTag(tool("d"))).toBe("?")
  })

  it("renders server__tool in a padded column with the first line of the description", () => {
    const text = ToolListing.renderText([
      {
        server: "fs",
        tool: tool("read_file", { description: "Read a file.\nMore detail.", annotations: { readOnlyHint: true } })
      },
      { server: "memory", tool: tool("x") }
    ])
    expect(text).toBe("fs__read_file  ro  Read a file.\nmemory__x      ?")
  })

  it("--json keeps hints as true, false or null, and lists unavailable servers", () => {
    const doc = ToolListing.toJson(
      [{ server: "fs", tool: tool("w", { annotations: { readOnlyHint: false, openWorldHint: true } }) }],
      []
    )
    expect(doc.tools[0]).toEqual({
      name: "fs__w",
      server: "fs",
      tool: "w",
      title: null,
      description: null,
      readOnly: false,
      destructive: null,
      idempotent: null,
      openWorld: true,
      inputSchema: { type: "object" }
    })
    expect(doc.unavailable).toEqual([])
  })
})
