/**
 * Start one MCP server, list its tools and call one. Run: `node packages/transport/examples/quickstart.ts`
 * (the server here is the test kit's fake server; point `command`/`args` at any stdio MCP server).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { FakeServer } from "@mcp-fleet/testing"
import * as McpClient from "@mcp-fleet/transport/McpClient"
import * as Tool from "@mcp-fleet/transport/Tool"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

const server = FakeServer.command({ modes: ["annotations"] })

const program = Effect.gen(function*() {
  // Spawns the server and returns at once; initialize runs in the background.
  const client = yield* McpClient.make({ command: server.command, args: server.args, name: "demo" })
  const session = yield* client.awaitReady
  yield* Console.log(`connected to ${session.serverInfo.name} (protocol ${session.protocolVersion})`)

  const { tools } = yield* client.listTools()
  for (const tool of tools) {
    yield* Console.log(
      `${tool.name}: readOnlyHint=${Tool.hint(tool, "readOnlyHint")}, may write: ${Tool.mayWrite(tool)}`
    )
  }

  const result = yield* client.callTool("echo", { hello: "world" })
  yield* Console.log(`echo → ${JSON.stringify(result.structuredContent)}`)
}).pipe(
  // Closing the scope shuts the server down: stdin EOF → grace → SIGTERM → SIGKILL, whole process group.
  Effect.scoped,
  Effect.provide(NodeServices.layer)
)

NodeRuntime.runMain(program)
