#!/usr/bin/env node
// The conformance fixture upstream: the tools, resources and prompts of conformance-tools.mjs served by
// @modelcontextprotocol/server (v2) on node:http at 127.0.0.1, both eras on one endpoint (/mcp):
//
// - 2026-07-28 requests (the per-request `_meta` claim, `server/discover`, `subscriptions/listen`) go to
//   `createMcpHandler` (a fresh server per request; list changes on the listen streams);
// - 2025-era requests get real sessions: `initialize` opens one (`Mcp-Session-Id`), `GET` opens its SSE stream,
//   `DELETE` ends it; an event store lets a dropped POST stream resume (`Last-Event-ID`, SEP-1699).
//
// Every request's `Host` must name localhost (DNS rebinding). `pnpm conformance` runs the suite's server
// scenarios against it directly, then through the gateway in front of it.
//
//   node conformance-upstream.mjs [port=N]     # N=0 (default): ephemeral
//   node conformance-upstream.mjs stdio        # the same server over stdio (serveStdio, both eras)
//
// Once listening it writes one JSON line to stdout: {"url":"http://127.0.0.1:41234/mcp","port":41234,"pid":…}.
// It stops on SIGTERM/SIGINT, and when its stdin is a pipe that ends.
import {
  classifyInboundRequest,
  createMcpHandler,
  hostHeaderValidationResponse,
  isInitializeRequest,
  localhostAllowedHostnames,
  WebStandardStreamableHTTPServerTransport
} from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { createFactory } from "./conformance-tools.mjs"
import { listenUntilStopped, toNodeListener } from "./fetch-adapter.mjs"

const argv = process.argv.slice(2)
const port = Number(argv.find((token) => token.startsWith("port="))?.slice(5) ?? 0)

/** 2025-era sessions: id → { transport, server }. */
const sessions = new Map()

const factory = createFactory({
  toolsChanged: () => modern?.notify.toolsChanged(),
  promptsChanged: () => modern?.notify.promptsChanged(),
  resourceUpdated: (uri) => modern?.notify.resourceUpdated(uri),
  closeStream: (sessionId, requestId) => sessions.get(sessionId)?.transport.closeSSEStream(requestId)
})
const modern = argv.includes("stdio") ? undefined : createMcpHandler(factory, { legacy: "reject" })

/** A session's events, kept so that a dropped stream resumes after `Last-Event-ID`. */
const eventStore = () => {
  const events = []
  return {
    async storeEvent(streamId, message) {
      const eventId = `${streamId}::${String(events.length).padStart(9, "0")}`
      events.push({ eventId, streamId, message })
      return eventId
    },
    async replayEventsAfter(lastEventId, { send }) {
      const streamId = lastEventId.split("::")[0]
      for (const event of events) {
        if (event.streamId === streamId && event.eventId > lastEventId) await send(event.eventId, event.message)
      }
      return streamId
    }
  }
}

const json = (status, body) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

/** One request, web-standard in and out. */
const serve = async (request) => {
  const refused = hostHeaderValidationResponse(request, localhostAllowedHostnames())
  if (refused !== undefined) return refused
  const sessionId = request.headers.get("mcp-session-id") ?? undefined
  if (request.method !== "POST") {
    const session = sessionId === undefined ? undefined : sessions.get(sessionId)
    if (session !== undefined) return session.transport.handleRequest(request)
    if (request.method === "GET" || request.method === "DELETE") {
      return sessionId === undefined ? new Response("Missing session ID", { status: 400 }) : json(404, {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32001, message: "Session not found" }
      })
    }
    return new Response(null, { status: 405, headers: { allow: "GET, POST, DELETE" } })
  }
  const raw = await request.text()
  let body
  try {
    body = JSON.parse(raw)
  } catch {
    return json(400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
  }
  const inbound = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: request.headers.get("mcp-protocol-version") ?? undefined,
    mcpMethodHeader: request.headers.get("mcp-method") ?? undefined,
    body
  })
  if (inbound.kind !== "legacy") return modern.fetch(request, { parsedBody: body })
  const existing = sessionId === undefined ? undefined : sessions.get(sessionId)
  if (existing !== undefined) return existing.transport.handleRequest(request, { parsedBody: body })
  if (sessionId !== undefined) {
    return json(404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } })
  }
  if (!isInitializeRequest(body)) {
    return json(400, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: Session ID required" } })
  }
  const server = factory({ era: "legacy" })
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore: eventStore(),
    retryInterval: 1000,
    onsessioninitialized: (id) => {
      sessions.set(id, { transport, server })
    },
    onsessionclosed: (id) => {
      sessions.delete(id)
    }
  })
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
  }
  await server.connect(transport)
  return transport.handleRequest(request, { parsedBody: body })
}

if (argv.includes("stdio")) {
  const handle = serveStdio(factory, { legacy: "serve" })
  process.stdin.on("end", () => handle.close().finally(() => process.exit(0)))
} else {
  const http = createServer(toNodeListener(serve))
  listenUntilStopped(
    http,
    port,
    () =>
      Promise.allSettled([...sessions.values()].map(({ transport }) => transport.close())).then(() => modern.close())
  )
}
