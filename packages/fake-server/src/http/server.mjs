// Starts the HTTP fake server in this process on 127.0.0.1 and routes requests to the Streamable
// HTTP or the legacy HTTP+SSE handler. `GET /_fake/requests` returns the request log as JSON (with
// `?until=N`, once N entries match the other parameters: `rpc`, `method`, `closed`); `GET /_fake/connections`
// counts the sockets open now (the asking one left out) and the most ever open at once.
import { createServer } from "node:http"
import { createLegacySse } from "./legacy.mjs"
import { createModernHttp } from "./modern.mjs"
import { parseTokens } from "./options.mjs"
import { createStreamable, MCP_PATHS } from "./streamable.mjs"

const MAX_BODY_BYTES = 4 * 1024 * 1024

/**
 * Starts a server for `tokens`. Resolves to `{ url, port, origin, requests, close }`; rejects on a bad
 * token or a port that cannot be bound. `close()` ends every connection and resolves once the socket
 * is closed.
 */
export function startFakeHttpServer(tokens = []) {
  const parsed = parseTokens(tokens)
  if (parsed.error !== undefined) return Promise.reject(new Error(`fake-mcp-http-server: ${parsed.error}`))
  const { flags, opts } = parsed
  const label = tokens.filter((t) => !t.startsWith("run-id=")).join(",") || "streamable"
  const legacy = flags.has("legacy-sse")
  const timers = new Set()
  const requests = []
  const sockets = new Set()
  let peakSockets = 0
  // Long-polls of /_fake/requests?until=N: checked whenever the log grows or an entry learns its method or status.
  const logWaiters = new Set()
  const matching = (query) =>
    requests.filter((entry) =>
      (query.rpc === null || entry.rpc === query.rpc) && (query.method === null || entry.method === query.method) &&
      (query.closed === null || entry.closed === true)
    )
  const checkLog = () => {
    for (const waiter of logWaiters) {
      if (matching(waiter.query).length < waiter.until) continue
      logWaiters.delete(waiter)
      waiter.answer()
    }
  }
  let port = 0
  const config = { flags, opts, label, port: () => port, timers }
  const handler = legacy
    ? createLegacySse(config)
    : flags.has("modern")
    ? createModernHttp(config)
    : createStreamable(config)

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const entry = {
      method: req.method,
      path: url.pathname,
      host: req.headers.host,
      sessionId: req.headers["mcp-session-id"],
      protocolVersion: req.headers["mcp-protocol-version"],
      mcpMethod: req.headers["mcp-method"],
      mcpName: req.headers["mcp-name"],
      lastEventId: req.headers["last-event-id"],
      authorization: req.headers.authorization === undefined ? undefined : "<present>"
    }
    if (url.pathname === "/_fake/requests" && req.method === "GET") {
      const query = {
        rpc: url.searchParams.get("rpc"),
        method: url.searchParams.get("method"),
        closed: url.searchParams.get("closed")
      }
      const answer = () => {
        if (res.destroyed) return
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(matching(query)))
      }
      const until = url.searchParams.get("until")
      if (until === null) return answer()
      const waiter = { query, until: Number(until), answer }
      logWaiters.add(waiter)
      res.on("close", () => logWaiters.delete(waiter))
      return checkLog()
    }
    if (url.pathname === "/_fake/connections" && req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" })
      const open = [...sockets].filter((socket) => socket !== req.socket).length
      return res.end(JSON.stringify({ open, peak: peakSockets }))
    }
    if (url.pathname === "/_fake/subscriptions" && req.method === "GET") {
      // modern: the ids of the subscriptions/listen streams open now; `?until=N` answers once N are open.
      const until = url.searchParams.get("until")
      const answer = () => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(handler.subscriptions?.() ?? []))
      }
      if (until === null || handler.whenSubscriptions === undefined) return answer()
      return handler.whenSubscriptions(Number(until), answer)
    }
    requests.push(entry)
    res.on("close", () => {
      entry.status = res.headersSent ? res.statusCode : undefined
      entry.closed = true
      checkLog()
    })
    checkLog()
    const notFound = () => {
      res.writeHead(404, { "content-type": "text/plain" })
      res.end(`Cannot ${req.method} ${url.pathname}`)
    }
    const methodNotAllowed = (allow) => {
      res.writeHead(405, { allow, "content-type": "text/plain" })
      res.end(`${req.method} is not allowed on ${url.pathname}`)
    }
    const withBody = (use) => {
      const chunks = []
      let size = 0
      req.on("data", (chunk) => {
        size += chunk.length
        if (size > MAX_BODY_BYTES) {
          res.writeHead(413, { "content-type": "text/plain", connection: "close" })
          res.end("Payload Too Large")
          req.destroy()
          return
        }
        chunks.push(chunk)
      })
      req.on("end", () => {
        if (size <= MAX_BODY_BYTES) use(Buffer.concat(chunks).toString("utf8"))
        checkLog()
      })
    }
    if (legacy) {
      if (url.pathname === "/sse") {
        if (req.method === "GET") return handler.get(req, res, entry)
        return methodNotAllowed("GET")
      }
      if (url.pathname === "/message") {
        if (req.method === "POST") return withBody((body) => handler.post(req, res, body, entry, url))
        return methodNotAllowed("POST")
      }
      return notFound()
    }
    if (!MCP_PATHS.has(url.pathname)) return notFound()
    switch (req.method) {
      case "POST":
        return withBody((body) => handler.post(req, res, body, entry))
      case "GET":
        return handler.get(req, res, entry)
      case "DELETE":
        return handler.del(req, res, entry)
      default:
        return methodNotAllowed("GET, POST, DELETE")
    }
  })

  server.on("connection", (socket) => {
    sockets.add(socket)
    peakSockets = Math.max(peakSockets, sockets.size)
    socket.on("close", () => sockets.delete(socket))
  })

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(opts.port, "127.0.0.1", () => {
      server.off("error", reject)
      port = server.address().port
      const origin = `http://127.0.0.1:${port}`
      let closing
      const close = () => {
        closing ??= new Promise((done) => {
          for (const timer of timers) clearTimeout(timer)
          timers.clear()
          handler.close()
          server.close(() => done())
          server.closeAllConnections()
        })
        return closing
      }
      resolve({ url: `${origin}${legacy ? "/sse" : "/mcp"}`, port, origin, requests, close, label })
    })
  })
}
