// The 2024-11-05 HTTP+SSE transport for the HTTP fake server: GET /sse opens the stream, whose first
// event is `endpoint` (the URL to POST to); POST /message?sessionId=… answers 202 and every reply
// travels as an `event: message` on the GET stream.
import { randomUUID } from "node:crypto"
import { createFaultSelector, writeStatus } from "./faults.mjs"
import { createMcpSession } from "./mcp.mjs"
import { EventStream, sseHeaders } from "./sse.mjs"

export function createLegacySse({ flags, opts, label, port, timers }) {
  const sessions = new Map()
  const selectFault = createFaultSelector(opts)

  function get(req, res, entry) {
    const id = randomUUID()
    const stream = new EventStream(id, {
      priming: false,
      ids: false,
      dropAfter: opts["drop-after"],
      resetAfter: opts["reset-after"]
    })
    const session = { id, stream, mcp: createMcpSession({ flags, opts, label }) }
    sessions.set(id, session)
    entry.sessionId = id
    res.on("close", () => {
      sessions.delete(id)
      session.mcp.close()
    })
    stream.attach(res, sseHeaders())
    // no-endpoint: the stream stays open and silent but for a comment, so the client never learns where to POST.
    if (flags.has("no-endpoint")) return res.write(": no endpoint event will follow\n\n")
    const base = opts.endpoint === "other" ? `http://localhost:${port()}` : ""
    stream.send(`${base}/message?sessionId=${id}`, { event: "endpoint" })
  }

  function post(req, res, body, entry, url) {
    const session = sessions.get(url.searchParams.get("sessionId") ?? "")
    if (session === undefined) {
      res.writeHead(404, { "content-type": "text/plain" })
      return res.end("Session not found")
    }
    entry.sessionId = session.id
    let message
    try {
      message = JSON.parse(body)
    } catch {
      res.writeHead(400, { "content-type": "text/plain" })
      return res.end("Invalid message: not JSON")
    }
    entry.rpc = typeof message?.method === "string" ? message.method : "response"
    entry.rpcId = message?.id
    const fault = selectFault(message)
    entry.fault = fault
    if (fault === "status") return writeStatus(res, opts, `http://127.0.0.1:${port()}`)
    if (fault === "never-answer") return
    const accept = () => {
      // no-ack: the message is handled (its reply goes on the stream), but the POST is left unanswered.
      if (fault !== "no-ack") {
        res.writeHead(202, { "content-type": "text/plain" })
        res.end("Accepted")
      }
      const send = (m) => session.stream.send(m, { event: "message" })
      const ctx = {
        reply: (reply) => {
          if (fault === "invalid-sse-event") session.stream.send("{this is not JSON", { event: "message" })
          send(reply)
        },
        related: send,
        push: send
      }
      session.mcp.onMessage(message, ctx)
    }
    if (fault !== "slow-headers") return accept()
    const timer = setTimeout(() => {
      timers.delete(timer)
      if (!res.destroyed) accept()
    }, opts.delay)
    timers.add(timer)
  }

  function close() {
    for (const session of sessions.values()) session.mcp.close()
    sessions.clear()
  }

  return { get, post, close, sessions }
}
