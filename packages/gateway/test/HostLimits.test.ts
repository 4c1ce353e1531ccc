/**
 * HostLimits: the length each known host takes whole, from its `clientInfo.name`, with the key the gateway is
 * configured under; and what NameTable makes of it.
 */
import { assert, describe, it } from "@effect/vitest"
import { HostLimits, NameTable } from "@mcp-fleet/gateway"

describe("HostLimits", () => {
  it("each known host's rule, with the default key mcp-fleet", () => {
    const limit = (name: string) => HostLimits.forClient({ name }).maxLength
    assert.strictEqual(limit("claude-code"), 64 - "mcp__mcp-fleet__".length) // 48
    assert.strictEqual(limit("claude-ai"), 48)
    assert.strictEqual(limit("cursor-vscode"), 59 - "mcp-fleet".length) // 50
    assert.strictEqual(limit("Visual Studio Code"), 64 - "mcp_mcp-fleet_".length) // 50
    assert.strictEqual(limit("codex-mcp-client"), 48)
    assert.strictEqual(limit("some-agent"), 64)
  })

  it("client names compare without case; no clientInfo is the default", () => {
    assert.strictEqual(HostLimits.forClient({ name: "CURSOR-VSCODE" }).host, "Cursor")
    assert.deepStrictEqual(HostLimits.forClient(undefined).maxLength, 64)
  })

  it("the key the user chose changes the budget", () => {
    assert.strictEqual(HostLimits.forClient({ name: "cursor-vscode" }, { hostKey: "f" }).maxLength, 58)
    assert.strictEqual(HostLimits.forClient({ name: "claude-code" }, { hostKey: "fleet" }).maxLength, 52)
    // VS Code cuts its prefix at 18 characters whatever the key.
    assert.strictEqual(
      HostLimits.forClient({ name: "Visual Studio Code" }, { hostKey: "a-very-long-key-indeed" }).maxLength,
      64 - 18
    )
  })

  it("an override wins; a rule that leaves too little is raised to 16 and says so", () => {
    const override = HostLimits.forClient({ name: "cursor-vscode" }, { overrides: { "Cursor-VSCode": 40 } })
    assert.strictEqual(override.maxLength, 40)
    const tiny = HostLimits.forClient({ name: "claude-code" }, { hostKey: "k".repeat(60) })
    assert.deepStrictEqual([tiny.maxLength, tiny.clamped], [16, true])
  })

  it("a Cursor name of the fleet fits Cursor's rule: key + name under 60", () => {
    const { maxLength } = HostLimits.forClient({ name: "cursor-vscode" })
    const tool = "add_pull_request_review_comment_to_pending_review"
    const exposed = NameTable.make([{ server: "github", name: tool }], { maxLength }).exposedName("github", tool)!
    assert.isBelow(HostLimits.DEFAULT_HOST_KEY.length + exposed.length, 60)
  })
})
