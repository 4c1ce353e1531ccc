/**
 * Using the library from an Effect program: two MCP servers behind one `McpManager` layer, a call routed to
 * one of them, and the status ledger. Run it with `node packages/cli/examples/fleet.ts`.
 *
 * The servers here are the repository's fake MCP server (so the example runs anywhere, with no network); put
 * any stdio MCP server's `command` / `args` / `env` in their place.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { serverPath as fakeServer } from "@mcp-fleet/fake-server"
import { McpManager } from "@mcp-fleet/manager"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

// The manager is a Layer: building it spawns the servers (discovery continues in the background);
// closing it — when the program ends, fails or is interrupted — shuts every server down.
const Fleet = McpManager.layer({
  servers: {
    notes: { command: process.execPath, args: [fakeServer, "annotations"] },
    search: { command: process.execPath, args: [fakeServer, "init-delay=500"], requestTimeout: "10 seconds" }
  },
  reconnect: { initialDelay: "500 millis", maxAttempts: 3 }
}).pipe(Layer.provide(NodeServices.layer))

const program = Effect.gen(function*() {
  const manager = yield* McpManager.McpManager
  yield* manager.waitForReady("notes").pipe(Effect.timeout("10 seconds"))
  const result = yield* manager.call("notes", "echo", { text: "hello" })
  yield* Console.log("notes/echo answered:", result.structuredContent)
  yield* manager.waitForReady("search").pipe(Effect.timeout("10 seconds"))
  yield* Console.log(manager.statusLines())
}).pipe(Effect.provide(Fleet))

NodeRuntime.runMain(program)
