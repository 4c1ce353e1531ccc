/**
 * A scriptable HTTP peer for the HTTP transports' tests: a real `node:http` server on 127.0.0.1, a handler per
 * test, every request recorded, and a latch on requests (tests wait for events, never for time).
 *
 * Closing its scope closes every connection and the server, so no socket outlives a test.
 */
import { Effect, Exit } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  /** The body parsed as JSON, when it is JSON. */
  readonly message: { readonly id?: unknown; readonly method?: string; readonly params?: unknown } | undefined
  /** Resolved when the client closes or aborts this request's connection before the answer ended. */
  aborted: boolean
}

export type Handler = (request: Recorded, response: Http.ServerResponse) => void

export interface Peer {
  readonly url: string
  readonly origin: string
  readonly requests: Array<Recorded>
  /** Waits until some recorded request satisfies `check` (checked on each new request and on each abort). */
  readonly waitFor: (check: (request: Recorded) => boolean) => Effect.Effect<Recorded>
  /** The requests of an MCP method (`initialize`, `tools/call`…), in order. */
  readonly calls: (method: string) => ReadonlyArray<Recorded>
}

const parse = (body: string): Recorded["message"] => {
  try {
    const value: unknown = JSON.parse(body)
    return typeof value === "object" && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

/** Serves `handler` at `http://127.0.0.1:<port><path>` for the life of the scope. */
export const serve = (handler: Handler, path = "/mcp") =>
  Effect.gen(function*() {
    const requests: Array<Recorded> = []
    const waiters = new Set<() => void>()
    const notify = () => {
      for (const waiter of [...waiters]) waiter()
    }
    const server = Http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        const recorded: Recorded = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body,
          message: parse(body),
          aborted: false
        }
        res.on("close", () => {
          if (!res.writableFinished) {
            recorded.aborted = true
            notify()
          }
        })
        requests.push(recorded)
        handler(recorded, res)
        notify()
      })
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Exit.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Exit.void))
        })
    )
    const port = (server.address() as AddressInfo).port
    const origin = `http://127.0.0.1:${port}`
    const peer: Peer = {
      url: `${origin}${path}`,
      origin,
      requests,
      waitFor: (check) =>
        Effect.callback<Recorded>((resume) => {
          const attempt = () => {
            const found = requests.find(check)
            if (found === undefined) return
            waiters.delete(attempt)
            resume(Exit.succeed(found))
          }
          waiters.add(attempt)
          attempt()
          return Effect.sync(() => waiters.delete(attempt))
        }),
      calls: (method) => requests.filter((r) => r.message?.method === method)
    }
    return peer
  })

/** Answers with one JSON body. */
export const json = (
  res: Http.ServerResponse,
  value: unknown,
  status = 200,
  headers: Http.OutgoingHttpHeaders = {}
) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(value))
}

/** One SSE event's text. */
export const event = (
  fields: { readonly id?: string; readonly retry?: number; readonly event?: string; readonly data: string }
) =>
  `${fields.id !== undefined ? `id: ${fields.id}\n` : ""}${
    fields.retry !== undefined ? `retry: ${fields.retry}\n` : ""
  }${fields.event !== undefined ? `event: ${fields.event}\n` : ""}data: ${fields.data}\n\n`

/** Starts an event stream (the caller writes events and ends it). */
export const openSse = (res: Http.ServerResponse, headers: Http.OutgoingHttpHeaders = {}) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers })
  res.flushHeaders()
}

/** A JSON-RPC result for `id`. */
export const result = (id: unknown, value: unknown) => ({ jsonrpc: "2.0", id, result: value })

/** The initialize result of a 2025-11-25 server. */
export const initializeResult = (id: unknown, protocolVersion = "2025-11-25") =>
  result(id, {
    protocolVersion,
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: "peer", version: "1" }
  })

/** A tools/list page. */
export const toolsResult = (id: unknown, names: ReadonlyArray<string>) =>
  result(id, { tools: names.map((name) => ({ name, inputSchema: { type: "object" } })) })

/** A tools/call result echoing the arguments. */
export const callResult = (id: unknown, text: string) => result(id, { content: [{ type: "text", text }] })

/** The request's JSON-RPC `params` as a record (empty when absent). */
export const paramsOf = (request: Recorded): Record<string, unknown> => {
  const params = request.message?.params
  return typeof params === "object" && params !== null ? params as Record<string, unknown> : {}
}
