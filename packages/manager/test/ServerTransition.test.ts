import { assert, describe, it } from "@effect/vitest"
import { ServerState, ServerTransition } from "@mcp-fleet/manager"

type State = ServerState.State
type Event = ServerTransition.Event

const tool = { name: "t", inputSchema: { type: "object" } } as const

const S = {
  starting: { _tag: "Starting", attempt: 0, pid: undefined, listChangedPending: false, lastError: undefined },
  startingPid: { _tag: "Starting", attempt: 2, pid: 7, listChangedPending: false, lastError: "boom" },
  startingPending: { _tag: "Starting", attempt: 0, pid: 7, listChangedPending: true, lastError: undefined },
  ready: { _tag: "Ready", pid: 7, tools: [tool], instructions: "hi", note: undefined },
  degraded: { _tag: "Degraded", pid: 7, reason: "tools/list failed", instructions: "hi", initializeFailed: false },
  offline: { _tag: "Offline", lastError: "exited 1", attempt: 2, nextRetryAt: undefined },
  gaveUp: { _tag: "GaveUp", lastError: "exited 1", attempts: 5, reason: "gave up reconnecting after 5 attempts" },
  needsAuth: { _tag: "NeedsAuthorization", reason: "no prompt", advice: "run `mcp-fleet auth login x`" },
  disabled: { _tag: "Disabled" },
  removed: { _tag: "Removed" }
} satisfies Record<string, State>

const E = {
  spawned: { _tag: "Spawned", pid: 9 },
  slow: { _tag: "InitializeSlow", note: "still waiting" },
  initFailed: { _tag: "InitializeFailed", error: "bad version" },
  listChanged: { _tag: "ListChangedSeen" },
  listed: { _tag: "Listed", tools: [tool], instructions: "i", note: undefined },
  listedEmpty: { _tag: "Listed", tools: [], instructions: undefined, note: undefined },
  listFailed: { _tag: "ListFailed", reason: "timeout" },
  exited: { _tag: "Exited", lastError: "exited 3" },
  spawnFailed: { _tag: "SpawnFailed", lastError: "not found" },
  retry: { _tag: "RetryScheduled", attempt: 3, at: 4_000 },
  gaveUp: { _tag: "GaveUp", reason: "crashes on every start" },
  unauthorized: { _tag: "AuthorizationRequired", reason: "refresh refused", advice: "log in" },
  restarted: { _tag: "Restarted" },
  reconfigured: { _tag: "Reconfigured" },
  disable: { _tag: "Disabled" },
  enable: { _tag: "Enabled" },
  removed: { _tag: "Removed" }
} satisfies Record<string, Event>

type S = keyof typeof S
type E = keyof typeof E

const fresh = (attempt: number, lastError: string | undefined, pid?: number): State => ({
  _tag: "Starting",
  attempt,
  pid,
  listChangedPending: false,
  lastError
})

/** Every legal transition, with the state it leads to. Any (state, event) pair not listed here is refused. */
const legal: ReadonlyArray<readonly [S, E, State]> = [
  ["starting", "spawned", { ...S.starting, pid: 9 }],
  ["offline", "spawned", fresh(2, "exited 1", 9)],
  ...(["starting", "startingPid", "startingPending"] as const).flatMap((s) => [
    [s, "slow", { ...S[s], lastError: "still waiting" }] as const,
    [s, "initFailed", {
      _tag: "Degraded",
      pid: S[s].pid,
      reason: "bad version",
      instructions: undefined,
      initializeFailed: true
    }] as const
  ]),
  ["starting", "listChanged", { ...S.starting, listChangedPending: true }],
  ["startingPid", "listChanged", { ...S.startingPid, listChangedPending: true }],
  ...(["starting", "startingPid", "startingPending", "ready", "degraded"] as const).flatMap((s) => [
    [s, "listed", { _tag: "Ready", pid: S[s].pid, tools: [tool], instructions: "i", note: undefined }] as const,
    [s, "listedEmpty", {
      _tag: "Degraded",
      pid: S[s].pid,
      reason: "the server lists no tools",
      instructions: undefined,
      initializeFailed: false
    }] as const,
    [s, "listFailed", {
      _tag: "Degraded",
      pid: S[s].pid,
      reason: "timeout",
      instructions: s === "ready" || s === "degraded" ? "hi" : undefined,
      initializeFailed: false
    }] as const,
    [s, "exited", {
      _tag: "Offline",
      lastError: "exited 3",
      attempt: s === "startingPid" ? 2 : 0,
      nextRetryAt: undefined
    }] as const
  ]),
  ["starting", "spawnFailed", { _tag: "Offline", lastError: "not found", attempt: 0, nextRetryAt: undefined }],
  ["offline", "spawnFailed", { ...S.offline, lastError: "not found" }],
  ["offline", "retry", { ...S.offline, attempt: 3, nextRetryAt: 4_000 }],
  ["offline", "gaveUp", { _tag: "GaveUp", lastError: "exited 1", attempts: 2, reason: "crashes on every start" }],
  ...(["starting", "startingPid", "startingPending", "ready", "degraded", "offline"] as const).map((s) =>
    [s, "unauthorized", { _tag: "NeedsAuthorization", reason: "refresh refused", advice: "log in" }] as const
  ),
  ...(["starting", "startingPid", "startingPending", "ready", "degraded", "offline", "gaveUp", "needsAuth"] as const)
    .flatMap((
      s
    ) => [
      [s, "restarted", fresh(0, undefined)] as const,
      [s, "disable", S.disabled] as const
    ]),
  ["disabled", "enable", fresh(0, undefined)],
  ...(Object.keys(S) as Array<S>).filter((s) => s !== "removed").flatMap((s) => [
    [s, "reconfigured", S[s]] as const,
    [s, "removed", S.removed] as const
  ])
]

describe("ServerTransition.next", () => {
  const table = new Map(legal.map(([s, e, to]) => [`${s} × ${e}`, to]))

  it("the table has no duplicate rows", () => {
    assert.strictEqual(table.size, legal.length)
  })

  for (const s of Object.keys(S) as Array<S>) {
    for (const e of Object.keys(E) as Array<E>) {
      const expected = table.get(`${s} × ${e}`)
      it(`${s} × ${e} → ${expected === undefined ? "refused" : expected._tag}`, () => {
        assert.deepStrictEqual(ServerTransition.next(S[s], E[e]), expected)
      })
    }
  }

  it("a kind is derived for every state, and GaveUp reads as offline (never ready)", () => {
    assert.strictEqual(ServerState.kindOf(S.gaveUp), "offline")
    assert.strictEqual(ServerState.kindOf(S.ready), "ready")
    assert.strictEqual(ServerState.kindOf(S.startingPending), "starting")
    assert.isFalse(ServerState.isLive(S.offline))
    assert.isTrue(ServerState.isLive(S.degraded))
    // Waiting for the user to authorize is neither offline nor starting, and takes no calls.
    assert.strictEqual(ServerState.kindOf(S.needsAuth), "unauthorized")
    assert.isFalse(ServerState.isLive(S.needsAuth))
  })
})
