// Streamable HTTP (2025-03-26 … 2025-11-25) for the HTTP fake server: POST with JSON or SSE replies,
// sessions (Mcp-Session-Id), the GET stream with priming events and resumption, DELETE.
import { randomUUID } from "node:crypto"
import {
  createFaultSelector,
  writeGzipBomb,
  writeHuge,
  writeInvalidSseThen,
  writeNonJson,
  writeRedirect,
  writeSlowly,
  writeStatus,
  writeWrongContentType
} from "./faults.mjs"
import { createMcpSession, SUPPORTED_VERSIONS } from "./mcp.mjs"
import { EventStream, formatEvent, parseEventId, sseHeaders } from "./sse.mjs"

export const MCP_PATHS = new Set(["/mcp", "/redirected/mcp"])

const rpcError = (code, message, id = null) => JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })

function writeJson(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(typeof body === "string" ? body : JSON.stringify(body))
}

const accepts = (req, type) => (req.headers.accept ?? "").toLowerCase().includes(type)

export function createStreamable({ flags, opts, label, port, timers }) {
  const sessions = new Map()
  const stateless = flags.has("stateless")
  const selectFault = createFaultSelector(opts)
  let nextStream = 0
  let flaps = 0
  const statelessSession = stateless ? newSession(undefined) : undefined

  function newSession(id) {
    const session = {
      id,
      mcp: createMcpSession({ flags, opts, label }),
      streams: new Map(),
      standalone: undefined,
      pendingPush: [],
      posts: 0
    }
    session.push = (message) => {
      const standalone = session.standalone
      if (standalone !== undefined && !standalone.ended) standalone.send(message)
      else session.pendingPush.push(message)
    }
    return session
  }

  function newStream(session, options = {}) {
    nextStream += 1
    const stream = new EventStream(`s${nextStream}`, {
      retry: flags.has("no-retry") ? undefined : opts.retry,
      dropAfter: opts["drop-after"],
      resetAfter: opts["reset-after"],
      ...options,
      onEnd: () => session.streams.delete(stream.id)
    })
    session.streams.set(stream.id, stream)
    return stream
  }

  function forget(session) {
    sessions.delete(session.id)
    session.mcp.close()
    for (const stream of session.streams.values()) {
      if (flags.has("get-never-closes") && stream === session.standalone) {
        // Kept open on purpose; the comment shows a reader that it is still being written to.
        stream.res?.write(": session ended; get-never-closes keeps this stream open\n\n")
      } else {
        stream.end()
      }
    }
  }

  function sessionError(res) {
    if (opts["expire-status"] === 400) {
      return writeJson(res, 400, rpcError(-32000, "Bad Request: No valid session ID provided"))
    }
    return writeJson(res, 404, rpcError(-32001, "Session not found"))
  }

  // Finds the session a non-initialize request names; answers the error itself and returns undefined.
  function sessionOf(req, res) {
    if (stateless) return statelessSession
    const id = req.headers["mcp-session-id"]
    if (id === undefined) {
      writeJson(res, 400, rpcError(-32000, "Bad Request: Mcp-Session-Id header is required"))
      return undefined
    }
    if (flags.has("forget-sessions")) {
      // Each request lands on a backend that never saw the session (a load balancer without affinity).
      sessionError(res)
      return undefined
    }
    const session = sessions.get(id)
    if (session === undefined) sessionError(res)
    return session
  }

  function versionOk(req, res) {
    const version = req.headers["mcp-protocol-version"]
    if (version === undefined || SUPPORTED_VERSIONS.includes(version)) return true
    writeJson(
      res,
      400,
      rpcError(
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported: ${SUPPORTED_VERSIONS.join(", ")})`
      )
    )
    return false
  }

  function post(req, res, body, entry) {
    if (!accepts(req, "application/json") || !accepts(req, "text/event-stream")) {
      return writeJson(
        res,
        406,
        rpcError(-32000, "Not Acceptable: Client must accept both application/json and text/event-stream")
      )
    }
    if (!(req.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
      return writeJson(res, 415, rpcError(-32000, "Unsupported Media Type: Content-Type must be application/json"))
    }
    let message
    try {
      message = JSON.parse(body)
    } catch {
      return writeJson(res, 400, rpcError(-32700, "Parse error"))
    }
    if (Array.isArray(message)) {
      return writeJson(res, 400, rpcError(-32600, "Invalid Request: batches are not supported"))
    }
    entry.rpc = typeof message?.method === "string" ? message.method : "response"
    entry.rpcId = message?.id

    const fault = selectFault(message)
    entry.fault = fault
    switch (fault) {
      case "status":
        return writeStatus(res, opts, `http://127.0.0.1:${port()}`)
      case "redirect-same":
      case "redirect-other":
        if (entry.path === "/mcp") return writeRedirect(res, fault, port())
        break
      case "never-answer":
        return
      case "non-json-body":
        return writeNonJson(res)
      case "wrong-content-type":
        return writeWrongContentType(res)
      case "gzip-bomb":
        if (message?.id !== undefined) return writeGzipBomb(res, { id: message.id, size: opts["huge-bytes"] })
        break
      case "slow-headers": {
        const timer = setTimeout(() => {
          timers.delete(timer)
          if (!res.destroyed) handle(req, res, message, entry, undefined)
        }, opts.delay)
        timers.add(timer)
        return
      }
    }
    return handle(req, res, message, entry, fault)
  }

  function handle(req, res, message, entry, fault) {
    const isInitialize = message?.method === "initialize"
    let session
    const headers = {}
    if (isInitialize && !stateless) {
      session = newSession(randomUUID())
      sessions.set(session.id, session)
      headers["mcp-session-id"] = session.id
    } else {
      session = sessionOf(req, res)
      if (session === undefined) return
      if (!stateless) {
        session.posts += 1
        if (opts["expire-after"] > 0 && session.posts > opts["expire-after"]) {
          forget(session)
          return sessionError(res)
        }
      }
      if (!versionOk(req, res)) return
    }
    entry.sessionId = session.id
    if (opts["ping-flood"] > 0 && message?.id !== undefined && typeof message?.method !== "string") {
      // The client's answer to one of the flood's pings: read and held, never answered.
      return
    }

    let stream
    const ctx = {
      reply: (reply) => {
        if (res.destroyed && stream === undefined) return
        if (fault === "huge-body") {
          return writeHuge(res, { id: reply.id, size: opts["huge-bytes"], sse: opts.reply === "sse" })
        }
        if (fault === "invalid-sse-event") return writeInvalidSseThen(res, reply)
        if (fault === "slowloris") {
          return writeSlowly(
            res,
            { "content-type": "application/json", ...headers },
            JSON.stringify(reply),
            opts.delay,
            timers
          )
        }
        if (stream !== undefined) return stream.send(reply, { final: true })
        writeJson(res, 200, reply, headers)
      },
      related: (related) => (stream !== undefined ? stream.send(related) : session.push(related)),
      push: (pushed) => session.push(pushed)
    }
    if (
      opts.reply === "sse" && fault === undefined && message?.id !== undefined && typeof message?.method === "string"
    ) {
      // An initialize reply is never dropped: drop-after / reset-after are for the streams of a live session.
      stream = newStream(session, isInitialize ? { dropAfter: 0, resetAfter: 0 } : {})
      stream.attach(res, sseHeaders(headers))
      if (opts["ping-flood"] > 0 && message.method === "tools/call") {
        for (let i = 1; i <= opts["ping-flood"]; i++) {
          stream.send({ jsonrpc: "2.0", id: `flood-${i}`, method: "ping" })
        }
      }
    }
    const kind = session.mcp.onMessage(message, ctx)
    if (kind === "request") return
    if (stream !== undefined) stream.end()
    if (kind === "invalid") return writeJson(res, 400, rpcError(-32600, "Invalid Request"))
    res.writeHead(202, headers)
    res.end()
  }

  function get(req, res, entry) {
    if (stateless || flags.has("no-get")) {
      res.writeHead(405, { allow: "POST" })
      return res.end()
    }
    if (opts["get-status"] > 0) {
      // An app that routes only POST /mcp (Express answers an unrouted GET with 404 "Cannot GET /mcp").
      res.writeHead(opts["get-status"], { "content-type": "text/html; charset=utf-8" })
      return res.end(`Cannot GET ${entry.path}`)
    }
    if (!accepts(req, "text/event-stream")) {
      return writeJson(res, 406, rpcError(-32000, "Not Acceptable: Client must accept text/event-stream"))
    }
    const session = sessionOf(req, res)
    if (session === undefined || !versionOk(req, res)) return
    entry.sessionId = session.id
    if (opts["get-close-after"] > 0) {
      // A stream that never carries a message: a fresh priming event (an id, `retry:`), then the end.
      flaps += 1
      res.writeHead(200, sseHeaders())
      res.write(formatEvent({ id: `flap-${flaps}`, retry: flags.has("no-retry") ? undefined : opts.retry, data: "" }))
      const timer = setTimeout(() => {
        timers.delete(timer)
        res.end()
      }, opts["get-close-after"])
      timers.add(timer)
      return
    }
    const lastEventId = req.headers["last-event-id"]
    if (lastEventId !== undefined) {
      const parsed = parseEventId(lastEventId)
      const stream = parsed === undefined ? undefined : session.streams.get(parsed.streamId)
      if (stream === undefined || parsed.index >= stream.events.length) {
        return writeJson(res, 400, rpcError(-32000, `Bad Request: unknown Last-Event-ID ${lastEventId}`))
      }
      if (stream.res !== undefined) return writeJson(res, 409, rpcError(-32000, "Conflict: stream already connected"))
      entry.resumed = stream.id
      return stream.attach(res, sseHeaders(), parsed.index + 1)
    }
    if (session.standalone?.res !== undefined) {
      return writeJson(res, 409, rpcError(-32000, "Conflict: Only one SSE stream is allowed per session"))
    }
    const stream = newStream(session)
    session.standalone = stream
    stream.attach(res, sseHeaders())
    const pending = session.pendingPush
    session.pendingPush = []
    for (const message of pending) stream.send(message)
  }

  function del(req, res) {
    if (stateless || flags.has("no-delete")) {
      res.writeHead(405, { allow: "GET, POST" })
      return res.end()
    }
    const session = sessionOf(req, res)
    if (session === undefined) return
    forget(session)
    res.writeHead(200)
    res.end()
  }

  function close() {
    for (const session of sessions.values()) session.mcp.close()
    statelessSession?.mcp.close()
    sessions.clear()
  }

  return { post, get, del, close, sessions }
}
