import { assert, describe, it } from "@effect/vitest"
import type { McpManager } from "@mcp-fleet/manager"
import type { FakeSpawner } from "@mcp-fleet/testing"
import { Cause, Deferred, Effect, Exit, Fiber, Option, Redacted, Stream } from "effect"
import { TestClock } from "effect/testing"
import { always, build, fleetSpawner, toolServer, until } from "./fleetPeers.ts"

type Manager = McpManager.McpManager["Service"]

const isOpen = (peer: FakeSpawner.Peer) =>
  !Deferred.isDoneUnsafe(peer.stdinClosed) && !Deferred.isDoneUnsafe(peer.killed)

const tagOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
  Exit.isSuccess(exit) ? "ok" : Option.getOrUndefined(Cause.findErrorOption(exit.cause))?._tag ?? "defect"

/** `n` callers calling `server` until `stop` completes; each returns the tags of its calls' outcomes. */
const callers = (manager: Manager, server: string, n: number, stop: Deferred.Deferred<void>) =>
  Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) =>
    Effect.gen(function*() {
      const outcomes: Array<string> = []
      while (!Deferred.isDoneUnsafe(stop)) {
        outcomes.push(tagOf(yield* Effect.exit(manager.call(server, "t", { i }))))
        yield* Effect.yieldNow
      }
      return outcomes
    }).pipe(Effect.forkChild({ startImmediately: true })))

/** The outcomes a call may settle with while its server changes: success or a typed error, never a defect. */
const typed = new Set(["ok", "UnknownServer", "ServerUnavailable", "ClientClosed", "ErrIndexBuilding"])

const echo = (name: string) => (index: number, peer: FakeSpawner.Peer) =>
  toolServer(`${name}#${index}`, () => ["t"])(peer)

describe("a fleet that changes at run time", () => {
  it.effect("add starts a server while the layer runs; a duplicate name is refused with a typed error", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ a: echo("a"), b: echo("b") })
      const manager = yield* build({ servers: { a: { command: "a" } } }, layer)
      yield* manager.add("b", { command: "b" })
      assert.strictEqual(spawned.count.b, 1, "spawned before add returned")
      yield* manager.waitForReady("b")
      assert.match(String((yield* manager.call("b", "t", {})).content[0]!.text), /^b#0:/)
      const duplicate = yield* Effect.flip(manager.add("a", { command: "b" }))
      assert.strictEqual(duplicate._tag, "DuplicateServer")
      assert.strictEqual(
        duplicate.message,
        `An MCP server named "a" is already in the fleet; remove it or update it instead.`
      )
      assert.strictEqual(spawned.count.a, 1)
    }))

  it.effect("remove under concurrent calls: every call settles, the process is drained, Removed is reported", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ a: echo("a"), keep: echo("keep") })
      const manager = yield* build({ servers: { a: { command: "a" }, keep: { command: "keep" } } }, layer)
      yield* manager.waitForReady("a")
      const removed = yield* manager.changes.pipe(
        Stream.filter((c) => c.to === "removed"),
        Stream.runHead,
        Effect.forkChild({ startImmediately: true })
      )
      const stop = yield* Deferred.make<void>()
      const fibers = yield* callers(manager, "a", 8, stop)
      yield* manager.remove("a")
      yield* Deferred.succeed(stop, undefined)
      const outcomes = (yield* Effect.forEach(fibers, Fiber.join)).flat()
      assert.isTrue(
        outcomes.every((tag) => tag === "ok" || tag === "UnknownServer" || tag === "ClientClosed"),
        outcomes.join(",")
      )
      const change = Option.getOrThrow(yield* Fiber.join(removed))
      assert.strictEqual(`${change.server}: ${change.from}->${change.to}`, "a: ready->removed")
      assert.deepStrictEqual(manager.health().map((h) => h.name), ["keep"])
      assert.isFalse(isOpen(spawned.peers.a![0]!), "drained")
      assert.strictEqual((yield* Effect.flip(manager.call("a", "t", {})))._tag, "UnknownServer")
      assert.strictEqual((yield* Effect.flip(manager.remove("a")))._tag, "UnknownServer")
    }))

  it.effect("update with the same launch config changes no process; a launch change replaces it, new before old", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ a: echo("a") })
      const manager = yield* build({ servers: { a: { command: "a" } } }, layer)
      yield* manager.waitForReady("a")
      yield* manager.update("a", { command: "a", curated: ["t"] })
      assert.strictEqual(spawned.count.a, 1, "curated is not launch-relevant")
      assert.strictEqual((yield* until(manager, "a", (h) => h.curatedCount === 1)).state, "ready")
      const stop = yield* Deferred.make<void>()
      const fibers = yield* callers(manager, "a", 8, stop)
      const old = spawned.peers.a![0]!
      const spawnsWhenOldClosed = yield* Deferred.await(old.stdinClosed).pipe(
        Effect.map(() => spawned.count.a),
        Effect.forkChild({ startImmediately: true })
      )
      yield* manager.update("a", { command: "a", args: ["--v2"], curated: ["t"] })
      assert.strictEqual(yield* Fiber.join(spawnsWhenOldClosed), 2, "the new process was started before the old closed")
      yield* until(manager, "a", (h) => h.state === "ready")
      yield* Deferred.succeed(stop, undefined)
      const outcomes = (yield* Effect.forEach(fibers, Fiber.join)).flat()
      assert.isTrue(
        outcomes.every((tag) => typed.has(tag)),
        outcomes.join(",")
      )
      assert.deepStrictEqual(spawned.peers.a!.map(isOpen), [false, true], "no orphan")
      assert.deepStrictEqual(spawned.peers.a![1]!.command.args, ["--v2"])
      assert.match(String((yield* manager.call("a", "t", {})).content[0]!.text), /^a#1:/)
    }))

  it.effect("update can disable and re-enable a server", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ a: echo("a") })
      const manager = yield* build({ servers: { a: { command: "a" } } }, layer)
      yield* manager.waitForReady("a")
      yield* manager.update("a", { command: "a", disabled: true })
      assert.strictEqual((yield* manager.serverHealth("a")).state, "disabled")
      assert.isFalse(isOpen(spawned.peers.a![0]!))
      yield* manager.update("a", { command: "a" })
      yield* manager.waitForReady("a")
      assert.strictEqual(spawned.count.a, 2)
    }))

  it.effect("add, remove and update racing with calls: everything settles, nothing is orphaned", () =>
    Effect.gen(function*() {
      const names = ["s0", "s1", "s2", "s3"]
      const { layer, spawned } = fleetSpawner(Object.fromEntries(names.map((n) => [n, echo(n)])))
      const manager = yield* build({ servers: { s0: { command: "s0" }, s1: { command: "s1" } } }, layer)
      const stop = yield* Deferred.make<void>()
      const fibers = (yield* Effect.forEach(names, (n) => callers(manager, n, 3, stop))).flat()
      yield* Effect.all([
        manager.add("s2", { command: "s2" }),
        manager.add("s3", { command: "s3" }),
        manager.remove("s0"),
        manager.update("s1", { command: "s1", args: ["x"] }),
        manager.restart("s1")
      ], { concurrency: "unbounded", discard: true })
      yield* Effect.forEach(["s1", "s2", "s3"], manager.waitForReady)
      yield* Deferred.succeed(stop, undefined)
      const outcomes = (yield* Effect.forEach(fibers, Fiber.join)).flat()
      assert.isTrue(outcomes.every((tag) => typed.has(tag)), outcomes.filter((t) => !typed.has(t)).join(","))
      const open = names.map((n) => (spawned.peers[n] ?? []).filter(isOpen).length)
      assert.deepStrictEqual(open, [0, 1, 1, 1], "one live process per server in the fleet, none for the removed one")
    }))
  it.effect("after forceClose, waitForReady settles (never hangs) and add starts nothing", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ cold: always({ initialize: "never" }), b: echo("b") })
      const manager = yield* build({ servers: { cold: { command: "cold" } } }, layer)
      const waiting = yield* manager.waitForReady("cold").pipe(
        Effect.flip,
        Effect.forkChild({ startImmediately: true })
      )
      yield* manager.forceClose
      const error = yield* Fiber.join(waiting)
      assert.strictEqual(error._tag, "ServerNotReady")
      assert.strictEqual((yield* Effect.flip(manager.waitForReady("cold")))._tag, "ServerNotReady")
      yield* manager.add("b", { command: "b" })
      assert.isUndefined(spawned.count.b, "a closed fleet starts nothing")
    }))

  it.effect("reconcile leaves a server alone when only callbacks differ (a config re-read maps to new closures)", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ a: echo("a") })
      const config = () => ({ command: "a", client: { onStderrLine: () => Effect.void } })
      const manager = yield* build({ servers: { a: config() } }, layer)
      yield* manager.waitForReady("a")
      yield* manager.reconcile({ a: config() })
      yield* manager.reconcile({ a: { command: "a" } })
      assert.strictEqual(spawned.count.a, 1)
    }))

  it.effect("reconcile applies a diff: adds, removes, replaces on a launch change (secrets included), leaves the rest", () =>
    Effect.gen(function*() {
      const names = ["same", "gone", "edited", "secret", "fresh"]
      const { layer, spawned } = fleetSpawner(Object.fromEntries(names.map((n) => [n, echo(n)])))
      const key = (value: string) => ({ TOKEN: Redacted.make(value) })
      const manager = yield* build({
        servers: {
          same: { command: "same" },
          gone: { command: "gone" },
          edited: { command: "edited" },
          secret: { command: "secret", env: key("old") }
        }
      }, layer)
      yield* Effect.forEach(["same", "gone", "edited", "secret"], manager.waitForReady)
      yield* manager.reconcile({
        same: { command: "same" },
        edited: { command: "edited", args: ["--new"] },
        secret: { command: "secret", env: key("new") },
        fresh: { command: "fresh" }
      })
      yield* Effect.forEach(["same", "edited", "secret", "fresh"], manager.waitForReady)
      assert.deepStrictEqual(manager.health().map((h) => h.name).sort(), ["edited", "fresh", "same", "secret"])
      assert.deepStrictEqual(spawned.count, { same: 1, gone: 1, edited: 2, secret: 2, fresh: 1 })
      assert.isFalse(isOpen(spawned.peers.gone![0]!))
      yield* manager.reconcile({
        same: { command: "same" },
        edited: { command: "edited", args: ["--new"] },
        secret: { command: "secret", env: key("new") },
        fresh: { command: "fresh" }
      })
      assert.deepStrictEqual(spawned.count, { same: 1, gone: 1, edited: 2, secret: 2, fresh: 1 }, "identical: no-op")
    }))
})

describe("events", () => {
  it.effect("onToolsChanged fires only when the offered tools change: not for a crash and an identical comeback", () =>
    Effect.gen(function*() {
      let current = ["a"]
      const { layer, spawned } = fleetSpawner({ s: (_, peer) => toolServer("s", () => current)(peer) })
      const announced: Array<ReadonlyArray<string>> = []
      const removedAnnounced = yield* Deferred.make<void>()
      const manager = yield* build({
        servers: { s: { command: "s" } },
        onToolsChanged: (c) =>
          Effect.andThen(
            Effect.sync(() => announced.push(c.tools.map((t) => t.name))),
            c.tools.length === 0 ? Deferred.succeed(removedAnnounced, undefined) : Effect.void
          )
      }, layer)
      yield* manager.waitForReady("s")
      yield* spawned.peers.s![0]!.exit(1)
      yield* until(manager, "s", (h) => h.state === "offline")
      yield* TestClock.adjust("1 second")
      yield* until(manager, "s", (h) => h.state === "ready" && spawned.count.s === 2)
      current = ["a", "b"]
      yield* spawned.peers.s![1]!.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      yield* until(manager, "s", (h) => h.tools.length === 2)
      yield* manager.remove("s")
      yield* Deferred.await(removedAnnounced)
      assert.deepStrictEqual(announced, [["a"], ["a", "b"], []])
    }))

  it.effect("a slow onStateChange listener gets a bounded queue: the oldest events are dropped, the newest kept", () =>
    Effect.gen(function*() {
      const { layer } = fleetSpawner({ s: echo("s") })
      const gate = yield* Deferred.make<void>()
      const seen: Array<string> = []
      const removedSeen = yield* Deferred.make<void>()
      const manager = yield* build({
        servers: { s: { command: "s" } },
        eventCapacity: 4,
        onStateChange: (c) =>
          Deferred.await(gate).pipe(
            Effect.andThen(Effect.sync(() => seen.push(`${c.from}->${c.to}`))),
            Effect.andThen(c.to === "removed" ? Deferred.succeed(removedSeen, undefined) : Effect.void)
          )
      }, layer)
      yield* manager.waitForReady("s")
      for (let i = 0; i < 10; i++) {
        yield* manager.restart("s")
        yield* manager.waitForReady("s")
      }
      yield* Deferred.succeed(gate, undefined)
      yield* manager.remove("s")
      yield* Deferred.await(removedSeen)
      // 21 transitions happened before the gate opened plus the removal; the listener holds one and the queue 4.
      assert.isAtMost(seen.length, 6, seen.join(","))
      assert.deepStrictEqual(seen.slice(-3), ["ready->starting", "starting->ready", "ready->removed"])
    }))

  it.effect("a read that finds the process dead moves the ledger: changes reports it once", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ s: echo("s") })
      const manager = yield* build({ servers: { s: { command: "s" } } }, layer)
      yield* manager.waitForReady("s")
      const offline = yield* manager.changes.pipe(
        Stream.filter((c) => c.to === "offline"),
        Stream.take(2),
        Stream.runCollect,
        Effect.forkChild({ startImmediately: true })
      )
      yield* spawned.peers.s![0]!.exit(4)
      // Both the read (health(), through the snapshots) and the crash watcher see the death; one transition.
      yield* until(manager, "s", (h) => h.state === "offline")
      yield* until(manager, "s", (h) => h.attempt === 1)
      yield* TestClock.adjust("1 second")
      yield* manager.waitForReady("s")
      yield* spawned.peers.s![1]!.exit(5)
      yield* until(manager, "s", (h) => h.state === "offline")
      const both = yield* Fiber.join(offline)
      assert.deepStrictEqual(both.map((c) => `${c.from}->${c.to}: ${c.health.lastError}`), [
        "ready->offline: The process exited with code 4.",
        "ready->offline: The process exited with code 5."
      ])
    }))
})
