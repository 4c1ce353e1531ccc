#!/usr/bin/env node
// @modelcontextprotocol/server (v2) mounted on node:http at 127.0.0.1: `createMcpHandler` with the tools of
// v2-tools.mjs (echo, change_tools, confirm). It serves 2026-07-28 requests and, statelessly, 2025-era ones
// (`legacy=reject`: 2026-07-28 only). Port from argv (`port=N`, default 0 = ephemeral); `ttl=N` adds a
// tools/list cache hint. change_tools announces on the subscriptions/listen streams (a stateless 2025-era
// client has no stream to hear it on). Once listening it writes one JSON line to stdout:
//
//   {"url":"http://127.0.0.1:41234/mcp","port":41234,"pid":12345}
//
// It stops on SIGTERM/SIGINT, and when its stdin is a pipe that ends.
import { createMcpHandler } from "@modelcontextprotocol/server"
import { fstatSync } from "node:fs"
import { createServer } from "node:http"
import { Readable } from "node:stream"
import { createFactory, options } from "./v2-tools.mjs"

const { port, legacy = "stateless", ttlMs } = options(process.argv.slice(2))
if (legacy !== "stateless" && legacy !== "reject") {
  process.stderr.write(`v2-server: legacy=${legacy} must be stateless or reject\n`)
  process.exit(2)
}
// One instance per request: the change is published on the handler's bus, which feeds the listen streams.
const factory = createFactory({ ttlMs, announce: () => handler.notify.toolsChanged() })
const handler = createMcpHandler(factory, { legacy })

// node:http request → fetch Request → handler.fetch → node:http response (streamed, so SSE works).
const http = createServer((req, res) => {
  const chunks = []
  req.on("data", (chunk) => chunks.push(chunk))
  req.on("end", () => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) { for (const v of value) headers.append(name, v) }
      else if (value !== undefined) headers.set(name, value)
    }
    const abort = new AbortController()
    res.on("close", () => abort.abort())
    const hasBody = req.method !== "GET" && req.method !== "HEAD" && chunks.length > 0
    const request = new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`), {
      method: req.method,
      headers,
      body: hasBody ? Buffer.concat(chunks) : undefined,
      signal: abort.signal
    })
    handler.fetch(request).then(
      (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers))
        if (response.body === null) return res.end()
        Readable.fromWeb(response.body).on("error", () => res.destroy()).pipe(res)
      },
      (error) => {
        res.writeHead(500, { "content-type": "text/plain" })
        res.end(String(error))
      }
    )
  })
})

http.listen(port, "127.0.0.1", () => {
  const bound = http.address().port
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${bound}/mcp`, port: bound, pid: process.pid }) + "\n")
})
const stop = () => {
  handler.close().finally(() => {
    http.close(() => process.exit(0))
    http.closeAllConnections()
  })
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
const stdin = fstatSync(0)
if (stdin.isFIFO() || stdin.isSocket()) {
  process.stdin.on("end", stop)
  process.stdin.resume()
}
