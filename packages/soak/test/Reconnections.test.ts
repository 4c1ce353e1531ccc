import { assert, describe, it } from "@effect/vitest"
import type { ServerHealth, ServerState } from "@mcp-fleet/manager"
import * as Reconnections from "../src/Reconnections.ts"

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
  lastError: undefined,
  attempt: 0,
  maxAttempts: 5,
  gaveUp: false,
  listChangedPending: false,
  pid: undefined,
  stderrTail: [],
  since: 0
})

const feed = (counts: Reconnections.Reconnections, server: string, states: ReadonlyArray<ServerState.ServerState>) => {
  for (let i = 1; i < states.length; i++) {
    Reconnections.step(counts, { server, from: states[i - 1]!, to: states[i]!, health: health(server, states[i]!) })
  }
}

describe("Reconnections", () => {
  it("counts offline → starting → ready, per server", () => {
    const counts = Reconnections.make()
    feed(counts, "a", ["starting", "ready", "offline", "starting", "ready", "offline", "starting", "ready"])
    feed(counts, "b", ["starting", "ready", "offline", "starting"])
    assert.strictEqual(counts.reconnected, 2)
    assert.strictEqual(counts.wentOffline, 3)
    assert.strictEqual(counts.transitions, 10)
  })

  it("a restart (ready → starting → ready) and the first start are not reconnections", () => {
    const counts = Reconnections.make()
    feed(counts, "a", ["starting", "ready", "starting", "ready"])
    assert.strictEqual(counts.reconnected, 0)
    assert.strictEqual(counts.wentOffline, 0)
  })

  it("coming back degraded is counted apart; interleaved servers do not mix", () => {
    const counts = Reconnections.make()
    Reconnections.step(counts, { server: "a", from: "ready", to: "offline", health: health("a", "offline") })
    Reconnections.step(counts, { server: "a", from: "offline", to: "starting", health: health("a", "starting") })
    Reconnections.step(counts, { server: "b", from: "starting", to: "ready", health: health("b", "ready") })
    Reconnections.step(counts, { server: "a", from: "starting", to: "degraded", health: health("a", "degraded") })
    assert.strictEqual(counts.reconnected, 0)
    assert.strictEqual(counts.reconnectedDegraded, 1)
  })
})
