/**
 * Connect to one remote MCP server over HTTP, list its tools and call one. Run:
 * `node packages/transport/examples/remote.ts` (the server here is the test kit's HTTP peer on 127.0.0.1; point
 * `url` at any Streamable HTTP or legacy HTTP+SSE server).
 */
import { NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { HttpPeer } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Console, Effect, Redacted } from "effect"

const program = Effect.gen(function*() {
  const peer = yield* HttpPeer.serve(HttpPeer.mcpPeer({ reply: "sse", tools: ["echo"] }).handler)
  yield* Effect.scoped(Effect.gen(function*() {
    // Returns at once; initialize runs in the background. `auto` tries Streamable HTTP, then legacy HTTP+SSE.
    const client = yield* McpClient.make({
      url: peer.url,
      headers: { Authorization: Redacted.make("Bearer example-token") },
      name: "remote-demo"
    })
    const session = yield* client.awaitReady
    yield* Console.log(`connected over ${client.transport} to ${session.serverInfo.name} at ${client.url}`)
    const { tools } = yield* client.listTools()
    yield* Console.log(`tools: ${tools.map((t) => t.name).join(", ")}`)
    const result = yield* client.callTool("echo", { text: "hello" })
    yield* Console.log(`echo → ${JSON.stringify(result.content)}`)
  }))
  // Closing the client's scope ended the session (DELETE) and aborted its streams.
  yield* Console.log(`session ended: ${peer.requests.some((r) => r.method === "DELETE")}`)
}).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici))

NodeRuntime.runMain(program)
