/**
 * An in-memory transport for session tests: every frame the session sends is recorded and handed to `respond`, which
 * answers through `reply` (on a later microtask, as a real transport would). Time is the test's clock.
 */
import { Effect } from "effect"
import type * as Config from "../../src/session/Config.ts"
import * as Open from "../../src/session/Open.ts"
import type { Frame, Kind } from "../../src/wire/Transport.ts"

/** A request the session sent, parsed. */
export interface Sent {
  readonly id: number | undefined
  readonly method: string
  readonly params: Record<string, unknown>
  readonly headers: Readonly<Record<string, string>> | undefined
}

export type Respond = (sent: Sent, reply: (message: unknown) => void) => void

const parse = (frame: Frame): Sent => {
  const message: { id?: number; method?: string; params?: Record<string, unknown> } = JSON.parse(frame.text)
  return {
    id: message.id,
    method: message.method ?? "",
    params: message.params ?? {},
    headers: frame._tag === "Request" ? frame.headers : undefined
  }
}

/** A result message for `sent`. */
export const result = (sent: Sent, value: unknown) => ({ jsonrpc: "2.0", id: sent.id, result: value })
/** An error message for `sent`. */
export const error = (sent: Sent, code: number, message: string, data?: unknown) => ({
  jsonrpc: "2.0",
  id: sent.id,
  error: data === undefined ? { code, message } : { code, message, data }
})

/** A modern server's `server/discover` result. */
export const discoverResult = (supportedVersions: ReadonlyArray<string> = ["2026-07-28"]) => ({
  resultType: "complete",
  supportedVersions,
  capabilities: { tools: {} },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "2.4.0" } }
})

/** A legacy server's `initialize` result. */
export const initializeResult = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  serverInfo: { name: "old", version: "1" }
}

/** A legacy server: `-32601` for `server/discover`, the usual handshake, `respond` for the rest. */
export const legacy = (rest?: Respond): Respond => (sent, reply) => {
  if (sent.method === "server/discover") return reply(error(sent, -32601, "Method not found"))
  if (sent.method === "initialize") return reply(result(sent, initializeResult))
  if (sent.id === undefined) return
  if (rest === undefined) reply(result(sent, {}))
  else rest(sent, reply)
}

/** A modern-only server: `server/discover`, `-32022` for `initialize`, `respond` for the rest. */
export const modern = (rest?: Respond): Respond => (sent, reply) => {
  if (sent.method === "server/discover") return reply(result(sent, discoverResult()))
  if (sent.method === "initialize") {
    return reply(
      error(sent, -32022, "Unsupported protocol version", { supported: ["2026-07-28"], requested: "2025-11-25" })
    )
  }
  if (sent.id === undefined) return
  if (rest === undefined) reply(result(sent, { resultType: "complete" }))
  else rest(sent, reply)
}

/** Opens a session over the in-memory transport; `sent` lists every frame, in order. */
export const session = (
  respond: Respond,
  options: Partial<Config.Config> & { readonly kind?: Kind } = {}
) =>
  Effect.gen(function*() {
    const sent: Array<Sent> = []
    const established: Array<string> = []
    const client = yield* Open.over({
      server: "memory",
      requestTimeoutMs: 30_000,
      initializeTimeoutMs: 30_000,
      clientInfo: { name: "mcp-fleet-test", version: "0.0.0" },
      capabilities: {},
      maxInFlight: 64,
      maxPages: 5,
      notificationBuffer: 16,
      notificationReplay: 4,
      secrets: [],
      ...options
    }, (receiver) => {
      const send = (frame: Frame) => {
        const parsed = parse(frame)
        sent.push(parsed)
        respond(parsed, (message) => queueMicrotask(() => receiver.message(JSON.stringify(message))))
      }
      return Effect.succeed({
        kind: options.kind ?? "stdio",
        send,
        initialized: (frame: Frame) => Effect.sync(() => send(frame)),
        abandon: () => {},
        established: (version: string) => {
          established.push(version)
        },
        ended: Effect.never,
        close: Effect.void
      })
    })
    return { client, sent, established, methods: () => sent.map((s) => s.method) }
  })
