import { assert, describe, it } from "@effect/vitest"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager, ServerState, StatusText } from "@mcp-fleet/manager"
import type { FakeSpawner } from "@mcp-fleet/testing"
import { McpPeer } from "@mcp-fleet/testing"
import type { McpClient } from "@mcp-fleet/transport"
import { Cause, Clock, Context, Deferred, Effect, Exit, Fiber, Layer, Option, Scope, Stream } from "effect"
import type { ChildProcessSpawner } from "effect/process"
import { TestClock } from "effect/testing"
import { always, fleetSpawner, holdingStdout, tally, toolServer, until } from "./fleetPeers.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

const build = (
  options: ManagerOptions.ManagerOptions,
  spawner: Layer.Layer<ChildProcessSpawner.ChildProcessSpawner>
) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(McpManager.layer(options).pipe(Layer.provide(spawner)))
    return Context.get(context, McpManager.McpManager)
  })

const stateOf = (manager: McpManager.McpManager["Service"], name: string) =>
  manager.health().find((h) => h.name === name)!

/** Waits on the snapshots stream (the manager's own events) until `name`'s health satisfies `check`. */
const waitFor = (
  manager: McpManager.McpManager["Service"],
  name: string,
  check: (h: ReturnType<typeof stateOf>) => boolean,
  _what: string
) => Effect.asVoid(until(manager, name, check))

const waitState = (manager: McpManager.McpManager["Service"], name: string, state: ServerState.ServerState) =>
  waitFor(manager, name, (h) => h.state === state, `becomes ${state}`)

const server = (command: string) => ({ command })

/** Lets forked fibers (such as a timeout's timer) start before the clock moves. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

/** The signal a peer was killed with, if it was. */
const killSignal = (peer: FakeSpawner.Peer): Effect.Effect<string | undefined> =>
  Deferred.isDoneUnsafe(peer.killed) ? Deferred.await(peer.killed) : Effect.succeed(undefined)
const tools = (...names: Array<string>) => () => names

describe("McpManager (in-memory fleet)", () => {
  describe("StartDoesNotBlockOnDiscovery", () => {
    it.effect("the layer is built and every client registered while initialize is still unanswered", () =>
      Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner({
          slow: always({ initialize: "never" }),
          fast: (_, peer) => toolServer("fast", tools("a"))(peer)
        })
        const manager = yield* build({ servers: { slow: server("slow"), fast: server("fast") } }, layer)
        // Built, and both clients are there at once.
        const slowClient = yield* manager.client("slow")
        assert.isTrue(slowClient.isAlive())
        yield* manager.client("fast")
        assert.deepStrictEqual(spawned.count, { slow: 1, fast: 1 })
        assert.strictEqual(stateOf(manager, "slow").state, "starting")
        yield* waitState(manager, "fast", "ready")
        assert.strictEqual(stateOf(manager, "slow").state, "starting")
      }))
  })

  describe("SlowInitializeStaysStarting", () => {
    it.effect("past readyTimeout the server stays starting and its process is not killed", () =>
      Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner({ cold: always({ initialize: "never" }) })
        const manager = yield* build({ servers: { cold: server("cold") }, readyTimeout: "15 minutes" }, layer)
        const client = yield* manager.client("cold")
        yield* TestClock.adjust("16 minutes")
        yield* waitFor(manager, "cold", (h) => h.lastError !== undefined, "timeout noted")
        const h = stateOf(manager, "cold")
        assert.strictEqual(h.state, "starting")
        assert.include(h.lastError!, "still waiting")
        assert.isTrue(client.isAlive(), "not killed")
        assert.isUndefined(yield* killSignal(spawned.peers.cold![0]!), "never signalled")
        assert.strictEqual(spawned.count.cold, 1, "not restarted")
      }))
  })

  describe("StartingIsNotReportedAsReady", () => {
    it.effect("a starting server shows no tool count, counts no tools, and is never 'ready — 0 tools'", () =>
      Effect.gen(function*() {
        const { layer } = fleetSpawner({ cold: always({ initialize: "never" }) })
        const manager = yield* build({ servers: { cold: server("cold") } }, layer)
        const h = stateOf(manager, "cold")
        assert.strictEqual(h.state, "starting")
        assert.isFalse(ServerState.countsTools(h.state))
        assert.deepStrictEqual(manager.tools(), [])
        const text = manager.statusLines()
        assert.notInclude(text, "ready")
        assert.include(text, "cold: starting · tools not listed yet")
        assert.notInclude(text.split("\n")[1]!, "0 tools")
        assert.strictEqual(ServerState.stateFromString("weird"), "offline")
        assert.strictEqual(ServerState.stateFromString("READY"), "offline")
        assert.strictEqual(ServerState.stateFromString("ready"), "ready")
      }))
  })

  describe("DisabledServerStaysOutOfFaces", () => {
    it.effect("a disabled server is never spawned, never in tools(), and calls to it say it is disabled", () =>
      Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner({
          on: (_, peer) => toolServer("on", tools("a", "b"))(peer),
          off: (_, peer) => toolServer("off", tools("x"))(peer)
        })
        const manager = yield* build({
          servers: { on: server("on"), off: { command: "off", disabled: true } }
        }, layer)
        yield* waitState(manager, "on", "ready")
        assert.isUndefined(spawned.count.off, "never spawned")
        assert.strictEqual(stateOf(manager, "off").state, "disabled")
        assert.deepStrictEqual(manager.tools().map((t) => `${t.server}/${t.tool.name}`), ["on/a", "on/b"])
        const error = failureOf(yield* Effect.exit(manager.call("off", "x", {})))
        assert.strictEqual(error._tag, "ServerUnavailable")
        assert.include(error.message, "disabled")
        assert.strictEqual(failureOf(yield* Effect.exit(manager.client("off")))._tag, "ServerUnavailable")
        yield* manager.restart("off")
        assert.isUndefined(spawned.count.off, "restart does not spawn a disabled server")
      }))
  })

  describe("DegradedOnEmptyList", () => {
    it.effect("an empty tool list is degraded, not ready, and the live process is kept", () =>
      Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner({ empty: (_, peer) => toolServer("empty", tools())(peer) })
        const manager = yield* build({ servers: { empty: server("empty") } }, layer)
        yield* waitState(manager, "empty", "degraded")
        const h = stateOf(manager, "empty")
        assert.strictEqual(h.lastError, "the server lists no tools")
        assert.deepStrictEqual(manager.tools(), [])
        assert.isTrue((yield* manager.client("empty")).isAlive())
        assert.strictEqual(spawned.count.empty, 1)
      }))
  })

  describe("LiveServerWithFailedListIsDegradedNotRestarted", () => {
    it.effect("tools/list timing out (startupTimeout) on a live server is degraded, never restarted", () =>
      Effect.gen(function*() {
        const frames: Array<unknown> = []
        const { layer, spawned } = fleetSpawner({
          stuck: (_, peer) => McpPeer.serve({ onRequest: () => Effect.succeed(undefined) }, frames)(peer)
        })
        const manager = yield* build({ servers: { stuck: server("stuck") }, startupTimeout: "20 seconds" }, layer)
        const client = yield* manager.client("stuck")
        yield* McpPeer.awaitMethod(frames, "tools/list")
        yield* settle
        yield* TestClock.adjust("20 seconds")
        yield* waitState(manager, "stuck", "degraded")
        assert.include(stateOf(manager, "stuck").lastError!, "did not finish within 20000 ms")
        assert.isTrue(client.isAlive())
        yield* TestClock.adjust("10 minutes")
        assert.strictEqual(spawned.count.stuck, 1, "not restarted")
        assert.strictEqual(stateOf(manager, "stuck").state, "degraded")
      }))

    it.effect("tools/list failing with an error on a live server is degraded, with the error said", () =>
      Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner({
          failing: (_, peer) =>
            McpPeer.serve({
              onRequest: (msg) =>
                msg.method === "tools/list"
                  ? peer.send({ jsonrpc: "2.0", id: msg.id, error: { code: -32603, message: "index corrupt" } }).pipe(
                    Effect.as(undefined)
                  )
                  : Effect.succeed(undefined)
            })(peer)
        })
        const manager = yield* build({ servers: { failing: server("failing") } }, layer)
        yield* waitState(manager, "failing", "degraded")
        assert.include(stateOf(manager, "failing").lastError!, "index corrupt")
        assert.strictEqual(spawned.count.failing, 1)
      }))
  })

  describe("CallToOfflineServerExplains", () => {
    it.effect("calls to an offline server fail at once with its state and last error; unknown names list the known", () =>
      Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner({
          crashy: (index, peer) =>
            index === 0
              ? toolServer("crashy", tools("t"))(peer)
              : peer.stderr("cannot bind port\n").pipe(Effect.andThen(peer.exit(1)))
        })
        const manager = yield* build({
          servers: { crashy: server("crashy") },
          reconnect: { initialDelay: "1 second", maxAttempts: 1 }
        }, layer)
        yield* waitState(manager, "crashy", "ready")
        yield* spawned.peers.crashy![0]!.exit(9)
        // Offline, and its first reconnection attempt scheduled (two ledger events: the latch waits for both).
        yield* waitFor(manager, "crashy", (h) => h.state === "offline" && h.attempt === 1, "reconnecting")
        const first = failureOf(yield* Effect.exit(manager.call("crashy", "t", {})))
        assert.strictEqual(first._tag, "ServerUnavailable")
        assert.match(
          first.message,
          /^MCP server "crashy" is offline and reconnecting \(attempt 1\)\. Last error: The process exited with code 9\.$/
        )
        yield* TestClock.adjust("1 second")
        yield* waitFor(manager, "crashy", (h) => h.gaveUp, "gave up")
        const last = failureOf(yield* Effect.exit(manager.call("crashy", "t", {})))
        assert.include(last.message, "gave up after 1 attempts")
        assert.include(last.message, "cannot bind port")
        const unknown = failureOf(yield* Effect.exit(manager.call("nope", "t", {})))
        assert.strictEqual(unknown._tag, "UnknownServer")
        assert.strictEqual(unknown.message, `No MCP server is named "nope"; the configured servers are "crashy".`)
      }))
  })

  describe("ReconnectsAfterCrash", () => {
    it.effect("a crashed server is reconnected after the backoff delay, rediscovered, and ready again", () =>
      Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner({
          flaky: (index, peer) => toolServer(`flaky#${index}`, tools("t"))(peer)
        })
        const transitions: Array<string> = []
        const dispatched = tally()
        const manager = yield* build({
          servers: { flaky: server("flaky") },
          reconnect: { initialDelay: "2 seconds" },
          onStateChange: (c) =>
            Effect.sync(() => {
              transitions.push(`${c.from}->${c.to}`)
              dispatched.bump()
            })
        }, layer)
        yield* waitState(manager, "flaky", "ready")
        yield* spawned.peers.flaky![0]!.exit(1)
        yield* waitState(manager, "flaky", "offline")
        yield* TestClock.adjust("1999 millis")
        assert.strictEqual(spawned.count.flaky, 1, "no attempt before the backoff delay")
        yield* TestClock.adjust("1 millis")
        yield* waitState(manager, "flaky", "ready")
        assert.strictEqual(spawned.count.flaky, 2)
        const h = stateOf(manager, "flaky")
        assert.strictEqual(h.attempt, 0)
        assert.deepStrictEqual(manager.tools().map((t) => t.tool.name), ["t"])
        const result = yield* manager.call("flaky", "t", {})
        assert.match(String(result.content[0]!.text), /^flaky#1:/)
        yield* dispatched.reach(4)
        assert.deepStrictEqual(transitions, [
          "starting->ready",
          "ready->offline",
          "offline->starting",
          "starting->ready"
        ])
      }))
  })

  describe("GivesUpAfterMaxAttempts", () => {
    it.effect("with exponential backoff and a cap, each attempt waits its delay; after the last, offline for good", () =>
      Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner({
          doomed: (index, peer) => (index === 0 ? toolServer("doomed", tools("t"))(peer) : peer.exit(2))
        })
        const manager = yield* build({
          servers: { doomed: server("doomed") },
          reconnect: { initialDelay: "1 second", factor: 2, maxDelay: "3 seconds", maxAttempts: 4 }
        }, layer)
        yield* waitState(manager, "doomed", "ready")
        yield* spawned.peers.doomed![0]!.exit(1)
        // Delays: 1 s, 2 s, 3 s (capped), 3 s.
        for (const [delay, expected] of [[1000, 2], [2000, 3], [3000, 4], [3000, 5]] as const) {
          yield* waitFor(manager, "doomed", (h) => h.attempt === expected - 1, `attempt ${expected - 1} scheduled`)
          yield* TestClock.adjust(delay - 1)
          assert.strictEqual(spawned.count.doomed, expected - 1, `no spawn before ${delay} ms`)
          yield* TestClock.adjust(1)
          yield* spawned.spawns("doomed", expected)
          assert.strictEqual(spawned.count.doomed, expected, `spawn ${expected}`)
        }
        yield* waitFor(manager, "doomed", (h) => h.gaveUp, "gave up")
        yield* TestClock.adjust("1 hour")
        assert.strictEqual(spawned.count.doomed, 5, "no attempt after the last")
        const h = stateOf(manager, "doomed")
        assert.strictEqual(h.state, "offline")
        assert.include(manager.statusLines(), "doomed: offline · gave up after 4 attempts")
        // An explicit restart tries again.
        yield* manager.restart("doomed")
        assert.strictEqual(spawned.count.doomed, 6)
      }))
  })

  it.effect("a call that finds the process gone marks it offline at once and starts reconnection, without resetting backoff", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        sudden: (index, peer) =>
          index === 0
            ? McpPeer.serve({
              onRequest: (msg) =>
                msg.method === "tools/list"
                  ? Effect.succeed({ tools: [{ name: "t", inputSchema: {} }] })
                  : msg.method === "tools/call"
                  ? peer.exit(3).pipe(Effect.as(undefined))
                  : Effect.succeed(undefined)
            })(peer)
            : peer.exit(3)
      })
      const manager = yield* build({
        servers: { sudden: server("sudden") },
        reconnect: { initialDelay: "1 second", maxAttempts: 3 }
      }, layer)
      yield* waitState(manager, "sudden", "ready")
      const error = failureOf(yield* Effect.exit(manager.call("sudden", "t", {})))
      assert.strictEqual(error._tag, "ProcessExited")
      assert.strictEqual(stateOf(manager, "sudden").state, "offline", "offline right after the failed call")
      yield* waitFor(manager, "sudden", (h) => h.attempt === 1, "reconnection started")
      // Calls while reconnecting fail fast and do not reset the counter.
      for (let i = 0; i < 3; i++) {
        assert.strictEqual(failureOf(yield* Effect.exit(manager.call("sudden", "t")))._tag, "ServerUnavailable")
      }
      yield* TestClock.adjust("1 second")
      yield* waitFor(manager, "sudden", (h) => h.attempt === 2, "second attempt scheduled")
      assert.strictEqual(spawned.count.sudden, 2)
    }))

  it.effect("a server crashing in a loop never disturbs the others", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        looping: (index, peer) => (index === 0 ? toolServer("looping", tools("t"))(peer) : peer.exit(1)),
        steady: (_, peer) => toolServer("steady", tools("t"))(peer)
      })
      const steadyChanges: Array<string> = []
      const manager = yield* build({
        servers: { looping: server("looping"), steady: server("steady") },
        reconnect: { initialDelay: "100 millis", maxDelay: "400 millis", maxAttempts: 6 },
        onStateChange: (c) =>
          Effect.sync(() => void (c.server === "steady" && steadyChanges.push(`${c.from}->${c.to}`)))
      }, layer)
      yield* waitState(manager, "looping", "ready")
      yield* waitState(manager, "steady", "ready")
      yield* spawned.peers.looping![0]!.exit(1)
      for (let step = 0; step < 40 && !stateOf(manager, "looping").gaveUp; step++) {
        const result = yield* manager.call("steady", "t", { step })
        assert.strictEqual(result.content[0]!.text, `steady:${JSON.stringify({ name: "t", arguments: { step } })}`)
        const looping = yield* Effect.exit(manager.call("looping", "t", {}))
        assert.isTrue(Exit.isFailure(looping))
        yield* TestClock.adjust("100 millis")
        yield* settle
      }
      assert.isTrue(stateOf(manager, "looping").gaveUp)
      assert.strictEqual(spawned.count.looping, 7)
      assert.strictEqual(stateOf(manager, "steady").state, "ready")
      assert.deepStrictEqual(steadyChanges, ["starting->ready"])
      assert.strictEqual(spawned.count.steady, 1)
    }))

  it.effect("restart under concurrent calls replaces the process, never orphans one, never reports a crash", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ busy: (index, peer) => toolServer(`busy#${index}`, tools("t"))(peer) })
      const transitions: Array<string> = []
      const manager = yield* build({
        servers: { busy: server("busy") },
        onStateChange: (c) => Effect.sync(() => void transitions.push(`${c.from}->${c.to}`))
      }, layer)
      yield* waitState(manager, "busy", "ready")
      let stop = false
      const failures: Array<string> = []
      const callers = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), (i) =>
        Effect.gen(function*() {
          while (!stop) {
            const exit = yield* Effect.exit(manager.call("busy", "t", { i }))
            if (Exit.isFailure(exit)) {
              failures.push(String(Option.getOrUndefined(Cause.findErrorOption(exit.cause))?._tag))
            }
            yield* Effect.yieldNow
          }
        }).pipe(Effect.forkChild({ startImmediately: true })))
      for (let round = 0; round < 2; round++) {
        yield* manager.restart("busy")
        yield* waitState(manager, "busy", "ready")
      }
      stop = true
      yield* Effect.forEach(callers, Fiber.join)
      assert.strictEqual(spawned.count.busy, 3, "one process per restart, no extra reconnection")
      const alive = spawned.peers.busy!.filter((p) =>
        !Deferred.isDoneUnsafe(p.stdinClosed) && !Deferred.isDoneUnsafe(p.killed)
      )
      assert.strictEqual(alive.length, 1, "the replaced processes were shut down")
      assert.notInclude(transitions.join(","), "offline", "a deliberate restart is not a crash")
      assert.isTrue(
        failures.every((tag) => tag === "ServerUnavailable" || tag === "ErrIndexBuilding" || tag === "ClientClosed"),
        failures.join(",")
      )
      assert.match(String((yield* manager.call("busy", "t", {})).content[0]!.text), /^busy#2:/)
    }))

  describe("CallRoutesToRightServer", () => {
    it.effect("concurrent calls to different servers each reach their own server only", () =>
      Effect.gen(function*() {
        const names = ["alpha", "beta", "gamma"]
        const { layer } = fleetSpawner(Object.fromEntries(names.map((n) => [n, (_: number, peer: FakeSpawner.Peer) =>
          toolServer(n, tools("who"))(peer)]
        )))
        const manager = yield* build({ servers: Object.fromEntries(names.map((n) => [n, server(n)])) }, layer)
        for (const n of names) {
          yield* manager.waitForReady(n)
        }
        const calls = Array.from({ length: 60 }, (_, i) => ({ server: names[i % 3]!, i }))
        const results = yield* Effect.forEach(calls, (c) =>
          manager.call(c.server, "who", { i: c.i }), {
          concurrency: "unbounded"
        })
        results.forEach((r, i) => {
          const c = calls[i]!
          assert.strictEqual(
            r.content[0]!.text,
            `${c.server}:${JSON.stringify({ name: "who", arguments: { i: c.i } })}`
          )
        })
      }))
  })

  describe("StatusLinesIsSingleSource", () => {
    it.effect("statusLines() is renderStatusLines(health(), maxLines) character for character, in every state", () =>
      Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner({
          a: (_, peer) => toolServer("a", tools("x", "y", "z"))(peer),
          b: always({ initialize: "never" }),
          c: (_, peer) => toolServer("c", tools())(peer)
        })
        const manager = yield* build({
          servers: {
            a: { command: "a", curated: ["x", "gone"] },
            b: server("b"),
            c: server("c"),
            d: { command: "d", disabled: true }
          },
          maxStatusLines: 2,
          reconnect: { maxAttempts: 0 }
        }, layer)
        const same = () => assert.strictEqual(manager.statusLines(), StatusText.renderStatusLines(manager.health(), 2))
        same()
        yield* waitState(manager, "a", "ready")
        yield* waitState(manager, "c", "degraded")
        same()
        const text = manager.statusLines()
        const lines = text.split("\n")
        assert.strictEqual(lines.length, 4)
        assert.strictEqual(
          lines[0],
          "MCP: 4 servers (1 ready, 1 starting, 1 degraded, 1 disabled), 3 tools (1 curated, 2 external)"
        )
        assert.strictEqual(lines[1], StatusText.formatServerLine(stateOf(manager, "a")))
        assert.strictEqual(lines[1], "a: ready · 3 tools (1 curated, 2 external) · curated but not offered: gone")
        assert.strictEqual(lines[3], "+2 more servers")
        assert.deepStrictEqual(stateOf(manager, "a").curatedMissing, ["gone"])
        // A process that died is shown offline by health() at once (isAlive read), and the text follows.
        yield* spawned.peers.a![0]!.exit(1)
        yield* waitFor(manager, "a", (h) => h.tools.length === 0, "a offline")
        same()
        assert.include(manager.statusLines(), "a: offline")
        assert.strictEqual(StatusText.renderStatusLines(manager.health(), 0).split("\n").length, 5, "0 = unlimited")
      }))

    it.effect("statusLines() renders health(), not the ledger: an exited process is offline before its watcher ran", () =>
      Effect.gen(function*() {
        // a's stdout stays open after its exit (a grandchild holds it) and the clock stands still, so the
        // transport knows the process is gone but has not terminated: the ledger still says ready.
        const release = yield* Deferred.make<void>()
        const { layer, spawned } = fleetSpawner({
          a: (_, peer) => toolServer("a", tools("x"))(peer),
          b: (_, peer) => toolServer("b", tools("y"))(peer)
        })
        const manager = yield* build(
          { servers: { a: server("a"), b: server("b") }, maxStatusLines: 5, reconnect: { maxAttempts: 0 } },
          holdingStdout(layer, release)
        )
        // Runs before the manager's own shutdown (finalizers run last-added first), so a failure here never
        // leaves a's reader waiting on the held pipe.
        yield* Effect.addFinalizer(() => Deferred.succeed(release, undefined))
        const same = () => assert.strictEqual(manager.statusLines(), StatusText.renderStatusLines(manager.health(), 5))
        yield* manager.waitForReady("a")
        yield* manager.waitForReady("b")
        assert.include(manager.statusLines(), "a: ready")
        const client = yield* manager.client("a")
        yield* spawned.peers.a![0]!.exit(1)
        yield* client.awaitExit
        assert.strictEqual(stateOf(manager, "a").state, "offline", "health() reads isAlive")
        same()
        assert.include(manager.statusLines(), "a: offline")
        assert.notInclude(manager.statusLines(), "a: ready")
        assert.include(manager.statusLines(), "b: ready")
        // Once stdout ends the crash watcher moves the ledger too; the text is still health()'s.
        const offline = yield* manager.changes.pipe(
          Stream.filter((c) => c.server === "a" && c.to === "offline"),
          Stream.runHead,
          Effect.forkChild({ startImmediately: true })
        )
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(offline)
        same()
        assert.include(manager.statusLines(), "a: offline")
      }))
  })

  describe("ListChangedRefreshesTools", () => {
    it.effect("a list_changed notification re-lists (all pages) and fires onToolsChanged once per real change", () =>
      Effect.gen(function*() {
        let current = ["a"]
        const { layer, spawned } = fleetSpawner({ live: (_, peer) => toolServer("live", () => current)(peer) })
        const changes: Array<ReadonlyArray<string>> = []
        const announced = tally()
        const manager = yield* build({
          servers: { live: server("live") },
          onToolsChanged: (c) =>
            Effect.sync(() => {
              changes.push(c.tools.map((t) => t.name))
              announced.bump()
            })
        }, layer)
        yield* waitState(manager, "live", "ready")
        yield* announced.reach(1)
        current = ["a", "b"]
        const peer = spawned.peers.live![0]!
        yield* peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        yield* waitFor(manager, "live", (h) => h.tools.length === 2, "tools refreshed")
        assert.strictEqual(manager.tools().length, 2)
        yield* announced.reach(2)
        assert.deepStrictEqual(changes, [["a"], ["a", "b"]])
      }))

    it.effect("an identical re-list fires nothing", () =>
      Effect.gen(function*() {
        // Listings 1 and 2 are the same tool set (keys reordered); listing 3 really changes it. Announcements are
        // dispatched in order, so once the third one's arrives, any announcement of the second would be there.
        let lists = 0
        const secondListed = yield* Deferred.make<void>()
        const { layer, spawned } = fleetSpawner({
          same: (_, peer) =>
            McpPeer.serve({
              onRequest: (msg) =>
                Effect.sync(() => {
                  if (msg.method !== "tools/list") return undefined
                  lists++
                  if (lists === 2) Deferred.doneUnsafe(secondListed, Exit.void)
                  const schema = lists === 1 ? { type: "object", a: 2, b: 1 } : { type: "object", b: 1, a: 2 }
                  const tools = [{ name: "t", inputSchema: schema }]
                  return { tools: lists >= 3 ? [...tools, { name: "u", inputSchema: {} }] : tools }
                })
            })(peer)
        })
        const announced: Array<ReadonlyArray<string>> = []
        const realChange = yield* Deferred.make<void>()
        const manager = yield* build({
          servers: { same: server("same") },
          onToolsChanged: (c) =>
            Effect.sync(() => {
              announced.push(c.tools.map((t) => t.name))
              if (c.tools.length === 2) Deferred.doneUnsafe(realChange, Exit.void)
            })
        }, layer)
        yield* manager.waitForReady("same")
        const peer = spawned.peers.same![0]!
        yield* peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        yield* Deferred.await(secondListed)
        yield* peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        yield* Deferred.await(realChange)
        assert.strictEqual(lists, 3)
        assert.deepStrictEqual(announced, [["t"], ["t", "u"]], "the identical second listing announced nothing")
      }))

    it.effect("a burst of list_changed is coalesced into a bounded number of re-lists", () =>
      Effect.gen(function*() {
        let lists = 0
        let generation = 0
        const { layer, spawned } = fleetSpawner({
          bursty: (_, peer) =>
            McpPeer.serve({
              onRequest: (msg) =>
                Effect.sync(() => {
                  if (msg.method !== "tools/list") return undefined
                  lists++
                  return { tools: [{ name: `g${generation}`, inputSchema: {} }] }
                })
            })(peer)
        })
        const manager = yield* build({ servers: { bursty: server("bursty") } }, layer)
        yield* waitState(manager, "bursty", "ready")
        generation = 1
        const peer = spawned.peers.bursty![0]!
        for (let i = 0; i < 50; i++) yield* peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        yield* waitFor(manager, "bursty", (h) => h.tools[0]?.name === "g1", "refreshed")
        const client = yield* manager.client("bursty")
        yield* peer.read
        assert.strictEqual(client.stats().notifications, 50, "burst read")
        for (let i = 0; i < 100; i++) yield* Effect.yieldNow
        assert.isAtMost(lists - 1, 2, `50 notifications caused ${lists - 1} re-lists`)
      }))

    it.effect("a list_changed that arrives before the server is ready is remembered and replayed once", () =>
      Effect.gen(function*() {
        let lists = 0
        const relisted = tally()
        let tools = ["old"]
        const frames: Array<unknown> = []
        const { layer, spawned } = fleetSpawner({
          early: (_, peer) =>
            McpPeer.serve({
              initialize: "never",
              onRequest: (msg) =>
                Effect.sync(() => {
                  if (msg.method !== "tools/list") return undefined
                  lists++
                  relisted.bump()
                  return { tools: tools.map((name) => ({ name, inputSchema: {} })) }
                })
            }, frames)(peer)
        })
        const manager = yield* build({ servers: { early: server("early") } }, layer)
        const peer = spawned.peers.early![0]!
        yield* peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        yield* waitFor(manager, "early", (h) => h.listChangedPending, "pending remembered")
        assert.strictEqual(stateOf(manager, "early").state, "starting")
        // Now answer initialize (after the era probe's -32601), with the tool set already changed.
        const initialize = () =>
          frames.find((f): f is McpPeer.Message =>
            typeof f === "object" && f !== null && "method" in f && f.method === "initialize"
          )
        yield* McpPeer.awaitMethod(frames, "initialize")
        tools = ["new"]
        yield* peer.send({
          jsonrpc: "2.0",
          id: initialize()!.id,
          result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "p", version: "1" } }
        })
        yield* waitState(manager, "early", "ready")
        yield* waitFor(manager, "early", (h) => !h.listChangedPending, "replayed once")
        yield* relisted.reach(2)
        for (let i = 0; i < 100; i++) yield* Effect.yieldNow
        assert.strictEqual(lists, 2, "discovery + exactly one replay")
        assert.deepStrictEqual(manager.tools().map((t) => t.tool.name), ["new"])
      }))
  })

  it.effect("waitForReady waits for ready and fails when the server settles otherwise", () =>
    Effect.gen(function*() {
      const { layer } = fleetSpawner({
        ok: (_, peer) => toolServer("ok", tools("t"))(peer),
        empty: (_, peer) => toolServer("empty", tools())(peer)
      })
      const manager = yield* build({
        servers: { ok: server("ok"), empty: server("empty"), off: { command: "off", disabled: true } }
      }, layer)
      const h = yield* manager.waitForReady("ok")
      assert.strictEqual(h.state, "ready")
      assert.strictEqual(failureOf(yield* Effect.exit(manager.waitForReady("empty")))._tag, "ServerNotReady")
      assert.strictEqual(failureOf(yield* Effect.exit(manager.waitForReady("off")))._tag, "ServerNotReady")
      assert.strictEqual(failureOf(yield* Effect.exit(manager.waitForReady("nope")))._tag, "UnknownServer")
    }))

  it.effect("the changes stream reports transitions; health() is an immutable snapshot", () =>
    Effect.gen(function*() {
      const { layer } = fleetSpawner({ s: (_, peer) => toolServer("s", tools("t"))(peer) })
      const manager = yield* build({ servers: { s: server("s") } }, layer)
      const before = manager.health()
      const copy = structuredClone(before)
      const first = yield* manager.changes.pipe(
        Stream.take(1),
        Stream.runCollect,
        Effect.forkChild({ startImmediately: true })
      )
      const [change] = yield* Fiber.join(first)
      assert.strictEqual(`${change!.from}->${change!.to}`, "starting->ready")
      assert.strictEqual(stateOf(manager, "s").state, "ready")
      assert.strictEqual(stateOf(manager, "s").tools.length, 1)
      assert.deepStrictEqual(before, copy, "an earlier snapshot does not change, in any field")
      assert.strictEqual(before[0]!.state, "starting", "an earlier snapshot does not change")
    }))

  it.effect("both shutdown paths drain every server in parallel, in bounded time", () =>
    Effect.gen(function*() {
      const names = ["s1", "s2", "s3", "s4", "s5"]
      /** Five servers that ignore EOF and SIGTERM, in a scope of their own; their clients, taken at start. */
      const stubbornFleet = Effect.gen(function*() {
        const { layer, spawned } = fleetSpawner(
          Object.fromEntries(
            names.map((n) => [n, always({ ignoreEof: true, onRequest: () => Effect.succeed(undefined) })])
          ),
          { ignoreSignals: ["SIGTERM"] }
        )
        const scope = yield* Scope.make()
        const config = { command: "", client: { shutdownGrace: 1_000, killGrace: 2_000 } }
        const manager = yield* build(
          { servers: Object.fromEntries(names.map((n) => [n, { ...config, command: n }])) },
          layer
        ).pipe(Scope.provide(scope))
        assert.strictEqual(manager.health().length, 5)
        const clients = yield* Effect.forEach(names, (n) => manager.client(n))
        return { clients, manager, scope, spawned }
      })
      const allExited = (clients: ReadonlyArray<McpClient.McpClient>, path: string) =>
        clients.forEach((c) => {
          assert.isTrue(Option.isSome(c.exitInfo()), `${path}: ${c.name}'s process has exited when it returns`)
          assert.isFalse(c.isAlive(), `${path}: ${c.name} is not alive`)
        })

      // The scope's close: stdin closed, SIGTERM after the grace, SIGKILL after the kill grace.
      const graceful = yield* stubbornFleet
      const closing = yield* Scope.close(graceful.scope, Exit.void).pipe(Effect.forkChild({ startImmediately: true }))
      // One server's grace (1 s) + kill grace (2 s): sequential shutdown would need five times that.
      yield* TestClock.adjust("3 seconds")
      yield* Fiber.join(closing)
      for (const n of names) {
        assert.strictEqual(yield* killSignal(graceful.spawned.peers[n]![0]!), "SIGTERM", `${n} got SIGTERM`)
      }
      allExited(graceful.clients, "scope close")

      // forceClose: SIGKILL to every server at once, no grace, so it returns without the clock moving.
      const forced = yield* stubbornFleet
      const before = yield* Clock.currentTimeMillis
      yield* forced.manager.forceClose
      assert.strictEqual(yield* Clock.currentTimeMillis, before, "forceClose waited for no grace")
      for (const n of names) {
        assert.strictEqual(yield* killSignal(forced.spawned.peers[n]![0]!), "SIGKILL", `${n} got SIGKILL`)
      }
      allExited(forced.clients, "forceClose")
      yield* Scope.close(forced.scope, Exit.void)
    }))

  it.effect("forceClose kills every server at once and stops reconnection", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({
        a: (_, peer) => toolServer("a", tools("t"))(peer),
        b: (_, peer) => toolServer("b", tools("t"))(peer)
      })
      const manager = yield* build({ servers: { a: server("a"), b: server("b") } }, layer)
      yield* waitState(manager, "a", "ready")
      yield* manager.forceClose
      for (const n of ["a", "b"]) {
        assert.strictEqual(yield* killSignal(spawned.peers[n]![0]!), "SIGKILL")
      }
      yield* TestClock.adjust("1 hour")
      assert.deepStrictEqual(spawned.count, { a: 1, b: 1 }, "no reconnection after forceClose")
    }))
})
