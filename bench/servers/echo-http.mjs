#!/usr/bin/env node
// The echo server of echo-server.mjs over Streamable HTTP (2025-11-25, sessions, JSON answers), hand-written on
// node:http so that the HTTP cells measure the transport and not a server framework.
//
//   node echo-http.mjs [port=N]     # N=0 (default): ephemeral, on 127.0.0.1
//
// Once listening it writes one JSON line to stdout: {"url":"http://127.0.0.1:41234/mcp"}. POST /mcp takes one
// JSON-RPC message: `initialize` opens a session (`Mcp-Session-Id`), notifications are 202, `tools/list` lists
// `echo`, `tools/call` of `echo` with `{ payload }` answers it unchanged. GET is 405 (no stream), DELETE ends the
// session. It stops on SIGTERM/SIGINT and when stdin (a pipe) ends.
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"

const port = Number(process.argv.slice(2).find((a) => a.startsWith("port="))?.slice(5) ?? 0)
const sessions = new Set()
const echo = {
  name: "echo",
  title: "Echo",
  description: "Returns its payload argument unchanged as one text content block.",
  inputSchema: { type: "object", properties: { payload: { type: "string" } }, required: ["payload"] },
  annotations: { readOnlyHint: true, openWorldHint: false }
}

const reply = (res, status, body, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(body)
}
const result = (id, value) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(value)}}`
const error = (id, code, message) => JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })

const server = createServer((req, res) => {
  if (!req.url?.startsWith("/mcp")) return reply(res, 404, error(null, -32600, "Not found"))
  const session = req.headers["mcp-session-id"]
  if (req.method === "DELETE") {
    sessions.delete(session)
    return reply(res, 200, "")
  }
  if (req.method !== "POST") {
    return reply(res, 405, error(null, -32600, "Method not allowed"), { allow: "POST, DELETE" })
  }
  const chunks = []
  req.on("data", (chunk) => chunks.push(chunk))
  req.on("end", () => {
    let msg
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return reply(res, 400, error(null, -32700, "Parse error"))
    }
    if (msg.method === "initialize") {
      const id = randomUUID()
      sessions.add(id)
      return reply(
        res,
        200,
        result(msg.id, {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "echo-http", version: "1.0.0" }
        }),
        { "mcp-session-id": id }
      )
    }
    if (!sessions.has(session)) return reply(res, 404, error(msg.id ?? null, -32001, "Session not found"))
    if (msg.id === undefined) return reply(res, 202, "")
    switch (msg.method) {
      case "ping":
        return reply(res, 200, result(msg.id, {}))
      case "tools/list":
        return reply(res, 200, result(msg.id, { tools: [echo] }))
      case "tools/call":
        return msg.params?.name === "echo"
          ? reply(
            res,
            200,
            result(msg.id, { content: [{ type: "text", text: String(msg.params.arguments?.payload) }] })
          )
          : reply(res, 200, error(msg.id, -32602, `Unknown tool: ${msg.params?.name}`))
      default:
        return reply(res, 200, error(msg.id, -32601, `Method not found: ${msg.method}`))
    }
  })
})
server.keepAliveTimeout = 60_000
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/mcp` })}\n`)
})
const stop = () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
if (!process.stdin.isTTY) {
  process.stdin.resume()
  process.stdin.on("end", stop)
}
