/**
 * Raw HTTP for the interop fixtures' own tests: POST one JSON-RPC message with node's fetch and read the
 * reply (JSON, or the SSE events of a body that ends), and read SSE events one at a time off a GET.
 */
import { connect } from "node:net"

export const ACCEPT_BOTH = "application/json, text/event-stream"

export const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })

export const initialize = (id: number, protocolVersion: string): object => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "interop-raw", version: "0" } }
})

export interface SseEvent {
  readonly event?: string
  readonly id?: string
  readonly data: string
}

const parseBlock = (block: string): SseEvent | undefined => {
  const data: Array<string> = []
  let event: string | undefined
  let id: string | undefined
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(":")) continue
    const colon = line.indexOf(":")
    const field = colon === -1 ? line : line.slice(0, colon)
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "")
    if (field === "data") data.push(value)
    else if (field === "event") event = value
    else if (field === "id") id = value
  }
  if (data.length === 0 && event === undefined && id === undefined) return undefined
  return { data: data.join("\n"), ...(event === undefined ? {} : { event }), ...(id === undefined ? {} : { id }) }
}

/** Reads SSE events off a body, one at a time; `next()` resolves undefined at the end. */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  private readonly decoder = new TextDecoder()
  private buffer = ""
  constructor(response: Response) {
    if (response.body === null) throw new Error("the response has no body")
    this.reader = response.body.getReader()
  }
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const match = /\r?\n\r?\n/.exec(this.buffer)
      if (match !== null) {
        const block = this.buffer.slice(0, match.index)
        this.buffer = this.buffer.slice(match.index + match[0].length)
        const event = parseBlock(block)
        if (event !== undefined) return event
        continue
      }
      const { done, value } = await this.reader.read()
      if (done) return undefined
      this.buffer += this.decoder.decode(value, { stream: true })
    }
  }
  /** The next event that carries a JSON-RPC message. */
  async nextMessage(): Promise<Record<string, unknown>> {
    for (let event = await this.next(); event !== undefined; event = await this.next()) {
      if (event.data !== "" && (event.event === undefined || event.event === "message")) {
        return JSON.parse(event.data) as Record<string, unknown>
      }
    }
    throw new Error("the stream ended without a message")
  }
  /** The next response to request `id`, skipping notifications and other messages. */
  async nextResponse(id: number | string): Promise<Record<string, unknown>> {
    for (;;) {
      const message = await this.nextMessage()
      if (message.id === id && message.method === undefined) return message
    }
  }
  cancel(): Promise<void> {
    return this.reader.cancel()
  }
}

/** The JSON-RPC response a POST got: its JSON body, or the first message event of its SSE body. */
export const replyOf = async (res: Response): Promise<Record<string, unknown>> => {
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    const reader = new SseReader(res)
    const message = await reader.nextMessage()
    await reader.cancel()
    return message
  }
  return (await res.json()) as Record<string, unknown>
}

/** Whether something accepts TCP connections on host:port. */
export const isListening = (port: number, host = "127.0.0.1"): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })
