// node:http → fetch: a `request` listener that turns each node:http request into a web `Request` (body read
// whole, aborted when the client goes away), hands it to `handle`, and streams the `Response` back (so SSE works).
// Shared by the fixtures built on @modelcontextprotocol/server (v2), whose handlers are fetch-shaped.
import { fstatSync } from "node:fs"
import { Readable } from "node:stream"

export function toNodeListener(handle) {
  return (req, res) => {
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
      handle(request).then(
        (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers))
          if (response.body === null) return res.end()
          Readable.fromWeb(response.body).on("error", () => res.destroy()).pipe(res)
        },
        (error) => {
          if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
          res.end(String(error))
        }
      )
    })
  }
}

/**
 * Listens on 127.0.0.1:`port` (0: ephemeral), prints `{"url","port","pid"}` once listening, and stops — `close()`,
 * then the server and its connections — on SIGTERM/SIGINT and when stdin is a pipe that ends.
 */
export function listenUntilStopped(http, port, close) {
  http.listen(port, "127.0.0.1", () => {
    const bound = http.address().port
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${bound}/mcp`, port: bound, pid: process.pid })}\n`)
  })
  const stop = () => {
    close().finally(() => {
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
}
