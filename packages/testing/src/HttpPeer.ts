/**
 * A scriptable HTTP peer for tests of remote MCP clients: a real `node:http` server on 127.0.0.1, a handler per
 * test, every request recorded, and a latch on requests (tests wait for events, never for time). `mcpPeer` is a
 * small Streamable HTTP MCP server on top of it (sessions, JSON or SSE answers, 202 for notifications, 405 for
 * GET unless a test opens it, 200 for DELETE), which a test can override request by request.
 *
 * Closing its scope closes every connection and the server, so no socket outlives a test.
 *
 * @since 0.2.0
 */
import { Effect, Exit } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** @since 0.2.0 */
export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  /** The body parsed as JSON, when it is JSON. */
  readonly message: { readonly id?: unknown; readonly method?: string; readonly params?: unknown } | undefined
  /** Resolved when the client closes or aborts this request's connection before the answer ended. */
  aborted: boolean
}

/** @since 0.2.0 */
export type Handler = (request: Recorded, response: Http.ServerResponse) => void

/** @since 0.2.0 */
export interface Peer {
  readonly url: string
  readonly origin: string
  readonly requests: Array<Recorded>
  /** Waits until some recorded request satisfies `check` (checked on each new request and on each abort). */
  readonly waitFor: (check: (request: Recorded) => boolean) => Effect.Effect<Recorded>
  /** The requests of an MCP method (`initialize`, `tools/call`…), in order. */
  readonly calls: (method: string) => ReadonlyArray<Recorded>
}

const parse = (body: string): Recorded["message"] => {
  try {
    const value: unknown = JSON.parse(body)
    return typeof value === "object" && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Serves `handler` at `http://127.0.0.1:<port><path>` for the life of the scope.
 *
 * @since 0.2.0
 */
export const serve = (handler: Handler, path = "/mcp") =>
  Effect.gen(function*() {
    const requests: Array<Recorded> = []
    const waiters = new Set<() => void>()
    const notify = () => {
      for (const waiter of [...waiters]) waiter()
    }
    const server = Http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        const recorded: Recorded = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body,
          message: parse(body),
          aborted: false
        }
        res.on("close", () => {
          if (!res.writableFinished) {
            recorded.aborted = true
            notify()
          }
        })
        requests.push(recorded)
        handler(recorded, res)
        notify()
      })
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Exit.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Exit.void))
        })
    )
    const port = (server.address() as AddressInfo).port
    const origin = `http://127.0.0.1:${port}`
    const peer: Peer = {
      url: `${origin}${path}`,
      origin,
      requests,
      waitFor: (check) =>
        Effect.callback<Recorded>((resume) => {
          const attempt = () => {
            const found = requests.find(check)
            if (found === undefined) return
            waiters.delete(attempt)
            resume(Exit.succeed(found))
          }
          waiters.add(attempt)
          attempt()
          return Effect.sync(() => waiters.delete(attempt))
        }),
      calls: (method) => requests.filter((r) => r.message?.method === method)
    }
    return peer
  })

/**
 * Answers with one JSON body.
 *
 * @since 0.2.0
 */
export const json = (
  res: Http.ServerResponse,
  value: unknown,
  status = 200,
  headers: Http.OutgoingHttpHeaders = {}
) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(value))
}

/**
 * One SSE event's text.
 *
 * @since 0.2.0
 */
export const event = (
  fields: { readonly id?: string; readonly retry?: number; readonly event?: string; readonly data: string }
) =>
  `${fields.id !== undefined ? `id: ${fields.id}\n` : ""}${
    fields.retry !== undefined ? `retry: ${fields.retry}\n` : ""
  }${fields.event !== undefined ? `event: ${fields.event}\n` : ""}data: ${fields.data}\n\n`

/**
 * Starts an event stream (the caller writes events and ends it).
 *
 * @since 0.2.0
 */
export const openSse = (res: Http.ServerResponse, headers: Http.OutgoingHttpHeaders = {}) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers })
  res.flushHeaders()
}

/**
 * A JSON-RPC result for `id`.
 *
 * @since 0.2.0
 */
export const result = (id: unknown, value: unknown) => ({ jsonrpc: "2.0", id, result: value })

/**
 * The initialize result of a 2025-11-25 server.
 *
 * @since 0.2.0
 */
export const initializeResult = (id: unknown, protocolVersion = "2025-11-25") =>
  result(id, {
    protocolVersion,
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: "peer", version: "1" }
  })

/**
 * A tools/list page.
 *
 * @since 0.2.0
 */
export const toolsResult = (id: unknown, names: ReadonlyArray<string>) =>
  result(id, { tools: names.map((name) => ({ name, inputSchema: { type: "object" } })) })

/**
 * A tools/call result echoing the arguments.
 *
 * @since 0.2.0
 */
export const callResult = (id: unknown, text: string) => result(id, { content: [{ type: "text", text }] })

/**
 * The request's JSON-RPC `params` as a record (empty when absent).
 *
 * @since 0.2.0
 */
export const paramsOf = (request: Recorded): Record<string, unknown> => {
  const params = request.message?.params
  return typeof params === "object" && params !== null ? params as Record<string, unknown> : {}
}

/** @since 0.2.0 */
export interface McpPeerOptions {
  /** How requests are answered. Default `json`. */
  readonly reply?: "json" | "sse"
  /** Whether initialize opens a session (ids `s1`, `s2`…). Default `true`. */
  readonly sessions?: boolean
  readonly tools?: ReadonlyArray<string>
  /** Handles a request first; returning `true` means it answered. */
  readonly override?: (request: Recorded, response: Http.ServerResponse, state: McpPeerState) => boolean
}

/** @since 0.2.0 */
export interface McpPeerState {
  /** The live session id, if any. */
  session: string | undefined
  sessions: number
}

/**
 * Answers `value` for `request` in the peer's reply mode.
 *
 * @since 0.2.0
 */
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

/** @since 0.2.0 */
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
