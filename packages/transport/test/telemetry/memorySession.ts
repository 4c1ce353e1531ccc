/**
 * A session over an in-memory transport: every request frame is answered by `answer` (a result, a JSON-RPC
 * error, or nothing yet), from the transport's own fiber, as a real transport would.
 */
import { Deferred, Effect, Queue, Scope } from "effect"
import type { Config } from "../../src/session/Config.ts"
import * as Open from "../../src/session/Open.ts"

export interface Sent {
  readonly id: number
  readonly method: string
  readonly params: { readonly [key: string]: unknown } | undefined
}

export type Answer =
  | { readonly result: unknown }
  | { readonly error: { readonly code: number; readonly message: string } }
  | { readonly later: Effect.Effect<{ readonly result: unknown }> }

export const config: Config = {
  server: "mem",
  requestTimeoutMs: 60_000,
  initializeTimeoutMs: 60_000,
  clientInfo: { name: "test", version: "1" },
  capabilities: {},
  maxInFlight: 64,
  maxPages: 10,
  notificationBuffer: 16,
  notificationReplay: 0,
  secrets: [],
  url: "http://127.0.0.1:8931/mcp"
}

const initialize = {
  result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "mem", version: "1" } }
}

/** Opens a session whose server answers with `answer` (initialize is answered by itself). */
export const open = (answer: (sent: Sent) => Answer) =>
  Effect.gen(function*() {
    const sent: Array<Sent> = []
    /** The text of every request frame sent, and of every message received. */
    const wire = { out: [] as Array<string>, in: [] as Array<string> }
    const session = yield* Open.over(config, (receiver) =>
      Effect.gen(function*() {
        const inbox = yield* Queue.unbounded<Sent>()
        const ended = yield* Deferred.make<{ readonly reason: string }>()
        const reply = (id: number, body: Answer): Effect.Effect<void> =>
          "later" in body
            ? Effect.flatMap(body.later, (late) => reply(id, late))
            : Effect.sync(() => {
              const text = JSON.stringify({ jsonrpc: "2.0", id, ...body })
              wire.in.push(text)
              receiver.message(text)
            })
        yield* Queue.take(inbox).pipe(
          Effect.flatMap((request) =>
            Effect.forkChild(reply(request.id, request.method === "initialize" ? initialize : answer(request)))
          ),
          Effect.forever,
          Effect.forkScoped
        )
        yield* Scope.Scope
        return {
          kind: "http" as const,
          send: (frame) => {
            if (frame._tag !== "Request") return
            wire.out.push(frame.text)
            const message: { readonly params?: Sent["params"] } = JSON.parse(frame.text)
            const request: Sent = { id: frame.id, method: frame.method, params: message.params }
            sent.push(request)
            Queue.offerUnsafe(inbox, request)
          },
          abandon: () => {},
          established: () => {},
          initialized: () => Effect.void,
          ended: Deferred.await(ended),
          sessionId: () => "session-1",
          close: Effect.void
        }
      }))
    return { session, sent, wire }
  })
