import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { FakeServer, Processes } from "@mcp-fleet/testing"
import { Context, Effect, Exit, Layer, Schedule, Scope } from "effect"
import { TestClock } from "effect/testing"

const exists = Processes.exists

/** Polls until `check` holds (process events arrive in real time), bounded to about 10 s. */
const waitUntil = (check: () => boolean, what: string) =>
  Effect.suspend(() => (check() ? Effect.void : Effect.fail(what))).pipe(
    Effect.retry(Schedule.spaced("10 millis").pipe(Schedule.upTo({ times: 1000 }))),
    Effect.orDie
  )

/** The same, from a test that runs on the TestClock. */
const waitUntilLive = (check: () => boolean, what: string) => TestClock.withLive(waitUntil(check, what))

const fake = (options: FakeServer.Options, extra: Partial<ManagerOptions.StdioServerConfig> = {}) => {
  const { args, command, env } = FakeServer.command(options)
  return { command, args, env, ...extra }
}

const build = (options: ManagerOptions.ManagerOptions) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(McpManager.layer(options).pipe(Layer.provide(NodeServices.layer)))
    return Context.get(context, McpManager.McpManager)
  })

const stateOf = (manager: McpManager.McpManager["Service"], name: string) =>
  manager.health().find((h) => h.name === name)!

describe("McpManager (real fake servers)", () => {
  it.live("StartDoesNotBlockOnDiscovery: the layer returns with every client registered; discovery follows", () =>
    Effect.gen(function*() {
      const manager = yield* build({
        servers: {
          never: fake({ modes: ["no-initialize"] }),
          slow: fake({ initDelay: 300 }),
          plain: fake({})
        }
      })
      for (const name of ["never", "slow", "plain"]) assert.isTrue((yield* manager.client(name)).isAlive())
      assert.strictEqual(stateOf(manager, "never").state, "starting")
      assert.strictEqual(stateOf(manager, "slow").state, "starting")
      const plain = yield* manager.waitForReady("plain")
      assert.strictEqual(plain.tools.length, 9)
      yield* manager.waitForReady("slow")
      assert.strictEqual(stateOf(manager, "never").state, "starting")
    }).pipe(Effect.scoped))

  it.live("CallRoutesToRightServer: calls go to the named server's process", () =>
    Effect.gen(function*() {
      const manager = yield* build({ servers: { one: fake({ tools: 1 }), five: fake({ tools: 5 }) } })
      yield* manager.waitForReady("one")
      yield* manager.waitForReady("five")
      const results = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) => manager.call(i % 2 === 0 ? "five" : "one", i % 2 === 0 ? "tool_5" : "tool_1", { value: String(i) }),
        { concurrency: "unbounded" }
      )
      results.forEach((r, i) =>
        assert.deepStrictEqual(r.structuredContent, {
          tool: i % 2 === 0 ? "tool_5" : "tool_1",
          args: { value: String(i) }
        })
      )
      const wrong = yield* Effect.exit(manager.call("one", "tool_5", {}))
      assert.isTrue(Exit.isFailure(wrong), "server one has no tool_5: the call was not rerouted")
    }).pipe(Effect.scoped))

  it.live("ListChangedRefreshesTools: a real list_changed burst refreshes the tool set", () =>
    Effect.gen(function*() {
      const seen: Array<ReadonlyArray<string>> = []
      const manager = yield* build({
        servers: { live: fake({ modes: ["list-changed"], changeAfter: 100, burst: 4 }) },
        onToolsChanged: (c) => Effect.sync(() => seen.push(c.tools.map((t) => t.name)))
      })
      yield* waitUntil(() => manager.tools().some((t) => t.tool.name === "generation_1"), "generation_1 listed")
      assert.isTrue(seen.some((names) => names.includes("generation_1")))
      assert.strictEqual(stateOf(manager, "live").state, "ready")
    }).pipe(Effect.scoped))

  it.effect("ReconnectsAfterCrash: a real crash is reconnected after the backoff (TestClock), and works again", () =>
    Effect.gen(function*() {
      const manager = yield* build({
        servers: { crashy: fake({ crashAfter: 4 }) },
        reconnect: { initialDelay: "5 seconds", maxAttempts: 3 }
      })
      yield* waitUntilLive(() => stateOf(manager, "crashy").state === "ready", "ready")
      const firstPid = stateOf(manager, "crashy").pid!
      // The era probe, initialize and tools/list were requests 1 to 3: the fourth request kills the server.
      const crash = yield* Effect.exit(manager.call("crashy", "echo", {}))
      assert.isTrue(Exit.isFailure(crash))
      yield* waitUntilLive(() => stateOf(manager, "crashy").state === "offline", "offline")
      yield* waitUntilLive(() => stateOf(manager, "crashy").attempt === 1, "reconnection scheduled")
      yield* TestClock.adjust("5 seconds")
      yield* waitUntilLive(() => stateOf(manager, "crashy").state === "ready", "ready again")
      const h = stateOf(manager, "crashy")
      assert.notStrictEqual(h.pid, firstPid)
      assert.strictEqual(h.attempt, 0)
      assert.isFalse(exists(firstPid))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a command that cannot be started is offline at once, said why, and not retried on a backoff", () =>
    Effect.gen(function*() {
      const manager = yield* build({
        servers: { typo: { command: "/nonexistent/mcp-server-typo" }, plain: fake({}) },
        reconnect: { initialDelay: "10 millis", maxAttempts: 5 }
      })
      const h = stateOf(manager, "typo")
      assert.strictEqual(h.state, "offline")
      assert.isTrue(h.gaveUp)
      assert.include(h.lastError ?? "", "could not be started")
      const error = yield* Effect.flip(manager.call("typo", "echo", {}))
      assert.strictEqual(error._tag, "ServerUnavailable")
      yield* manager.waitForReady("plain")
      assert.strictEqual(stateOf(manager, "typo").attempt, 0, "no reconnection attempt")
    }).pipe(Effect.scoped))

  it.live("closing the layer shuts every server down in parallel, even those that ignore SIGTERM", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const stubborn = { client: { shutdownGrace: 200, killGrace: 300 } }
      const manager = yield* build({
        servers: {
          a: fake({ modes: ["ignore-sigterm"] }, stubborn),
          b: fake({ modes: ["ignore-sigterm"] }, stubborn),
          c: fake({ modes: ["grandchild"] }, stubborn),
          d: fake({})
        }
      }).pipe(Scope.provide(scope))
      for (const name of ["a", "b", "c", "d"]) yield* manager.waitForReady(name)
      const pids = manager.health().map((h) => h.pid!)
      yield* Scope.close(scope, Exit.void)
      for (const pid of pids) {
        assert.isFalse(exists(pid), `pid ${pid} reaped`)
        assert.isFalse(exists(-pid), `group ${pid} gone`)
      }
    }))
})
