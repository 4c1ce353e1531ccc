// The tools every @modelcontextprotocol/server (v2) fixture serves, written once for the stdio
// (v2-stdio.mjs) and the HTTP (v2-server.mjs) host. The SDK serves one factory in both eras:
//
//   echo {text}     returns its text.
//   change_tools    adds the tool generation_<N> and announces the change (list_changed; on a modern
//                   connection the SDK routes it onto the subscriptions/listen streams).
//   confirm {what}  multi-round-trip: asks the client to confirm through an elicitation; answers
//                   "confirmed <what>" once the retry carries an accepted { confirm: true }. On a
//                   2026-07-28 request that is `resultType: "input_required"`; on a 2025-era
//                   connection the SDK's shim sends a real elicitation/create request instead.
//
// `ttl=N` (argv) adds the cache hint { ttlMs: N, cacheScope: "private" } to tools/list results.
import { acceptedContent, fromJsonSchema, inputRequired, McpServer } from "@modelcontextprotocol/server"

/** The fixture's options, from argv tokens `key=value`. */
export function options(argv) {
  const get = (key) => argv.find((t) => t.startsWith(`${key}=`))?.slice(key.length + 1)
  const ttl = get("ttl")
  return { port: Number(get("port") ?? 0), legacy: get("legacy"), ttlMs: ttl === undefined ? undefined : Number(ttl) }
}

const schema = (properties, required = []) => fromJsonSchema({ type: "object", properties, required })

/**
 * A server factory. State (the tool generation) lives here, outside the instances, because the HTTP host
 * builds one instance per request. `announce` tells clients the tool set changed: "register" adds the tool
 * to the live instance (stdio: one instance per connection; registering sends list_changed), a function is
 * called instead (HTTP: the next request's instance lists the new tool).
 */
export function createFactory({ ttlMs, announce }) {
  let generation = 0
  const addGeneration = (server, n) =>
    server.registerTool(
      `generation_${n}`,
      { description: `Present after the tool set changed ${n} time(s).`, inputSchema: schema({}) },
      async () => ({ content: [{ type: "text", text: `generation_${n} called` }] })
    )
  return () => {
    const server = new McpServer(
      { name: "echo-v2", version: "1.0.0" },
      {
        capabilities: { tools: { listChanged: true } },
        ...(ttlMs === undefined ? {} : { cacheHints: { "tools/list": { ttlMs, cacheScope: "private" } } })
      }
    )
    server.registerTool(
      "echo",
      { description: "Returns its text.", inputSchema: schema({ text: { type: "string" } }, ["text"]) },
      async ({ text }) => ({ content: [{ type: "text", text }] })
    )
    server.registerTool(
      "change_tools",
      { description: "Test control: adds a tool and announces the change.", inputSchema: schema({}) },
      async () => {
        generation += 1
        if (announce === "register") addGeneration(server, generation)
        else announce()
        return { content: [{ type: "text", text: `tool set changed (generation ${generation})` }] }
      }
    )
    server.registerTool(
      "confirm",
      {
        description: "Multi-round-trip: asks for confirmation through an elicitation.",
        inputSchema: schema({ what: { type: "string" } }, ["what"])
      },
      async ({ what }, ctx) => {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, "confirm")
        if (answer?.confirm === true) return { content: [{ type: "text", text: `confirmed ${what}` }] }
        if (answer !== undefined) return { content: [{ type: "text", text: `not confirmed ${what}` }] }
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Confirm ${what}?`,
              requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] }
            })
          }
        })
      }
    )
    for (let n = 1; n <= generation; n++) addGeneration(server, n)
    return server
  }
}
