import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { CliEnvironment, FleetConfig } from "@mcp-fleet/cli"
import { McpConfig } from "@mcp-fleet/config"
import type { ServerHealth } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { FakeSpawner, McpPeer } from "@mcp-fleet/testing"
import { Context, Deferred, Effect, Exit, FileSystem, Layer, Logger, Path, Queue, Stream } from "effect"

/** Serves one tool `t` on every spawn; counts spawns per command. */
const spawner = () => {
  const count: Record<string, number> = {}
  const layer = FakeSpawner.layer((peer) => {
    const name = peer.command.command
    count[name] = (count[name] ?? 0) + 1
    return McpPeer.serve({
      onRequest: (msg) =>
        Effect.succeed(
          msg.method === "tools/list"
            ? { tools: [{ name: "t", inputSchema: { type: "object" } }] }
            : { content: [{ type: "text", text: name }] }
        )
    })(peer)
  })
  return { count, layer }
}

/** Waits (on the snapshots stream) until the fleet's ready servers are exactly `names`. */
const readyAre = (manager: McpManager.McpManager["Service"], names: ReadonlyArray<string>) =>
  manager.snapshots.pipe(
    Stream.filter((all: ReadonlyArray<ServerHealth.ServerHealth>) =>
      all.length === names.length && all.every((h) => h.state === "ready" && names.includes(h.name))
    ),
    Stream.runHead
  )

describe("FleetConfig.follow (config-file reload)", () => {
  it.live("a valid edit is applied; an invalid or half-written one is logged and changes nothing", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = path.join(dir, "mcp.json")
      const write = (servers: Record<string, unknown>) =>
        fs.writeFileString(file, JSON.stringify({ mcpServers: servers }, null, 2))
      yield* write({ a: { command: "a" } })
      const { count, layer } = spawner()
      const initial = yield* McpConfig.load(file, { env: {} })
      const context = yield* Layer.build(
        McpManager.layer(FleetConfig.toManagerOptions(initial)).pipe(Layer.provide(layer))
      )
      const manager = Context.get(context, McpManager.McpManager)
      yield* readyAre(manager, ["a"])

      const warnings = yield* Queue.unbounded<string>()
      const capture = Logger.make(({ logLevel, message }) => {
        if (logLevel === "Warn") {
          Queue.offerUnsafe(warnings, Array.isArray(message) ? message.join(" ") : String(message))
        }
      })
      const watching = yield* Deferred.make<void>()
      yield* FleetConfig.follow(file, manager, {
        debounce: "30 millis",
        onReady: () => Deferred.doneUnsafe(watching, Exit.void)
      }).pipe(
        Effect.provide(Logger.layer([capture])),
        Effect.provide(CliEnvironment.layer({ env: {}, execPath: process.execPath })),
        Effect.forkScoped
      )
      yield* Deferred.await(watching)

      // A valid edit: b is added.
      yield* write({ a: { command: "a" }, b: { command: "b" } })
      yield* readyAre(manager, ["a", "b"])
      assert.deepStrictEqual(count, { a: 1, b: 1 })

      // An invalid edit: logged, the fleet untouched.
      const invalid = JSON.stringify({ mcpServers: { a: { command: 5 } } })
      yield* fs.writeFileString(file, invalid)
      const warning = yield* Queue.take(warnings)
      assert.include(warning, "was not applied (the servers keep running as they were)")
      assert.include(warning, "mcpServers.a.command")

      // A half-written file (cut mid-write): an error, never an empty fleet.
      const full = JSON.stringify({ mcpServers: { b: { command: "b" } } })
      yield* fs.writeFileString(file, full.slice(0, full.length - 7))
      const half = yield* Queue.take(warnings)
      assert.include(half, "was not applied")
      assert.notStrictEqual(half, warning)
      assert.deepStrictEqual(manager.health().map((h) => `${h.name}:${h.state}`).sort(), ["a:ready", "b:ready"])
      assert.deepStrictEqual(count, { a: 1, b: 1 }, "nothing restarted")

      // The edit completed: a is removed, b left alone.
      yield* fs.writeFileString(file, full)
      yield* readyAre(manager, ["b"])
      assert.deepStrictEqual(count, { a: 1, b: 1 })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
