// The fault switches of the HTTP fake server: which POSTs a fault hits, and the faulty answers.
import { constants as zlib, createGzip } from "node:zlib"
import { formatEvent, sseHeaders } from "./sse.mjs"

/** Counts POSTs that `fault-on` selects and says whether the fault hits this one. */
export function createFaultSelector(opts) {
  let matched = 0
  return (message) => {
    if (opts.fault === undefined) return undefined
    const method = typeof message?.method === "string" ? message.method : undefined
    if (opts["fault-on"] !== undefined && method !== opts["fault-on"]) return undefined
    matched += 1
    const from = opts["fault-from"]
    const count = opts["fault-count"]
    if (matched < from || (count > 0 && matched >= from + count)) return undefined
    return opts.fault
  }
}

const STATUS_TEXT = { 401: "Unauthorized", 403: "Forbidden", 429: "Too Many Requests", 503: "Service Unavailable" }

/** fault=status: the status, WWW-Authenticate on 401/403, Retry-After when asked, a short text body. */
export function writeStatus(res, opts, origin) {
  const status = opts.status
  const headers = { "content-type": "text/plain" }
  if (status === 401) {
    headers["www-authenticate"] =
      `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`
  } else if (status === 403) {
    headers["www-authenticate"] = `Bearer error="insufficient_scope", scope="mcp:tools"`
  }
  if (opts["retry-after"] > 0) headers["retry-after"] = String(opts["retry-after"])
  res.writeHead(status, headers)
  res.end(`fake-mcp-http-server: injected ${status} ${STATUS_TEXT[status] ?? ""}`.trimEnd())
}

/** fault=redirect-same / redirect-other: 307 to /redirected/mcp on this origin or on http://localhost:<port>. */
export function writeRedirect(res, fault, port) {
  const location = fault === "redirect-same"
    ? "/redirected/mcp"
    : `http://localhost:${port}/redirected/mcp`
  res.writeHead(307, { location, "content-type": "text/plain" })
  res.end(`moved to ${location}`)
}

export function writeNonJson(res) {
  res.writeHead(200, { "content-type": "application/json" })
  res.end("this is not JSON {")
}

export function writeWrongContentType(res) {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
  res.end("<html><body>not an MCP answer</body></html>")
}

/** fault=slowloris: the real body, one byte every `delay` ms. */
export function writeSlowly(res, headers, body, delay, timers) {
  res.writeHead(200, headers)
  res.flushHeaders()
  const bytes = Buffer.from(body, "utf8")
  let offset = 0
  const step = () => {
    if (res.destroyed) return
    if (offset >= bytes.length) return res.end()
    res.write(bytes.subarray(offset, offset + 1))
    offset += 1
    const timer = setTimeout(() => {
      timers.delete(timer)
      step()
    }, delay)
    timers.add(timer)
  }
  step()
}

/**
 * Writes a tools/call-shaped result whose text is `size` bytes of "x" to `out` (the response, or a stream piped to
 * it) in chunks with backpressure, and ends `out`; stops if `res` is destroyed.
 */
function writeXs(res, out, { id, size, before = "", after = "" }) {
  out.write(`${before}{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`)
  const chunk = Buffer.alloc(64 * 1024, "x")
  let left = size
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left)
      left -= piece.length
      if (!out.write(piece)) return out.once("drain", pump)
    }
    if (!res.destroyed) out.end(`"}]}}${after}`)
  }
  pump()
}

/** A tools/call-shaped result whose text is `size` bytes of "x", written in chunks with backpressure. */
export function writeHuge(res, { id, size, sse }) {
  res.writeHead(200, sse ? sseHeaders() : { "content-type": "application/json" })
  writeXs(res, res, { id, size, before: sse ? "event: message\ndata: " : "", after: sse ? "\n\n" : "" })
}

/**
 * fault=gzip-bomb: a tools/call-shaped result whose text is `size` bytes of "x", sent gzip-compressed (level 9,
 * about 1000:1) with `Content-Encoding: gzip` although the client never asked for it; written with backpressure.
 */
export function writeGzipBomb(res, { id, size }) {
  res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
  const gzip = createGzip({ level: zlib.Z_BEST_COMPRESSION })
  gzip.pipe(res)
  res.on("close", () => gzip.destroy())
  writeXs(res, gzip, { id, size })
}

/** fault=invalid-sse-event: an SSE reply whose first message event is not JSON, then the real reply. */
export function writeInvalidSseThen(res, reply) {
  res.writeHead(200, sseHeaders())
  res.write(formatEvent({ event: "message", data: "{this is not JSON" }))
  res.end(formatEvent({ event: "message", data: JSON.stringify(reply) }))
}
