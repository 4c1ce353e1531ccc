import { assert, describe, it } from "@effect/vitest"
import type { ServerHealth } from "@mcp-fleet/manager"
import { StatusText } from "@mcp-fleet/manager"

const offline = (name: string): ServerHealth.ServerHealth => ({
  name,
  state: "offline",
  transport: "stdio",
  url: undefined,
  tools: [],
  curated: [],
  curatedCount: 0,
  curatedMissing: [],
  instructions: undefined,
  lastError: undefined,
  attempt: 0,
  maxAttempts: 0,
  gaveUp: false,
  listChangedPending: false,
  pid: undefined,
  stderrTail: [],
  since: 0
})

const fleet = (count: number) => Array.from({ length: count }, (_, i) => offline(`s${i}`))
const lastLine = (text: string) => text.split("\n").at(-1)

describe("StatusText: the hidden servers' line", () => {
  it("one hidden server reads `+1 more server`, two read `+2 more servers`", () => {
    assert.strictEqual(lastLine(StatusText.renderStatusLines(fleet(3), 2)), "+1 more server")
    assert.strictEqual(lastLine(StatusText.renderStatusLines(fleet(4), 2)), "+2 more servers")
  })

  it("no such line when every server is shown", () => {
    assert.strictEqual(StatusText.renderStatusLines(fleet(2), 2).split("\n").length, 3)
    assert.strictEqual(lastLine(StatusText.renderStatusLines(fleet(2), 2)), StatusText.formatServerLine(offline("s1")))
  })
})

describe("StatusText: the protocol era", () => {
  it("a modern server's line says its era and version; a legacy one's line is as before", () => {
    const ready: ServerHealth.ServerHealth = { ...offline("m"), state: "ready" }
    const modern = { ...ready, protocol: { era: "modern", version: "2026-07-28" } } as const
    const legacy = { ...ready, protocol: { era: "legacy", version: "2025-11-25" } } as const
    assert.strictEqual(
      StatusText.formatServerLine(modern),
      "m: ready · 0 tools (0 curated, 0 external) · modern 2026-07-28"
    )
    assert.strictEqual(StatusText.formatServerLine(legacy), StatusText.formatServerLine(ready))
  })
})
