/**
 * The surface's gathering and its grace period: an offline server's items stay listed, marked offline, for exactly
 * the grace period; a removed or disabled server's items go at once; a comeback starts over.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ServerHealth, ServerState } from "@mcp-fleet/manager"
import type { Tool } from "@mcp-fleet/transport"
import * as Surface from "../src/server/Surface.ts"

const health = (name: string, state: ServerState.ServerState): ServerHealth.ServerHealth => ({
  name,
  state,
  transport: "stdio",
  url: undefined,
  tools: [],
  curated: [],
  curatedCount: 0,
  curatedMissing: [],
  instructions: undefined,
  lastError: state === "ready" ? undefined : "exit code 1",
  attempt: 0,
  maxAttempts: 5,
  gaveUp: false,
  listChangedPending: false,
  pid: undefined,
  stderrTail: [],
  since: 0
})

const tool = (name: string): Tool.DiscoveredTool => ({ name, inputSchema: { type: "object" } })

const input = (states: Record<string, ServerState.ServerState>, now: number): Surface.Input => ({
  healths: Object.entries(states).map(([name, state]) => health(name, state)),
  tools: Object.entries(states).flatMap(([server, state]) =>
    state === "ready" ? [{ server, tool: tool(`${server}_tool`) }] : []
  ),
  prompts: [],
  resources: Object.entries(states).flatMap(([server, state]) =>
    state === "ready" ? [{ server, resource: { uri: `test://${server}`, name: server } }] : []
  ),
  templates: [],
  now
})

const names = (surface: Surface.Surface) => surface.tools.map((t) => `${t.item.name}${t.offline ? " (offline)" : ""}`)

describe("Surface", () => {
  it("lists each ready server's items with its server; disabled servers are not part of the fleet", () => {
    const { surface } = Surface.build(
      input({ b: "ready", a: "ready", off: "disabled" }, 0),
      Surface.emptyMemory,
      { graceMs: 1_000 }
    )
    assert.deepStrictEqual(names(surface), ["a_tool", "b_tool"])
    assert.deepStrictEqual(surface.servers, ["a", "b"])
    assert.deepStrictEqual(surface.resources.map((r) => r.server), ["a", "b"])
    assert.strictEqual(surface.nextExpiry, undefined)
  })

  it("keeps an offline server's items, marked offline, for exactly the grace period", () => {
    const first = Surface.build(input({ a: "ready", b: "ready" }, 0), Surface.emptyMemory, { graceMs: 1_000 })
    const down = Surface.build(input({ a: "ready", b: "offline" }, 5_000), first.memory, { graceMs: 1_000 })
    assert.deepStrictEqual(names(down.surface), ["a_tool", "b_tool (offline)"])
    assert.isTrue(down.surface.offline.has("b"))
    assert.strictEqual(down.surface.nextExpiry, 6_000)
    // Still within the period: the moment it went offline is kept, not reset by each build.
    const later = Surface.build(input({ a: "ready", b: "starting" }, 5_999), down.memory, { graceMs: 1_000 })
    assert.deepStrictEqual(names(later.surface), ["a_tool", "b_tool (offline)"])
    assert.strictEqual(later.surface.nextExpiry, 6_000)
    const expired = Surface.build(input({ a: "ready", b: "offline" }, 6_000), later.memory, { graceMs: 1_000 })
    assert.deepStrictEqual(names(expired.surface), ["a_tool"])
    assert.strictEqual(expired.surface.nextExpiry, undefined)
  })

  it("a removed server's items go at once; a comeback is live again and starts a new period when it leaves", () => {
    const first = Surface.build(input({ a: "ready", b: "ready" }, 0), Surface.emptyMemory, { graceMs: 1_000 })
    const removed = Surface.build(input({ a: "ready" }, 10), first.memory, { graceMs: 1_000 })
    assert.deepStrictEqual(names(removed.surface), ["a_tool"])
    const down = Surface.build(input({ a: "offline" }, 100), removed.memory, { graceMs: 1_000 })
    const back = Surface.build(input({ a: "ready" }, 500), down.memory, { graceMs: 1_000 })
    assert.deepStrictEqual(names(back.surface), ["a_tool"])
    const downAgain = Surface.build(input({ a: "offline" }, 2_000), back.memory, { graceMs: 1_000 })
    assert.deepStrictEqual(names(downAgain.surface), ["a_tool (offline)"])
    assert.strictEqual(downAgain.surface.nextExpiry, 3_000)
  })

  it("a server never seen ready has nothing to keep", () => {
    const { surface } = Surface.build(input({ a: "starting" }, 0), Surface.emptyMemory, { graceMs: 1_000 })
    assert.deepStrictEqual(surface.tools, [])
    assert.deepStrictEqual(surface.servers, ["a"])
  })
})
