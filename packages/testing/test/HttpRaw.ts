/**
 * Raw HTTP helpers for testing the HTTP fake server itself (and the real HTTP peers in interop): start a
 * server process and reap it, POST JSON-RPC with node's fetch, and read SSE events one at a time, so a
 * test waits on events rather than on wall time.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import type { TestContext } from "vitest"
import * as FakeHttpServer from "../src/FakeHttpServer.ts"

export const ACCEPT_BOTH = "application/json, text/event-stream"

/** One request as the server logged it (`GET /_fake/requests`). */
export interface LoggedRequest {
  readonly method: string
  readonly path: string
  readonly host?: string
  readonly sessionId?: string
  readonly protocolVersion?: string
  readonly mcpMethod?: string
  readonly mcpName?: string
  readonly lastEventId?: string
  readonly rpc?: string
  readonly status?: number
  readonly fault?: string
}

export interface Running {
  readonly url: string
  readonly origin: string
  readonly port: number
  readonly child: ChildProcessWithoutNullStreams
  readonly stderr: () => string
  /** Resolves with stderr so far once it contains `text`. */
  readonly stderrUntil: (text: string) => Promise<string>
  readonly requests: () => Promise<ReadonlyArray<LoggedRequest>>
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export const isListening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

/** Resolves with the child's exit code once it has exited (at once if it already has). */
export const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once("exit", (code) => resolve(code)))

/** Resolves with the first complete stdout line of `child`. */
export const firstLine = (child: ChildProcessWithoutNullStreams): Promise<string> =>
  new Promise((resolve, reject) => {
    let buffered = ""
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8")
      const nl = buffered.indexOf("\n")
      if (nl !== -1) {
        child.stdout.off("data", onData)
        resolve(buffered.slice(0, nl))
      }
    }
    child.stdout.on("data", onData)
    child.once("exit", (code) => reject(new Error(`exited with ${code} before printing a line: ${buffered}`)))
  })

/**
 * Starts the HTTP fake server with `tokens` and waits for its URL line. When the test finishes the process
 * gets SIGTERM, and the test fails unless it exits and its port stops accepting connections.
 */
export const startHttp = async (ctx: TestContext, tokens: ReadonlyArray<string> = []): Promise<Running> => {
  const { args, command } = FakeHttpServer.command(tokens)
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  let port: number | undefined
  ctx.onTestFinished(async () => {
    child.kill("SIGTERM")
    await exited(child)
    if (port !== undefined && (await isListening(port))) throw new Error(`port ${port} still accepts connections`)
  })
  const line = await firstLine(child)
  const listening = JSON.parse(line) as { url: string; port: number; pid: number }
  port = listening.port
  const origin = new URL(listening.url).origin
  return {
    url: listening.url,
    origin,
    port: listening.port,
    child,
    stderr: () => stderr,
    stderrUntil: (text) =>
      stderr.includes(text) ? Promise.resolve(stderr) : new Promise((resolve) => {
        const onData = () => {
          if (stderr.includes(text)) {
            child.stderr.off("data", onData)
            resolve(stderr)
          }
        }
        child.stderr.on("data", onData)
      }),
    requests: async () => (await (await fetch(`${origin}/_fake/requests`)).json()) as ReadonlyArray<LoggedRequest>
  }
}

let nextId = 0
/** A JSON-RPC request body with a fresh id. */
export const request = (
  method: string,
  params?: unknown
): { jsonrpc: "2.0"; id: number; method: string; params?: unknown } => {
  nextId += 1
  return { jsonrpc: "2.0", id: nextId, method, ...(params === undefined ? {} : { params }) }
}
export const notification = (method: string, params?: unknown): object => ({
  jsonrpc: "2.0",
  method,
  ...(params === undefined ? {} : { params })
})
export const initializeParams = (protocolVersion = "2025-11-25"): object => ({
  protocolVersion,
  capabilities: {},
  clientInfo: { name: "raw-http-test", version: "0" }
})

/** POSTs one JSON-RPC message. `headers` adds to (or overrides) Accept and Content-Type. */
export const post = (
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  init: RequestInit = {}
): Promise<Response> =>
  fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init
  })

/** One SSE event as read off the wire (`data` lines joined with "\n"). */
export interface SseEvent {
  readonly event?: string
  readonly id?: string
  readonly retry?: number
  readonly data: string
  /** Comment lines (without the leading ":") seen before this event. */
  readonly comments: ReadonlyArray<string>
}

/** Reads SSE events off a response body one at a time. */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  private readonly decoder = new TextDecoder()
  private buffer = ""
  private comments: Array<string> = []
  readonly events: Array<SseEvent> = []

  constructor(response: Response) {
    if (response.body === null) throw new Error("the response has no body")
    this.reader = response.body.getReader()
  }

  /** The next event, or undefined once the body has ended. Rejects when the connection fails. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const parsed = this.parseOne()
      if (parsed !== undefined) return parsed
      const { done, value } = await this.reader.read()
      if (done) return undefined
      this.buffer += this.decoder.decode(value, { stream: true })
    }
  }

  /** The next comment line seen (reading events as needed), or undefined at the end. */
  async nextComment(): Promise<string | undefined> {
    for (;;) {
      const comment = this.comments.shift()
      if (comment !== undefined) return comment
      this.parseComments()
      if (this.comments.length > 0) continue
      const { done, value } = await this.reader.read()
      if (done) return undefined
      this.buffer += this.decoder.decode(value, { stream: true })
    }
  }

  /** Every remaining event until the body ends. */
  async rest(): Promise<Array<SseEvent>> {
    const out: Array<SseEvent> = []
    for (let event = await this.next(); event !== undefined; event = await this.next()) out.push(event)
    return out
  }

  cancel(): Promise<void> {
    return this.reader.cancel()
  }

  private parseComments(): void {
    const end = this.buffer.indexOf("\n\n")
    if (end === -1) return
    const block = this.buffer.slice(0, end)
    if (block.split("\n").every((line) => line.startsWith(":"))) {
      this.buffer = this.buffer.slice(end + 2)
      for (const line of block.split("\n")) this.comments.push(line.slice(1).trim())
    }
  }

  private parseOne(): SseEvent | undefined {
    for (;;) {
      const end = this.buffer.indexOf("\n\n")
      if (end === -1) return undefined
      const block = this.buffer.slice(0, end)
      this.buffer = this.buffer.slice(end + 2)
      const data: Array<string> = []
      let event: string | undefined
      let id: string | undefined
      let retry: number | undefined
      const comments: Array<string> = []
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) {
          comments.push(line.slice(1).trim())
          continue
        }
        const colon = line.indexOf(":")
        const field = colon === -1 ? line : line.slice(0, colon)
        const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "")
        if (field === "data") data.push(value)
        else if (field === "event") event = value
        else if (field === "id") id = value
        else if (field === "retry") retry = Number(value)
      }
      if (data.length === 0 && id === undefined && retry === undefined && event === undefined) {
        this.comments.push(...comments)
        continue
      }
      const parsed: SseEvent = {
        data: data.join("\n"),
        comments,
        ...(event === undefined ? {} : { event }),
        ...(id === undefined ? {} : { id }),
        ...(retry === undefined ? {} : { retry })
      }
      this.events.push(parsed)
      return parsed
    }
  }
}

/** The JSON-RPC messages among `events` (events with non-empty data). */
export const messagesOf = (events: ReadonlyArray<SseEvent>): Array<Record<string, unknown>> =>
  events.filter((e) => e.data !== "").map((e) => JSON.parse(e.data) as Record<string, unknown>)

/**
 * A Streamable HTTP session opened by hand: initialize (JSON reply unless the server says SSE),
 * `notifications/initialized`, and the headers later requests need.
 */
export const openSession = async (
  url: string,
  protocolVersion = "2025-11-25"
): Promise<{ readonly sessionId: string; readonly headers: Record<string, string>; readonly init: unknown }> => {
  const res = await post(url, request("initialize", initializeParams(protocolVersion)))
  if (res.status !== 200) throw new Error(`initialize answered ${res.status}: ${await res.text()}`)
  const sessionId = res.headers.get("mcp-session-id")
  const init = await bodyMessage(res)
  const headers: Record<string, string> = { "mcp-protocol-version": protocolVersion }
  if (sessionId !== null) headers["mcp-session-id"] = sessionId
  const ack = await post(url, notification("notifications/initialized"), headers)
  if (ack.status !== 202) throw new Error(`notifications/initialized answered ${ack.status}`)
  return { sessionId: sessionId ?? "", headers, init }
}

/** The JSON-RPC response in a reply: the JSON body, or the last message of an SSE body. */
export const bodyMessage = async (res: Response): Promise<Record<string, unknown>> => {
  const type = res.headers.get("content-type") ?? ""
  if (type.startsWith("text/event-stream")) {
    const messages = messagesOf(await new SseReader(res).rest())
    const last = messages.at(-1)
    if (last === undefined) throw new Error("the SSE reply carried no message")
    return last
  }
  return (await res.json()) as Record<string, unknown>
}

/**
 * POSTs with node:http and collects the body until the connection closes, keeping what arrived before a
 * reset (fetch drops queued chunks when the body errors). `reset` says whether the connection failed.
 */
export const postRaw = (
  url: string,
  body: unknown,
  headers: Record<string, string> = {}
): Promise<{ readonly status: number; readonly text: string; readonly reset: boolean }> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: "POST",
      headers: { accept: ACCEPT_BOTH, "content-type": "application/json", ...headers }
    }, (res) => {
      let text = ""
      let reset = false
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
      res.on("aborted", () => (reset = true))
      res.on("error", () => (reset = true))
      res.on("close", () => resolve({ status: res.statusCode ?? 0, text, reset: reset || !res.complete }))
    })
    req.on("error", reject)
    req.end(JSON.stringify(body))
  })

/** The SSE events in a complete body text. */
export const parseSse = (text: string): Promise<Array<SseEvent>> => new SseReader(new Response(text)).rest()
