/**
 * Connect to one remote MCP server over HTTP, list its tools and call one. Run:
 * `node packages/transport/examples/remote.ts` (the server here is the fake MCP server's HTTP mode,
 * `@mcp-fleet/fake-server`'s `src/http-server.mjs`, started on 127.0.0.1; point `url` at any Streamable HTTP or
 * legacy HTTP+SSE server).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { FakeHttpServer } from "@mcp-fleet/testing"
import * as McpClient from "@mcp-fleet/transport/McpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

const program = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["reply=sse"])
  yield* Effect.scoped(Effect.gen(function*() {
    // Returns at once; initialize runs in the background. `auto` tries Streamable HTTP, then legacy HTTP+SSE.
    const client = yield* McpClient.make({
      url: server.url,
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
  // Closing the client's scope ended the session (DELETE) and aborted its streams: the server's request log says so.
  const log = yield* HttpClient.get(`${server.origin}/_fake/requests`).pipe(Effect.flatMap((r) => r.text))
  yield* Console.log(`session ended: ${log.includes(`"method":"DELETE"`)}`)
}).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)))

NodeRuntime.runMain(program)
