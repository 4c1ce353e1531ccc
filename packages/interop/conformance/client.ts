/**
 * The client under test for `pnpm conformance` (see run.ts): mcp-fleet's own client,
 * `McpClient.make({ url })` from `@mcp-fleet/transport` over undici, does what each scenario asks.
 *
 * The suite runs `node client.ts <server URL>` with, in the environment, `MCP_CONFORMANCE_SCENARIO`, the
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` of the run, and `MCP_CONFORMANCE_CONTEXT` (JSON scenario data). It exits
 * 0 when it did what the scenario wants, and 1 with the error on stderr when it could not.
 */
import { NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { Elicitation, McpClient } from "@mcp-fleet/transport"
import type { Tool } from "@mcp-fleet/transport"
import { Effect } from "effect"

/** The protocol revisions this client speaks (2026-07-28 is issue 16). */
const SUPPORTED = ["2025-06-18", "2025-11-25"]

const url = process.argv.at(-1) ?? ""
const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""
const protocolVersion = process.env["MCP_CONFORMANCE_PROTOCOL_VERSION"] ?? "2025-11-25"

const find = (tools: ReadonlyArray<Tool.DiscoveredTool>, name: string) =>
  Effect.fromNullishOr(tools.find((t) => t.name === name)).pipe(
    Effect.mapError(() =>
      new Error(`the server lists no tool ${name} (it lists ${tools.map((t) => t.name).join(", ")})`)
    )
  )

/** What each scenario wants once the client is ready: a list, then the calls it checks. */
const play = (client: McpClient.McpClient) =>
  Effect.gen(function*() {
    if (scenario === "initialize") return
    const { tools } = yield* client.listTools()
    switch (scenario) {
      case "tools_call": {
        yield* find(tools, "add_numbers")
        yield* client.callTool("add_numbers", { a: 5, b: 3 })
        return
      }
      case "json-schema-2020-12-preservation": {
        // Echo the other tool's inputSchema back as the server received it: the check is that nothing in
        // it ($schema, $defs, additionalProperties, allOf/anyOf, if/then/else, $anchor) was lost.
        yield* find(tools, "json_schema_echo")
        const focal = yield* Effect.fromNullishOr(tools.find((t) => t.name !== "json_schema_echo")).pipe(
          Effect.mapError(() => new Error("the server lists no tool beside json_schema_echo"))
        )
        yield* client.callTool("json_schema_echo", { schema: focal.inputSchema })
        return
      }
      case "sse-retry": {
        // The answer arrives only after the client resumes the dropped stream (GET + Last-Event-ID).
        yield* find(tools, "test_reconnection")
        yield* client.callTool("test_reconnection", {})
        return
      }
      case "elicitation-sep1034-client-defaults": {
        // The server elicits a form whose every field has a default; the client accepts what it was given, which
        // is the defaults the session filled in (SEP-1034), checked against the schema before it is sent.
        yield* find(tools, "test_client_elicitation_defaults")
        yield* client.callTool("test_client_elicitation_defaults", {})
        return
      }
      default:
        // Unknown scenario: the handshake and the list are all this client knows to do.
        return
    }
  })

const program = Effect.gen(function*() {
  if (!SUPPORTED.includes(protocolVersion)) {
    return yield* Effect.fail(new Error(`protocol version ${protocolVersion} is not supported yet (issue 16)`))
  }
  const client = yield* McpClient.make({
    url,
    transport: "http",
    name: `conformance-${scenario}`,
    clientInfo: { name: "mcp-fleet-conformance-client", version: "0.1.0" },
    requestTimeout: "20 seconds",
    // Only the scenario that elicits gets a handler: every other scenario sees the default `capabilities: {}`.
    ...(scenario.startsWith("elicitation-") ? { handlers: { elicitation: Elicitation.acceptDefaults } } : {})
  })
  yield* client.awaitReady
  yield* play(client)
}).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici))

NodeRuntime.runMain(program)
