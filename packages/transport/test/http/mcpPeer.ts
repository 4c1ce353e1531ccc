/**
 * A small Streamable HTTP MCP server for the transport's tests, built on `HttpPeer`: sessions, JSON or SSE
 * answers, 202 for notifications, 405 for GET unless a test opens it, 200 for DELETE. `override` lets a test take
 * any request first.
 */
import type * as Http from "node:http"
import type { Handler, Recorded } from "./HttpPeer.ts"
import { callResult, event, initializeResult, json, openSse, paramsOf, result, toolsResult } from "./HttpPeer.ts"

export interface McpPeerOptions {
  /** How requests are answered. Default `json`. */
  readonly reply?: "json" | "sse"
  /** Whether initialize opens a session (ids `s1`, `s2`…). Default `true`. */
  readonly sessions?: boolean
  readonly tools?: ReadonlyArray<string>
  /** Handles a request first; returning `true` means it answered. */
  readonly override?: (request: Recorded, response: Http.ServerResponse, state: McpPeerState) => boolean
}

export interface McpPeerState {
  /** The live session id, if any. */
  session: string | undefined
  sessions: number
}

/** Answers `value` for `request` in the peer's reply mode. */
export const answer = (
  request: Recorded,
  res: Http.ServerResponse,
  value: unknown,
  mode: "json" | "sse",
  headers: Http.OutgoingHttpHeaders = {}
) => {
  if (mode === "json") return json(res, value, 200, headers)
  openSse(res, headers)
  res.write(event({ id: `${String(request.message?.id)}-0`, data: "" }))
  res.end(event({ id: `${String(request.message?.id)}-1`, event: "message", data: JSON.stringify(value) }))
}

export const mcpPeer = (options: McpPeerOptions = {}): { readonly handler: Handler; readonly state: McpPeerState } => {
  const mode = options.reply ?? "json"
  const state: McpPeerState = { session: undefined, sessions: 0 }
  const handler: Handler = (request, res) => {
    if (options.override?.(request, res, state) === true) return
    const sid = request.headers["mcp-session-id"]
    if (request.method === "DELETE") {
      if (sid !== undefined && sid === state.session) state.session = undefined
      res.writeHead(200).end()
      return
    }
    if (request.method === "GET") {
      res.writeHead(405).end()
      return
    }
    const msg = request.message
    if (msg === undefined) {
      json(res, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }, 400)
      return
    }
    if (msg.method === "initialize") {
      const headers: Http.OutgoingHttpHeaders = {}
      if (options.sessions !== false) {
        state.sessions++
        state.session = `s${state.sessions}`
        headers["mcp-session-id"] = state.session
      }
      answer(request, res, initializeResult(msg.id), mode, headers)
      return
    }
    if (options.sessions !== false && sid !== state.session) {
      json(res, { jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: No valid session ID provided" } }, 400)
      return
    }
    if (msg.id === undefined) {
      res.writeHead(202).end()
      return
    }
    switch (msg.method) {
      case "tools/list":
        return answer(request, res, toolsResult(msg.id, options.tools ?? ["echo"]), mode)
      case "tools/call": {
        const args = paramsOf(request).arguments
        const text = typeof args === "object" && args !== null && "text" in args ? String(args.text) : ""
        return answer(request, res, callResult(msg.id, `echo: ${text}`), mode)
      }
      case "ping":
        return answer(request, res, result(msg.id, {}), mode)
      default:
        return json(res, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } })
    }
  }
  return { handler, state }
}
