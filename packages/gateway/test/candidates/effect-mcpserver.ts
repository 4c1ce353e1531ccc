/**
 * Evidence for the gateway README's "Why this server side": Effect 4.1's own `effect/ai/McpServer` served over
 * `layerHttp` with both eras (2026-07-28 and 2025-11-25), with the smallest registrations the conformance suite's
 * server scenarios look for (one text tool, one text resource, one prompt), so that the suite measures the server
 * machinery itself: sessions, SSE, discovery, headers, DNS-rebinding checks. Not a test and not shipped.
 *
 *   node packages/gateway/test/candidates/effect-mcpserver.ts   # prints {"url":…} and serves until SIGTERM
 *
 * Then: `node <conformance>/dist/index.js server --url <url> --spec-version 2025-11-25` (and 2026-07-28).
 */
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import * as McpProtocol from "effect/ai/McpProtocol"
import * as McpServer from "effect/ai/McpServer"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"

const SimpleText = Tool.make("test_simple_text", {
  description: "Tests simple text content response",
  success: Schema.String
})
const Tools = Toolkit.make(SimpleText)
const ToolsLive = Tools.toLayer({
  test_simple_text: () => Effect.succeed("This is a simple text response for testing.")
})

const Registrations = Layer.mergeAll(
  McpServer.toolkit(Tools).pipe(Layer.provide(ToolsLive)),
  McpServer.resource({
    uri: "test://static-text",
    name: "static-text",
    mimeType: "text/plain",
    content: Effect.succeed("This is the content of the static text resource.")
  }),
  McpServer.prompt({
    name: "test_simple_prompt",
    description: "A simple prompt without arguments",
    content: () => Effect.succeed("This is a simple prompt for testing.")
  })
)

const Mcp = McpServer.layerHttp({
  name: "effect-mcpserver-candidate",
  version: "4.1.0",
  path: "/mcp",
  protocols: [McpProtocol.v2026_07_28, McpProtocol.v2025_11_25],
  allowSessionTermination: true,
  registrations: Registrations
})

const Announce = Layer.effectDiscard(
  Effect.flatMap(HttpServer.HttpServer, (server) =>
    Effect.sync(() => {
      const address = server.address
      const port = "port" in address ? address.port : 0
      process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, pid: process.pid })}\n`)
    }))
)

const Main = HttpRouter.serve(Mcp).pipe(
  Layer.merge(Announce),
  Layer.provide(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" }))
)

NodeRuntime.runMain(Layer.launch(Main))
