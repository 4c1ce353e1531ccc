import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import { Tool } from "@mcp-fleet/transport"
import { Context, Effect, Exit, FileSystem, Layer, Scope } from "effect"
import * as ReferenceServers from "../src/ReferenceServers.ts"
import { exists } from "./support.ts"

const textOf = (result: { readonly content: ReadonlyArray<{ readonly [k: string]: unknown }> }) =>
  result.content.map((c) => (typeof c.text === "string" ? c.text : "")).join("\n")

describe("the reference servers through McpManager", () => {
  it.live("all four reach ready with their tools, hints and instructions; calls route; shutdown leaves nothing", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "mcp-fleet-interop-manager-" })
      yield* fs.writeFileString(`${dir}/hello.txt`, "hello from the manager test\n")
      const toolChanges: Array<string> = []
      const scope = yield* Scope.make()
      const servers = Object.fromEntries(
        ReferenceServers.names.map((name) => [name, ReferenceServers.command(name, dir)])
      )
      const context = yield* Layer.build(
        McpManager.layer({
          servers,
          onToolsChanged: (change) => Effect.sync(() => void toolChanges.push(change.server))
        }).pipe(Layer.provide(NodeServices.layer))
      ).pipe(Scope.provide(scope))
      const manager = Context.get(context, McpManager.McpManager)

      const ready = yield* Effect.forEach(ReferenceServers.names, (name) => manager.waitForReady(name), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(ready.map((h) => [h.name, h.tools.length]), [
        ["everything", 13],
        ["filesystem", 14],
        ["memory", 9],
        ["sequential-thinking", 1]
      ])
      assert.include(manager.statusLines(), "MCP: 4 servers (4 ready), 37 tools (0 curated, 37 external)")
      const everything = ready[0]!
      assert.isAbove((everything.instructions ?? "").length, 0, "everything sends instructions")

      // Hints stay tri-state through the manager: filesystem sends only some.
      const readText = manager.tools().find((t) => t.server === "filesystem" && t.tool.name === "read_text_file")!
      assert.strictEqual(Tool.hint(readText.tool, "readOnlyHint"), true)
      assert.strictEqual(Tool.hint(readText.tool, "destructiveHint"), "absent")
      assert.isFalse(Tool.mayWrite(readText.tool))

      // A real call to each server, routed by name.
      const echoed = yield* manager.call("everything", "echo", { message: "fleet" })
      assert.include(textOf(echoed), "fleet")
      const read = yield* manager.call("filesystem", "read_text_file", { path: `${dir}/hello.txt` })
      assert.include(textOf(read), "hello from the manager test")
      yield* manager.call("memory", "create_entities", {
        entities: [{ name: "fleet", entityType: "project", observations: ["runs many servers"] }]
      })
      const graph = yield* manager.call("memory", "read_graph", {})
      assert.include(textOf(graph), "runs many servers")
      const thought = yield* manager.call("sequential-thinking", "sequentialthinking", {
        thought: "one",
        thoughtNumber: 1,
        totalThoughts: 1,
        nextThoughtNeeded: false
      })
      assert.notStrictEqual(thought.isError, true)

      // everything's list_changed after initialized: its tool set did not really change, so the tools were
      // announced once per server (the first listing) and never again; and the notification cost at most one
      // re-list beyond discovery (the coalescing bound).
      assert.deepStrictEqual([...toolChanges].sort(), [...ReferenceServers.names].sort())
      const everythingClient = yield* manager.client("everything")
      const lists = everythingClient.stats().requests["tools/list"] ?? 0
      assert.isAtLeast(lists, 1)
      assert.isAtMost(lists, 2, `tools/list sent ${lists} times`)

      const pids = manager.health().map((h) => h.pid!)
      yield* Scope.close(scope, Exit.void)
      for (const pid of pids) {
        assert.isFalse(exists(pid), `pid ${pid} reaped`)
        assert.isFalse(exists(-pid), `group ${pid} gone`)
      }
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
