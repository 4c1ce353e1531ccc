/**
 * A client under test for the conformance suite's `auth/*` scenarios: `McpAuth` (headless prompt, in-memory
 * store) in front of a minimal MCP-over-HTTP exchange (initialize, initialized, tools/list, tools/call of the
 * first tool), because the HTTP transport of `@mcp-fleet/transport` is not on main yet. When it is, the
 * transport's client replaces `rpc` below and this file shrinks to the options.
 *
 *   node conformance/dist/index.js client --command "node packages/auth/test/conformance/authClient.ts" \
 *     --scenario auth/metadata-default --spec-version 2025-11-25
 *
 * Pre-registered credentials come from `MCP_CONFORMANCE_CONTEXT` (`client_id`, `client_secret`).
 */
import { NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { AuthorizationPrompt, McpAuth, TokenStore } from "../../src/index.ts"

const url = process.argv.at(-1) ?? ""
const protocolVersion = process.env["MCP_CONFORMANCE_PROTOCOL_VERSION"] ?? "2025-11-25"
const context = JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}") as Record<string, unknown>
const clientId = typeof context["client_id"] === "string" ? context["client_id"] : undefined
const clientSecret = typeof context["client_secret"] === "string" ? context["client_secret"] : undefined

const AuthLive = McpAuth.layer({
  clientName: "mcp-fleet-conformance-client",
  redirectUri: "http://localhost:3000/callback",
  clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
  preRegistered: clientId === undefined ? undefined : [{
    clientId,
    clientSecret: clientSecret === undefined ? undefined : Redacted.make(clientSecret)
  }]
}).pipe(Layer.provideMerge(Layer.mergeAll(AuthorizationPrompt.layerHeadless, TokenStore.layerMemory)))

/** The JSON-RPC message in a JSON or SSE body. */
const messageOf = (text: string): unknown => {
  const data = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).filter((l) =>
    l !== ""
  )
  return JSON.parse(data.at(-1) ?? text)
}

/** 2026-07-28 has no initialize: every request carries `_meta` (SEP-2575). */
const modern = protocolVersion === "2026-07-28"
const CLIENT_INFO = { name: "mcp-fleet-conformance-client", version: "0.1.0" }

let sessionId: string | undefined
let nextId = 1

const rpc = (method: string, params: Record<string, unknown>, notification = false) =>
  Effect.gen(function*() {
    const auth = yield* McpAuth.McpAuth
    const client = yield* HttpClient.HttpClient
    const withMeta = modern && !notification
      ? {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": protocolVersion,
          "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }
      : params
    const body = notification
      ? { jsonrpc: "2.0", method, params: withMeta }
      : { jsonrpc: "2.0", id: nextId++, method, params: withMeta }
    const send = Effect.gen(function*() {
      const headers = yield* auth.headers(url)
      let request = yield* HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeader("accept", "application/json, text/event-stream"),
        HttpClientRequest.setHeader("mcp-protocol-version", protocolVersion),
        HttpClientRequest.setHeader("mcp-method", method),
        HttpClientRequest.bodyJson(body)
      )
      if (sessionId !== undefined) request = HttpClientRequest.setHeader(request, "mcp-session-id", sessionId)
      for (const [name, value] of Object.entries(headers)) {
        request = HttpClientRequest.setHeader(request, name, Redacted.value(value))
      }
      const response = yield* client.execute(request)
      sessionId = response.headers["mcp-session-id"] ?? sessionId
      return {
        status: response.status,
        wwwAuthenticate: response.headers["www-authenticate"],
        text: yield* response.text
      }
    }).pipe(Effect.scoped)
    let reply = yield* send
    for (let retry = 0; retry < 2 && (reply.status === 401 || reply.status === 403); retry++) {
      yield* auth.onChallenge(url, reply)
      reply = yield* send
    }
    if (reply.status >= 400) return yield* Effect.fail(new Error(`${method}: HTTP ${reply.status}`))
    yield* auth.onSuccess(url)
    return notification || reply.text === "" ? undefined : messageOf(reply.text)
  })

const program = Effect.gen(function*() {
  if (!modern) {
    yield* rpc("initialize", { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO })
    yield* rpc("notifications/initialized", {}, true)
  }
  const listed = (yield* rpc("tools/list", {})) as { result?: { tools?: Array<{ name: string }> } } | undefined
  const first = listed?.result?.tools?.[0]
  if (first !== undefined) yield* rpc("tools/call", { name: first.name, arguments: {} })
}).pipe(Effect.provide(AuthLive), Effect.provide(NodeHttpClient.layerUndici))

NodeRuntime.runMain(program)
