/**
 * subscriptions/listen under the manager (issue 16), against the fake server's modern era over real HTTP on
 * 127.0.0.1: list changes reach `onToolsChanged` exactly once per real change (a burst is one), the listen is
 * re-opened after the server restarts (and what changed meanwhile is seen), a listen that is never acknowledged
 * leaves the server ready with its tools, and closing the manager ends the stream. Over stdio (the fake's modern
 * era as a process): a resource subscription rides on the manager's listen, and its updates reach `resourceUpdates`.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { FakeHttpServer, FakeServer } from "@mcp-fleet/testing"
import { Context, Effect, Exit, Fiber, Layer, Queue, Schedule, Scope, Stream } from "effect"

type ToolsChange = ManagerOptions.ToolsChange

const build = (options: ManagerOptions.ManagerOptions) =>
  Effect.gen(function*() {
    const layer = McpManager.layer(options).pipe(Layer.provide([NodeServices.layer, NodeHttpClient.layerUndici]))
    return Context.get(yield* Layer.build(layer), McpManager.McpManager)
  })
const names = (change: ToolsChange) => change.tools.map((t) => t.name).filter((n) => n.startsWith("generation_"))

describe("McpManager and subscriptions/listen (modern HTTP fake)", { timeout: 60_000 }, () => {
  it.live("one onToolsChanged per real change, a burst included; the server is modern in health", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["modern"])
      const changes = yield* Queue.unbounded<ToolsChange>()
      const manager = yield* build({
        servers: { fake: { url: server.url } },
        onToolsChanged: (change) => Queue.offer(changes, change).pipe(Effect.asVoid)
      })
      yield* manager.waitForReady("fake")
      const health = yield* manager.serverHealth("fake")
      assert.deepStrictEqual(health.protocol, { era: "modern", version: "2026-07-28" })
      // The first listing (before any change).
      assert.deepStrictEqual(names(yield* Queue.take(changes)), [])
      yield* manager.call("fake", "change_tools", { burst: 3 })
      const first = yield* Queue.take(changes)
      assert.deepStrictEqual(names(first), ["generation_1"])
      yield* manager.call("fake", "change_tools", {})
      const second = yield* Queue.take(changes)
      assert.deepStrictEqual(names(second), ["generation_2"])
      // Nothing else came: the ack's re-list and the burst's extra notifications fired nothing.
      assert.strictEqual(yield* Queue.size(changes), 0)
      const requests = yield* Effect.promise(async () =>
        (await (await fetch(`${server.origin}/_fake/requests`)).json()) as Array<{ rpc?: string }>
      )
      assert.strictEqual(requests.filter((r) => r.rpc === "subscriptions/listen").length, 1)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("the listen is re-opened after the server restarts, and the change made meanwhile is seen", () =>
    Effect.gen(function*() {
      const firstScope = yield* Scope.make()
      const first = yield* FakeHttpServer.start(["modern"]).pipe(Scope.provide(firstScope))
      const changes = yield* Queue.unbounded<ToolsChange>()
      const manager = yield* build({
        servers: { fake: { url: first.url } },
        // Real HTTP, so real time: while the server is down each re-open fails at once; retry every 25 ms (the
        // test itself waits on the change events, not on time).
        reconnect: Schedule.max([Schedule.spaced("25 millis"), Schedule.recurs(400)]),
        onToolsChanged: (change) => Queue.offer(changes, change).pipe(Effect.asVoid)
      })
      yield* manager.waitForReady("fake")
      assert.deepStrictEqual(names(yield* Queue.take(changes)), [])
      yield* manager.call("fake", "change_tools", {})
      assert.deepStrictEqual(names(yield* Queue.take(changes)), ["generation_1"])
      yield* Scope.close(firstScope, Exit.void)
      // The restarted server has lost generation_1: the re-opened listen's ack re-lists and sees it gone.
      yield* FakeHttpServer.start(["modern", `port=${first.port}`])
      assert.deepStrictEqual(names(yield* Queue.take(changes)), [])
      yield* manager.call("fake", "change_tools", {})
      assert.deepStrictEqual(names(yield* Queue.take(changes)), ["generation_1"])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("closing the manager leaves no listen stream open on the server", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["modern"])
      const subscriptions = (until?: number) =>
        Effect.promise(async () =>
          (await (await fetch(`${server.origin}/_fake/subscriptions${until === undefined ? "" : `?until=${until}`}`))
            .json()) as Array<unknown>
        )
      const scope = yield* Scope.make()
      const acknowledged = yield* Queue.unbounded<ToolsChange>()
      const manager = yield* build({
        servers: { fake: { url: server.url } },
        onToolsChanged: (change) => Queue.offer(acknowledged, change).pipe(Effect.asVoid)
      }).pipe(Scope.provide(scope))
      yield* manager.waitForReady("fake")
      // A change seen proves the stream is open and acknowledged.
      yield* Queue.take(acknowledged)
      yield* manager.call("fake", "change_tools", {})
      yield* Queue.take(acknowledged)
      assert.strictEqual((yield* subscriptions()).length, 1)
      yield* Scope.close(scope, Exit.void)
      // The server answers once it has seen the stream close (an event on its side, not a poll).
      assert.deepStrictEqual(yield* subscriptions(0), [])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a listen that is never acknowledged leaves the server ready with its tools", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["modern", "listen-no-ack"])
      const manager = yield* build({
        servers: { fake: { url: server.url } },
        startupTimeout: "300 millis",
        reconnect: Schedule.recurs(1)
      })
      yield* manager.waitForReady("fake")
      const health = yield* manager.serverHealth("fake")
      assert.strictEqual(health.state, "ready")
      assert.include(health.tools.map((t) => t.name), "echo")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("stdio: a resource subscription rides on the manager's listen; its updates reach resourceUpdates", () =>
    Effect.gen(function*() {
      const fake = FakeServer.command({ modes: ["modern"] })
      const changes = yield* Queue.unbounded<ToolsChange>()
      const manager = yield* build({
        servers: { fake: { command: fake.command, args: fake.args, env: fake.env } },
        onToolsChanged: (change) => Queue.offer(changes, change).pipe(Effect.asVoid)
      })
      yield* manager.waitForReady("fake")
      // The first listing follows the listen's acknowledgement: the listen is open.
      yield* Queue.take(changes)
      const client = yield* manager.client("fake")
      yield* client.subscribeResource("fake://readme")
      const update = yield* client.resourceUpdates("fake://readme").pipe(
        Stream.take(1),
        Stream.runCollect,
        Effect.forkChild
      )
      const touched = yield* manager.call("fake", "touch", { uri: "fake://readme" })
      // One stream on the server has the URI: the manager's listen, renewed (its old request cancelled).
      assert.deepStrictEqual(touched.structuredContent, { sent: 1 })
      const [received] = yield* Fiber.join(update)
      assert.strictEqual(received?.uri, "fake://readme")
      // The renewal is not a change: list changes still arrive once each, on the same listen.
      yield* manager.call("fake", "change_tools", {})
      assert.deepStrictEqual(names(yield* Queue.take(changes)), ["generation_1"])
      assert.strictEqual(yield* Queue.size(changes), 0)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("HTTP: a subscription renews the manager's listen; the old stream is closed on the server", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start(["modern"])
      // The listen streams open on the server once exactly `n` are (an event on the server's side, not a poll).
      const open = (n: number) =>
        Effect.promise(async () =>
          (await (await fetch(`${server.origin}/_fake/subscriptions?until=${n}`)).json()) as Array<unknown>
        )
      const changes = yield* Queue.unbounded<ToolsChange>()
      const manager = yield* build({
        servers: { fake: { url: server.url } },
        onToolsChanged: (change) => Queue.offer(changes, change).pipe(Effect.asVoid)
      })
      yield* manager.waitForReady("fake")
      yield* Queue.take(changes)
      const [first] = yield* open(1)
      const client = yield* manager.client("fake")
      yield* client.subscribeResource("fake://readme")
      // One stream again, and not the first one: the renewal replaced it.
      const renewed = yield* open(1)
      assert.strictEqual(renewed.length, 1)
      assert.notDeepEqual(renewed[0], first)
      const update = yield* client.resourceUpdates("fake://readme").pipe(
        Stream.take(1),
        Stream.runCollect,
        Effect.forkChild
      )
      assert.deepStrictEqual((yield* manager.call("fake", "touch", { uri: "fake://readme" })).structuredContent, {
        sent: 1
      })
      assert.strictEqual((yield* Fiber.join(update))[0]?.uri, "fake://readme")
      yield* client.unsubscribeResource("fake://readme")
      // The renewal's new stream is acknowledged when unsubscribe returns; the old one's close may still be on its
      // way to the server: wait for it there (one stream open again) before asking who is told of an update.
      assert.strictEqual((yield* open(1)).length, 1)
      assert.deepStrictEqual((yield* manager.call("fake", "touch", { uri: "fake://readme" })).structuredContent, {
        sent: 0
      })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
