/**
 * `Readiness.next` as a table: every legal (state, event) pair with the state it leads to; every other pair is
 * refused (`undefined`). Then `settles`: what a move completes a waiting `awaitReady` with.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Protocol } from "@mcp-fleet/transport"
import { McpError } from "@mcp-fleet/transport"
import { Deferred, Exit } from "effect"
import * as Readiness from "../../src/session/Readiness.ts"

type State = Readiness.Readiness
type Event = Readiness.Event

const session: Protocol.ServerSession = {
  protocolVersion: "2025-11-25",
  serverInfo: { name: "s", version: "1" },
  capabilities: {},
  instructions: undefined,
  era: "legacy"
}
const renewed: Protocol.ServerSession = { ...session, instructions: "again" }
const done = Deferred.makeUnsafe<Protocol.ServerSession, McpError.InitializeError>()
const fresh = Deferred.makeUnsafe<Protocol.ServerSession, McpError.InitializeError>()
const failure = new McpError.RequestTimeout({ server: "s", method: "initialize", timeoutMs: 10 })
const closed = new McpError.ClientClosed({ server: "s", reason: "close was called" })
const exited = new McpError.ProcessExited({ server: "s", code: 1, signal: null, stderrTail: [] })

const S = {
  starting: { _tag: "Starting", done },
  ready: { _tag: "Ready", session },
  renewing: { _tag: "Renewing", session, done },
  failed: { _tag: "Failed", error: failure, refused: undefined, joined: false },
  failedRefused: { _tag: "Failed", error: failure, refused: closed, joined: false },
  failedJoined: { _tag: "Failed", error: failure, refused: closed, joined: true },
  closed: { _tag: "Closed", error: closed, joined: false },
  closedJoined: { _tag: "Closed", error: closed, joined: true }
} satisfies Record<string, State>

const E = {
  initialized: { _tag: "Initialized", session: renewed },
  initFailed: { _tag: "InitializeFailed", error: failure },
  lost: { _tag: "SessionLost", done: fresh },
  closed: { _tag: "Refused", error: closed },
  exited: { _tag: "Refused", error: exited },
  joined: { _tag: "Joined" }
} satisfies Record<string, Event>

type S = keyof typeof S
type E = keyof typeof E

/** Every legal transition, with the state it leads to. Any (state, event) pair not listed here is refused. */
const legal: ReadonlyArray<readonly [S, E, State]> = [
  ["starting", "initialized", { _tag: "Ready", session: renewed }],
  ["renewing", "initialized", { _tag: "Ready", session: renewed }],
  ["starting", "initFailed", S.failed],
  ["renewing", "initFailed", S.failed],
  ["ready", "lost", { _tag: "Renewing", session, done: fresh }],
  ["starting", "closed", S.closed],
  ["ready", "closed", S.closed],
  ["renewing", "closed", S.closed],
  ["starting", "exited", { _tag: "Closed", error: exited, joined: false }],
  ["ready", "exited", { _tag: "Closed", error: exited, joined: false }],
  ["renewing", "exited", { _tag: "Closed", error: exited, joined: false }],
  // A failed handshake keeps its error as why; the end only adds what new requests are refused with.
  ["failed", "closed", S.failedRefused],
  ["failed", "exited", { ...S.failed, refused: exited }],
  ["failedRefused", "joined", S.failedJoined],
  ["closed", "joined", S.closedJoined]
]

describe("Readiness.next", () => {
  const states = Object.keys(S) as ReadonlyArray<S>
  const events = Object.keys(E) as ReadonlyArray<E>

  it("moves every legal pair to its state", () => {
    for (const [state, event, expected] of legal) {
      assert.deepStrictEqual(Readiness.next(S[state], E[event]), expected, `${state} × ${event}`)
    }
  })

  it("refuses every other pair", () => {
    for (const state of states) {
      for (const event of events) {
        if (legal.some(([s, e]) => s === state && e === event)) continue
        assert.isUndefined(Readiness.next(S[state], E[event]), `${state} × ${event} is refused`)
      }
    }
  })

  it("the first end wins: a second Refused changes nothing", () => {
    const first = Readiness.next(S.ready, E.exited)!
    assert.isUndefined(Readiness.next(first, E.closed))
    assert.strictEqual(Readiness.refusal(first), exited)
  })
})

describe("Readiness.settles", () => {
  it("a waiting done completes with the session, or with the error of the end", () => {
    assert.deepStrictEqual(Readiness.settles(S.starting, S.ready), Exit.succeed(session))
    assert.deepStrictEqual(Readiness.settles(S.renewing, S.ready), Exit.succeed(session))
    assert.deepStrictEqual(Readiness.settles(S.starting, S.failed), Exit.fail(failure))
    assert.deepStrictEqual(Readiness.settles(S.renewing, S.closed), Exit.fail(closed))
  })

  it("nothing waits outside Starting and Renewing", () => {
    assert.isUndefined(Readiness.settles(S.ready, S.renewing))
    assert.isUndefined(Readiness.settles(S.failed, S.failedRefused))
    assert.isUndefined(Readiness.settles(S.closed, S.closedJoined))
  })
})

describe("Readiness getters", () => {
  it("alive, session, refusal, joined and lastError read the one value", () => {
    const table: ReadonlyArray<readonly [S, boolean, boolean, McpError.McpError | undefined, boolean]> = [
      ["starting", true, false, undefined, false],
      ["ready", true, true, undefined, false],
      ["renewing", true, true, undefined, false],
      ["failed", false, false, undefined, false],
      ["failedRefused", false, false, closed, false],
      ["failedJoined", false, false, closed, true],
      ["closed", false, false, closed, false],
      ["closedJoined", false, false, closed, true]
    ]
    for (const [state, alive, hasSession, refusal, joined] of table) {
      assert.strictEqual(Readiness.isAlive(S[state]), alive, `${state} alive`)
      assert.strictEqual(Readiness.session(S[state]) !== undefined, hasSession, `${state} session`)
      assert.strictEqual(Readiness.refusal(S[state]), refusal, `${state} refusal`)
      assert.strictEqual(Readiness.isJoined(S[state]), joined, `${state} joined`)
    }
    assert.strictEqual(Readiness.lastError(S.failedRefused), failure.message)
    assert.strictEqual(Readiness.lastError(S.closed), closed.message)
    assert.isUndefined(Readiness.lastError(S.ready))
  })
})
