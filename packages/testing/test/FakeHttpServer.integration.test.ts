import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { performance } from "node:perf_hooks"
import { describe, expect, it } from "vitest"
import * as FakeHttpServer from "../src/FakeHttpServer.ts"
import {
  bodyMessage,
  exited,
  initializeParams,
  isListening,
  messagesOf,
  notification,
  openSession,
  parseSse,
  post,
  postRaw,
  request,
  SseReader,
  startHttp
} from "./HttpRaw.ts"

const CONTROL_TOOLS = ["change_tools", "notify", "server_request", "sleep"]
const getStream = (url: string, headers: Record<string, string>): Promise<Response> =>
  fetch(url, { headers: { accept: "text/event-stream", ...headers } })
const callTool = (name: string, args: object = {}) => request("tools/call", { name, arguments: args })
const resultOf = (message: Record<string, unknown>): Record<string, unknown> => {
  if (message.error !== undefined) throw new Error(`expected a result, got ${JSON.stringify(message.error)}`)
  return message.result as Record<string, unknown>
}
/** Resolves to "pending" if `promise` has not settled by the time `after` has. */
const stillPending = async (promise: Promise<unknown>, after: Promise<unknown>): Promise<string> => {
  let settled = false
  void promise.then(() => (settled = true), () => (settled = true))
  await after
  await new Promise((resolve) => setImmediate(resolve))
  return settled ? "settled" : "pending"
}

describe("HTTP fake server: process", () => {
  it("listens on 127.0.0.1 on an ephemeral port, prints its URL, and frees the port on SIGTERM", async (ctx) => {
    const server = await startHttp(ctx)
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(server.port).toBeGreaterThan(0)
    expect(await isListening(server.port)).toBe(true)
    expect(await server.stderrUntil("started")).toContain(`started pid=${server.child.pid} url=${server.url}`)
    server.child.kill("SIGTERM")
    expect(await exited(server.child)).toBe(0)
    expect(await isListening(server.port)).toBe(false)
  })

  it("exits when its stdin pipe ends, and with code 2 and a message on a bad token", async (ctx) => {
    const server = await startHttp(ctx)
    server.child.stdin.end()
    expect(await exited(server.child)).toBe(0)
    const { args, command } = FakeHttpServer.command(["no-such-mode"])
    const bad = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] })
    let stderr = ""
    bad.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    expect(await exited(bad)).toBe(2)
    expect(stderr).toContain(`unknown mode "no-such-mode"`)
  })

  it("binds the port it is given (port=N), so a test can restart it on the same port", async (ctx) => {
    const first = await startHttp(ctx)
    first.child.kill("SIGTERM")
    await exited(first.child)
    const second = await startHttp(ctx, [`port=${first.port}`])
    expect(second.port).toBe(first.port)
    expect((await openSession(second.url)).sessionId).not.toBe("")
  })

  it("FakeHttpServer.start runs it in a scope and kills it when the scope closes", async () => {
    const port = await Effect.runPromise(
      Effect.scoped(Effect.gen(function*() {
        const server = yield* FakeHttpServer.start(["reply=sse"])
        expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp`)
        const init = yield* Effect.promise(() => openSession(server.url))
        expect(resultOf(init.init as Record<string, unknown>).protocolVersion).toBe("2025-11-25")
        return server.port
      })).pipe(Effect.provide(NodeServices.layer))
    )
    // The scope's close waited for the process to exit, so nothing listens any more.
    expect(await isListening(port)).toBe(false)
  })
})

describe("HTTP fake server: Streamable HTTP with JSON replies (default)", () => {
  it("initialize returns a session id and a JSON result; later requests need the session", async (ctx) => {
    const server = await startHttp(ctx)
    const res = await post(server.url, request("initialize", initializeParams("2025-06-18")))
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("application/json")
    const sessionId = res.headers.get("mcp-session-id")
    expect(sessionId).toMatch(/^[\x21-\x7e]+$/)
    const result = resultOf((await res.json()) as Record<string, unknown>)
    expect(result.protocolVersion).toBe("2025-06-18")
    expect(result.serverInfo).toEqual({ name: "fake-mcp-http-server", version: "1.0.0" })
    const headers = { "mcp-session-id": sessionId ?? "", "mcp-protocol-version": "2025-06-18" }
    expect((await post(server.url, notification("notifications/initialized"), headers)).status).toBe(202)
    const list = resultOf(await bodyMessage(await post(server.url, request("tools/list"), headers)))
    expect((list.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([
      "echo",
      "tool_1",
      "tool_2",
      ...CONTROL_TOOLS
    ])
    const echoed = resultOf(await bodyMessage(await post(server.url, callTool("echo", { a: 1 }), headers)))
    expect(echoed.structuredContent).toEqual({ a: 1 })
    // Without the session, with an unknown one, with a bad protocol version, with a one-type Accept:
    const noSession = await post(server.url, request("tools/list"))
    expect(noSession.status).toBe(400)
    const unknown = await post(server.url, request("tools/list"), { "mcp-session-id": "nope" })
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32001)
    const badVersion = await post(server.url, request("tools/list"), {
      ...headers,
      "mcp-protocol-version": "1999-01-01"
    })
    expect(badVersion.status).toBe(400)
    expect(await badVersion.text()).toContain("Unsupported protocol version")
    const oneType = await post(server.url, request("ping"), { ...headers, accept: "application/json" })
    expect(oneType.status).toBe(406)
    const notJson = await post(server.url, "{nope", headers)
    expect(notJson.status).toBe(400)
    expect(((await notJson.json()) as { error: { code: number } }).error.code).toBe(-32700)
    const log = await server.requests()
    expect(log.map((r) => `${r.method} ${r.rpc ?? ""} ${r.status}`)).toContain("POST tools/call 200")
  })

  it("stateless: no Mcp-Session-Id, requests work without one, GET and DELETE get 405", async (ctx) => {
    const server = await startHttp(ctx, ["stateless"])
    const res = await post(server.url, request("initialize", initializeParams()))
    expect(res.headers.get("mcp-session-id")).toBeNull()
    await res.body?.cancel()
    expect(resultOf(await bodyMessage(await post(server.url, request("ping")))).constructor).toBe(Object)
    expect((await getStream(server.url, {})).status).toBe(405)
    expect((await fetch(server.url, { method: "DELETE" })).status).toBe(405)
  })
})

describe("HTTP fake server: SSE replies and the GET stream", () => {
  it("reply=sse: a priming event (id, retry, empty data), related notifications, then the response; the stream ends", async (ctx) => {
    const server = await startHttp(ctx, ["reply=sse", "retry=500"])
    const { headers } = await openSession(server.url)
    const res = await post(server.url, callTool("notify", { count: 2 }), headers)
    expect(res.headers.get("content-type")).toBe("text/event-stream")
    expect(res.headers.get("x-accel-buffering")).toBe("no")
    const events = await new SseReader(res).rest()
    expect(events[0]).toMatchObject({ data: "", retry: 500 })
    expect(events[0]?.id).toMatch(/^s\d+-0$/)
    const messages = messagesOf(events)
    expect(messages.map((m) => m.method ?? "response")).toEqual([
      "notifications/message",
      "notifications/message",
      "response"
    ])
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length)
  })

  it("no-retry: priming events carry no retry field", async (ctx) => {
    const server = await startHttp(ctx, ["reply=sse", "no-retry"])
    const { headers } = await openSession(server.url)
    const events = await new SseReader(await post(server.url, request("ping"), headers)).rest()
    expect(events[0]?.data).toBe("")
    expect(events[0]?.retry).toBeUndefined()
  })

  it("the GET stream: priming event, list_changed pushed, a server request answered by POST; a second GET gets 409", async (ctx) => {
    const server = await startHttp(ctx)
    const { headers } = await openSession(server.url)
    const stream = new SseReader(await getStream(server.url, headers))
    const priming = await stream.next()
    expect(priming).toMatchObject({ data: "", retry: 1000 })
    expect((await getStream(server.url, headers)).status).toBe(409)
    await post(server.url, callTool("change_tools"), headers)
    expect(JSON.parse((await stream.next())?.data ?? "")).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed"
    })
    const list = resultOf(await bodyMessage(await post(server.url, request("tools/list"), headers)))
    expect((list.tools as Array<{ name: string }>).map((t) => t.name)).toContain("generation_1")
    // server_request: the request arrives on the GET stream; the client's POSTed answer is the tool's result.
    const pending = post(server.url, callTool("server_request", { method: "ping" }), headers)
    const serverRequest = JSON.parse((await stream.next())?.data ?? "") as { id: string; method: string }
    expect(serverRequest.method).toBe("ping")
    const ack = await post(server.url, { jsonrpc: "2.0", id: serverRequest.id, result: {} }, headers)
    expect(ack.status).toBe(202)
    expect(resultOf(await bodyMessage(await pending)).structuredContent).toEqual({ id: serverRequest.id, result: {} })
    await stream.cancel()
  })

  it("no-get: GET answers 405", async (ctx) => {
    const server = await startHttp(ctx, ["no-get"])
    const { headers } = await openSession(server.url)
    expect((await getStream(server.url, headers)).status).toBe(405)
  })

  it("sleep with a progressToken sends progress on the request's stream", async (ctx) => {
    const server = await startHttp(ctx, ["reply=sse"])
    const { headers } = await openSession(server.url)
    const body = request("tools/call", { name: "sleep", arguments: { ms: 1 }, _meta: { progressToken: "p1" } })
    const messages = messagesOf(await new SseReader(await post(server.url, body, headers)).rest())
    expect(messages.map((m) => m.method ?? "response")).toEqual([
      "notifications/progress",
      "notifications/progress",
      "response"
    ])
  })
})

describe("HTTP fake server: dropped streams and resumption", () => {
  it("drop-after=1: a POST stream ends after its priming event; GET with Last-Event-ID replays the response", async (ctx) => {
    const server = await startHttp(ctx, ["reply=sse", "drop-after=1", "retry=500"])
    const { headers } = await openSession(server.url)
    const dropped = await new SseReader(await post(server.url, callTool("echo", { x: 1 }), headers)).rest()
    expect(dropped).toHaveLength(1)
    expect(dropped[0]).toMatchObject({ data: "", retry: 500 })
    const resumed = new SseReader(await getStream(server.url, { ...headers, "last-event-id": dropped[0]?.id ?? "" }))
    const rest = await resumed.rest()
    expect(messagesOf(rest)).toEqual([{
      jsonrpc: "2.0",
      id: expect.any(Number),
      result: expect.objectContaining({ structuredContent: { x: 1 } })
    }])
    // The stream is done: resuming it again is refused.
    const again = await getStream(server.url, { ...headers, "last-event-id": rest.at(-1)?.id ?? "" })
    expect(again.status).toBe(400)
    const log = await server.requests()
    expect(log.filter((r) => r.method === "GET").map((r) => r.lastEventId)).toEqual([dropped[0]?.id, rest.at(-1)?.id])
  })

  it("reset-after=2: the socket is destroyed mid-stream; the events after it are replayed on resume", async (ctx) => {
    const server = await startHttp(ctx, ["reply=sse", "reset-after=2"])
    const { headers } = await openSession(server.url)
    const reset = await postRaw(server.url, callTool("notify", { count: 3 }), headers)
    expect(reset.reset).toBe(true)
    const seen = await parseSse(reset.text)
    expect(seen).toHaveLength(2)
    const resumed = await new SseReader(
      await getStream(server.url, { ...headers, "last-event-id": seen[1]?.id ?? "" })
    ).rest()
    const all = messagesOf([...seen.filter((e) => e !== undefined), ...resumed])
    expect(all.map((m) => m.method ?? "response")).toEqual([
      "notifications/message",
      "notifications/message",
      "notifications/message",
      "response"
    ])
  })

  it("drop-after=1 on the GET stream: what is pushed while it is down arrives on resume", async (ctx) => {
    const server = await startHttp(ctx, ["drop-after=1"])
    const { headers } = await openSession(server.url)
    const first = await new SseReader(await getStream(server.url, headers)).rest()
    expect(first).toHaveLength(1)
    await post(server.url, callTool("change_tools", { burst: 2 }), headers)
    const resumed = new SseReader(await getStream(server.url, { ...headers, "last-event-id": first[0]?.id ?? "" }))
    const events = [await resumed.next(), await resumed.next()]
    expect(events.map((e) => JSON.parse(e?.data ?? "").method)).toEqual([
      "notifications/tools/list_changed",
      "notifications/tools/list_changed"
    ])
    await resumed.cancel()
  })
})

describe("HTTP fake server: session end", () => {
  it("DELETE ends the session and its GET stream; the session is then unknown (404)", async (ctx) => {
    const server = await startHttp(ctx)
    const { headers } = await openSession(server.url)
    const stream = new SseReader(await getStream(server.url, headers))
    await stream.next()
    expect((await fetch(server.url, { method: "DELETE", headers })).status).toBe(200)
    expect(await stream.next()).toBeUndefined()
    expect((await post(server.url, request("ping"), headers)).status).toBe(404)
    expect((await server.requests()).some((r) => r.method === "DELETE" && r.status === 200)).toBe(true)
  })

  it("no-delete: DELETE answers 405", async (ctx) => {
    const server = await startHttp(ctx, ["no-delete"])
    const { headers } = await openSession(server.url)
    expect((await fetch(server.url, { method: "DELETE", headers })).status).toBe(405)
  })

  it("get-never-closes: after DELETE the GET stream is still written to and only the client can end it", async (ctx) => {
    const server = await startHttp(ctx, ["get-never-closes"])
    const { headers } = await openSession(server.url)
    const stream = new SseReader(await getStream(server.url, headers))
    await stream.next()
    expect((await fetch(server.url, { method: "DELETE", headers })).status).toBe(200)
    expect(await stream.nextComment()).toContain("keeps this stream open")
    await stream.cancel()
  })

  it("expire-after=2: the third POST on a session gets 404; a fresh initialize works", async (ctx) => {
    const server = await startHttp(ctx, ["expire-after=2"])
    const { headers } = await openSession(server.url) // POST 1 on the session: notifications/initialized
    expect((await post(server.url, request("ping"), headers)).status).toBe(200) // POST 2
    const expired = await post(server.url, request("ping"), headers)
    expect(expired.status).toBe(404)
    expect(await expired.json()).toMatchObject({ error: { code: -32001, message: "Session not found" } })
    const again = await openSession(server.url)
    expect(again.sessionId).not.toBe(headers["mcp-session-id"])
    expect((await post(server.url, request("ping"), again.headers)).status).toBe(200)
  })

  it("expire-status=400: an expired or unknown session gets everything-server's 400 'No valid session ID provided'", async (ctx) => {
    const server = await startHttp(ctx, ["expire-after=1", "expire-status=400"])
    const { headers } = await openSession(server.url)
    const expired = await post(server.url, request("ping"), headers)
    expect(expired.status).toBe(400)
    expect(await expired.json()).toMatchObject({
      error: { code: -32000, message: "Bad Request: No valid session ID provided" }
    })
    expect((await post(server.url, request("ping"), { "mcp-session-id": "x" })).status).toBe(400)
  })
})

describe("HTTP fake server: fault switches", () => {
  it("fault=status: 503 with Retry-After once (fault-count=1), then normal answers", async (ctx) => {
    const server = await startHttp(ctx, ["fault=status", "status=503", "retry-after=2", "fault-count=1"])
    const first = await post(server.url, request("initialize", initializeParams()))
    expect(first.status).toBe(503)
    expect(first.headers.get("retry-after")).toBe("2")
    expect(await first.text()).toContain("injected 503")
    expect((await openSession(server.url)).sessionId).not.toBe("")
  })

  it("fault=status: 429 with Retry-After, 500 on tools/call only (fault-on)", async (ctx) => {
    const limited = await startHttp(ctx, ["fault=status", "status=429", "retry-after=1"])
    const res = await post(limited.url, request("initialize", initializeParams()))
    expect([res.status, res.headers.get("retry-after")]).toEqual([429, "1"])
    const server = await startHttp(ctx, ["fault=status", "status=500", "fault-on=tools/call"])
    const { headers } = await openSession(server.url)
    expect((await post(server.url, request("tools/list"), headers)).status).toBe(200)
    expect((await post(server.url, callTool("echo"), headers)).status).toBe(500)
  })

  it("fault=status: 401 and 403 carry WWW-Authenticate", async (ctx) => {
    const unauthorized = await startHttp(ctx, ["fault=status", "status=401"])
    const r401 = await post(unauthorized.url, request("initialize", initializeParams()))
    expect(r401.status).toBe(401)
    expect(r401.headers.get("www-authenticate")).toBe(
      `Bearer error="invalid_token", resource_metadata="${unauthorized.origin}/.well-known/oauth-protected-resource/mcp"`
    )
    const forbidden = await startHttp(ctx, ["fault=status", "status=403"])
    const r403 = await post(forbidden.url, request("initialize", initializeParams()))
    expect(r403.status).toBe(403)
    expect(r403.headers.get("www-authenticate")).toContain(`error="insufficient_scope"`)
  })

  it("fault=redirect-same: 307 to /redirected/mcp on the same origin, which serves MCP", async (ctx) => {
    const server = await startHttp(ctx, ["fault=redirect-same"])
    const manual = await post(server.url, request("initialize", initializeParams()), {}, { redirect: "manual" })
    expect(manual.status).toBe(307)
    expect(manual.headers.get("location")).toBe("/redirected/mcp")
    const followed = await post(server.url, request("initialize", initializeParams()))
    expect(followed.url).toBe(`${server.origin}/redirected/mcp`)
    expect(resultOf(await bodyMessage(followed)).protocolVersion).toBe("2025-11-25")
  })

  it("fault=redirect-other: 307 to another origin (localhost instead of 127.0.0.1)", async (ctx) => {
    const server = await startHttp(ctx, ["fault=redirect-other"])
    const manual = await post(server.url, request("initialize", initializeParams()), {}, { redirect: "manual" })
    expect(manual.status).toBe(307)
    expect(manual.headers.get("location")).toBe(`http://localhost:${server.port}/redirected/mcp`)
  })

  it("fault=slow-headers: the status line comes `delay` ms late, then a normal answer", async (ctx) => {
    const server = await startHttp(ctx, ["fault=slow-headers", "delay=150"])
    const started = performance.now()
    const res = await post(server.url, request("initialize", initializeParams()))
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
    expect(resultOf(await bodyMessage(res)).protocolVersion).toBe("2025-11-25")
  })

  it("fault=never-answer: the request is read and never answered, while others are", async (ctx) => {
    const server = await startHttp(ctx, ["fault=never-answer", "fault-on=tools/call"])
    const { headers } = await openSession(server.url)
    const abort = new AbortController()
    const hung = post(server.url, callTool("echo"), headers, { signal: abort.signal })
    const later = post(server.url, request("ping"), headers)
    expect(await stillPending(hung, later)).toBe("pending")
    expect((await server.requests()).some((r) => r.rpc === "tools/call" && r.fault === "never-answer")).toBe(true)
    abort.abort()
    await expect(hung).rejects.toThrow()
  })

  it("hang: initialize is answered, later requests never are; no-initialize: initialize never is", async (ctx) => {
    const server = await startHttp(ctx, ["hang"])
    const { headers } = await openSession(server.url)
    const abort = new AbortController()
    const hung = post(server.url, request("tools/list"), headers, { signal: abort.signal })
    expect(await stillPending(hung, server.requests())).toBe("pending")
    abort.abort()
    await expect(hung).rejects.toThrow()
    const silent = await startHttp(ctx, ["no-initialize"])
    const abortInit = new AbortController()
    const init = post(silent.url, request("initialize", initializeParams()), {}, { signal: abortInit.signal })
    expect(await stillPending(init, silent.requests())).toBe("pending")
    abortInit.abort()
    await expect(init).rejects.toThrow()
  })

  it("fault=huge-body: the reply's text is exactly huge-bytes bytes, as JSON and as an SSE event", async (ctx) => {
    for (const reply of ["json", "sse"]) {
      const server = await startHttp(ctx, [
        "fault=huge-body",
        "fault-on=tools/call",
        "huge-bytes=3000000",
        `reply=${reply}`
      ])
      const { headers } = await openSession(server.url)
      const message = await bodyMessage(await post(server.url, callTool("echo"), headers))
      const content = resultOf(message).content as Array<{ text: string }>
      expect(content[0]?.text.length).toBe(3_000_000)
    }
  })

  it("fault=non-json-body and fault=wrong-content-type", async (ctx) => {
    const nonJson = await startHttp(ctx, ["fault=non-json-body"])
    const a = await post(nonJson.url, request("initialize", initializeParams()))
    expect([a.status, a.headers.get("content-type")]).toEqual([200, "application/json"])
    const text = await a.text()
    expect(() => JSON.parse(text)).toThrow()
    const wrongType = await startHttp(ctx, ["fault=wrong-content-type"])
    const b = await post(wrongType.url, request("initialize", initializeParams()))
    expect([b.status, b.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"])
  })

  it("fault=slowloris: the real body arrives a byte at a time, `delay` ms apart", async (ctx) => {
    const server = await startHttp(ctx, ["fault=slowloris", "delay=2"])
    const res = await post(server.url, request("initialize", initializeParams()))
    const reader = res.body?.getReader()
    const chunks: Array<Uint8Array> = []
    let first: number | undefined
    for (let r = await reader?.read(); r !== undefined && !r.done; r = await reader?.read()) {
      first ??= performance.now()
      chunks.push(r.value)
    }
    const elapsed = performance.now() - (first ?? 0)
    const body = Buffer.concat(chunks).toString("utf8")
    // The server waits `delay` ms between bytes, so the body cannot arrive faster than (bytes - 1) × delay.
    expect(chunks.length).toBeGreaterThan(1)
    expect(elapsed).toBeGreaterThanOrEqual((Buffer.byteLength(body) - 1) * 2 * 0.9)
    expect(resultOf(JSON.parse(body) as Record<string, unknown>).protocolVersion).toBe("2025-11-25")
  })

  it("fault=invalid-sse-event: one message event is not JSON, the next one is the reply", async (ctx) => {
    const server = await startHttp(ctx, ["fault=invalid-sse-event", "fault-on=tools/call"])
    const { headers } = await openSession(server.url)
    const events = await new SseReader(await post(server.url, callTool("echo", { k: "v" }), headers)).rest()
    expect(events.map((e) => e.data.slice(0, 5))).toEqual(["{this", `{"jso`])
    expect(() => JSON.parse(events[0]?.data ?? "")).toThrow()
    expect(resultOf(JSON.parse(events[1]?.data ?? "") as Record<string, unknown>).structuredContent).toEqual({ k: "v" })
  })

  it("fault-from=2 fault-count=1: only the second matching POST is hit", async (ctx) => {
    const server = await startHttp(ctx, [
      "fault=status",
      "status=502",
      "fault-on=ping",
      "fault-from=2",
      "fault-count=1"
    ])
    const { headers } = await openSession(server.url)
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await post(server.url, request("ping"), headers)).status)
    expect(statuses).toEqual([200, 502, 200])
  })
})

describe("HTTP fake server: legacy HTTP+SSE (legacy-sse)", () => {
  it("GET /sse sends the endpoint event; POSTs get 202 'Accepted' and replies arrive on the stream", async (ctx) => {
    const server = await startHttp(ctx, ["legacy-sse"])
    expect(server.url).toBe(`${server.origin}/sse`)
    const stream = new SseReader(await getStream(server.url, {}))
    const endpoint = await stream.next()
    expect(endpoint?.event).toBe("endpoint")
    expect(endpoint?.data).toMatch(/^\/message\?sessionId=[0-9a-f-]+$/)
    const messageUrl = new URL(endpoint?.data ?? "", server.url).href
    const init = await post(messageUrl, request("initialize", initializeParams("2024-11-05")))
    expect([init.status, await init.text()]).toEqual([202, "Accepted"])
    const reply = await stream.next()
    expect(reply?.event).toBe("message")
    expect(resultOf(JSON.parse(reply?.data ?? "") as Record<string, unknown>).protocolVersion).toBe("2024-11-05")
    await post(messageUrl, callTool("change_tools"), {})
    const pushed = [await stream.next(), await stream.next()].map((e) => JSON.parse(e?.data ?? ""))
    expect(pushed.map((m) => m.method ?? "response")).toEqual(["notifications/tools/list_changed", "response"])
    // POST to the SSE URL (what an auto-detecting client tries first) and an unknown session:
    expect((await post(server.url, request("initialize", initializeParams()))).status).toBe(405)
    expect((await post(`${server.origin}/message?sessionId=nope`, request("ping"))).status).toBe(404)
    await stream.cancel()
  })

  it("endpoint=other names an endpoint on another origin; fault=never-answer leaves replies out", async (ctx) => {
    const other = await startHttp(ctx, ["legacy-sse", "endpoint=other"])
    const stream = new SseReader(await getStream(other.url, {}))
    expect((await stream.next())?.data).toMatch(new RegExp(`^http://localhost:${other.port}/message\\?sessionId=`))
    await stream.cancel()
    const hung = await startHttp(ctx, ["legacy-sse", "fault=never-answer", "fault-on=tools/call"])
    const events = new SseReader(await getStream(hung.url, {}))
    const messageUrl = new URL((await events.next())?.data ?? "", hung.url).href
    const abort = new AbortController()
    const call = post(messageUrl, callTool("echo"), {}, { signal: abort.signal })
    const ping = await post(messageUrl, request("ping"))
    expect(ping.status).toBe(202)
    expect(JSON.parse((await events.next())?.data ?? "")).toMatchObject({ result: {} })
    expect(await stillPending(call, hung.requests())).toBe("pending")
    abort.abort()
    await expect(call).rejects.toThrow()
    await events.cancel()
  })
})
