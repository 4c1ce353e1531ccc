/**
 * Run three MCP servers behind one McpManager layer. Run: `node packages/manager/examples/fleet.ts`
 * (the servers here are the test kit's fake server in a few modes; use any stdio MCP servers instead).
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { McpManager } from "@mcp-fleet/manager"
import { FakeServer } from "@mcp-fleet/testing"
import { Console, Effect, Layer, Schedule } from "effect"

const fake = (options: FakeServer.Options) => {
  const { args, command } = FakeServer.command(options)
  return { command, args }
}

// The app assembles every value; the manager reads no file and no environment variable.
const Fleet = McpManager.layer({
  servers: {
    search: { ...fake({ modes: ["tools-list-paged"], tools: 25, pageSize: 10 }), curated: ["echo"] },
    notes: fake({ initDelay: 200 }),
    legacy: { ...fake({}), disabled: true }
  },
  // Any Schedule: its delays space the attempts, and when it ends the server gives up (until restart).
  reconnect: Schedule.exponential("500 millis").pipe(Schedule.upTo({ times: 5 })),
  onStateChange: (change) => Console.log(`${change.server}: ${change.from} → ${change.to}`)
}).pipe(Layer.provide(NodeServices.layer))

const program = Effect.gen(function*() {
  const manager = yield* McpManager.McpManager
  // The layer is built: every enabled server is spawned; discovery runs in the background.
  yield* manager.waitForReady("search")
  yield* manager.waitForReady("notes")
  yield* Console.log(manager.statusLines())
  const result = yield* manager.call("notes", "echo", { note: "hello" })
  yield* Console.log(`notes/echo → ${JSON.stringify(result.structuredContent)}`)
  yield* Console.log(`${manager.tools().length} tools across ready servers`)
  // The fleet changes while it runs.
  yield* manager.add("late", fake({}))
  const late = yield* manager.waitForReady("late")
  yield* Console.log(`late joined with ${late.tools.length} tools`)
  yield* manager.remove("legacy")
  yield* Console.log(`servers now: ${manager.health().map((h) => h.name).sort().join(", ")}`)
}).pipe(Effect.provide(Fleet)) // closing the layer shuts every server down

NodeRuntime.runMain(program)
