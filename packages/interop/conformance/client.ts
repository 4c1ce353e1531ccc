/**
 * The client under test for `pnpm conformance` (see run.ts): mcp-fleet's own client,
 * `McpClient.make({ url })` from `@mcp-fleet/transport` over undici, does what each scenario asks.
 *
 * The suite runs `node client.ts <server URL>` with, in the environment, `MCP_CONFORMANCE_SCENARIO`, the
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` of the run, and `MCP_CONFORMANCE_CONTEXT` (JSON scenario data). It exits
 * 0 when it did what the scenario wants, and 1 with the error on stderr when it could not.
 *
 * The auth extension scenarios (`auth/client-credentials-*`, `auth/wif-jwt-bearer`,
 * `auth/enterprise-managed-authorization`, `auth/dpop*`) run the same client with the `McpAuth` of `auth.ts` in its
 * environment: the HTTP transport then authorizes as a host's would.
 *
 * The SEP-2640 skills scenarios (`sep-2640-client-*`) list the server's skills; `no-prefetch` stops there (a listing
 * must read no file), and the `verify-*` ones load every listed skill and, when a load succeeds, read each of its
 * files, as a host acting on the skill would: a client that did not verify `SKILL.md` would go on to read the
 * supporting file, which is what those scenarios catch. A skill refused by verification is reported on stderr and is
 * not an error of the client (it did what the extension asks).
 */
import { NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { Elicitation, McpClient, Skills } from "@mcp-fleet/transport"
import type { Tool } from "@mcp-fleet/transport"
import { Effect, Layer } from "effect"
import { forScenario } from "./auth.ts"

/** The protocol revisions this client speaks. */
const SUPPORTED = ["2025-06-18", "2025-11-25", "2026-07-28"]

const url = process.argv.at(-1) ?? ""
const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""
const protocolVersion = process.env["MCP_CONFORMANCE_PROTOCOL_VERSION"] ?? "2025-11-25"

/** The scenario's data (`MCP_CONFORMANCE_CONTEXT`), as sent. */
const rawContext = (): Readonly<Record<string, unknown>> => {
  const parsed: unknown = JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}")
  return typeof parsed === "object" && parsed !== null ? { ...parsed } : {}
}

/** The scenario's data (`MCP_CONFORMANCE_CONTEXT`): the tool calls it wants made, when it says. */
const context = (): { readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: unknown }> } => {
  const parsed = rawContext()
  const calls = parsed["toolCalls"]
  return {
    toolCalls: Array.isArray(calls)
      ? calls.flatMap((call: unknown) =>
        typeof call === "object" && call !== null && "name" in call && typeof call.name === "string"
          ? [{ name: call.name, arguments: "arguments" in call ? call.arguments : {} }]
          : []
      )
      : []
  }
}

/** The first `key` string of each item of `list[field]` in a raw result. */
const firstOf = (raw: unknown, field: string, key: string): string | undefined => {
  if (typeof raw !== "object" || raw === null || !(field in raw)) return undefined
  const items: unknown = Reflect.get(raw, field)
  const first: unknown = Array.isArray(items) ? items[0] : undefined
  const value: unknown = typeof first === "object" && first !== null ? Reflect.get(first, key) : undefined
  return typeof value === "string" ? value : undefined
}

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
      case "sep-2322-client-request-state": {
        // Two multi-round calls (one with requestState, one without) while an unrelated call runs beside them.
        yield* Effect.all([
          client.callTool("test_mrtr_echo_state", {}),
          client.callTool("test_mrtr_no_state", {}),
          client.callTool("test_mrtr_unrelated", {})
        ], { concurrency: "unbounded" })
        yield* client.callTool("test_mrtr_no_result_type", {})
        return
      }
      case "http-standard-headers": {
        // Every method whose headers the scenario checks.
        for (const tool of tools) yield* client.callTool(tool.name, {})
        const resources = yield* client.request("resources/list", {})
        const uri = firstOf(resources, "resources", "uri")
        if (uri !== undefined) yield* client.request("resources/read", { uri })
        const prompts = yield* client.request("prompts/list", {})
        const prompt = firstOf(prompts, "prompts", "name")
        if (prompt !== undefined) yield* client.request("prompts/get", { name: prompt })
        return
      }
      case "http-custom-headers": {
        for (const call of context().toolCalls) {
          const args = typeof call.arguments === "object" && call.arguments !== null ? { ...call.arguments } : {}
          yield* client.callTool(call.name, args)
        }
        return
      }
      case "http-invalid-tool-headers": {
        // Tools with invalid x-mcp-header annotations are not listed; every listed one is called.
        for (const tool of tools) yield* client.callTool(tool.name, { region: "us-west1" })
        return
      }
      case "sep-2640-client-no-prefetch":
        // Discovery only: the listing must read no skill file.
        yield* client.listSkills()
        return
      case "sep-2640-client-verify-digest":
      case "sep-2640-client-verify-size":
      case "sep-2640-client-verify-frontmatter": {
        const { skills } = yield* client.listSkills()
        for (const skill of skills) {
          const files = skill.resources === "dynamic" ? [] : skill.resources.filter((file) => file.uri !== skill.uri)
          yield* client.loadSkill(skill).pipe(
            Effect.flatMap((loaded) => Effect.forEach(files, (file) => loaded.read(file.uri), { discard: true })),
            Effect.catchIf(
              (error): error is Skills.SkillVerificationFailed => error instanceof Skills.SkillVerificationFailed,
              (error) => Effect.sync(() => process.stderr.write(`skill refused: ${error.message}\n`))
            )
          )
        }
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
    // At 2026-07-28 the era is found by probing (server/discover first); earlier runs pin the legacy era, whose
    // schema has no server/discover.
    protocol: protocolVersion === "2026-07-28" ? "auto" : "legacy",
    // Only the scenarios that elicit get a handler (the MRTR one's input requests are elicitations asking to
    // confirm): every other scenario sees the default `capabilities: {}`.
    ...(scenario.startsWith("elicitation-") || scenario.startsWith("sep-2322-")
      ? { handlers: { elicitation: Elicitation.acceptDefaults } }
      : {})
  })
  yield* client.awaitReady
  yield* play(client)
}).pipe(
  Effect.scoped,
  Effect.provide(
    Layer.provideMerge(forScenario(scenario, rawContext()) ?? Layer.empty, NodeHttpClient.layerUndici)
  )
)

NodeRuntime.runMain(program)
