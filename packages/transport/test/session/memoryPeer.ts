/**
 * An MCP server in memory, under a real session (`session/Open.ts`), for tests that need the `TestClock`: frames the client sends
 * are parsed and queued; `initialize` (and whatever `answer` returns a result for) is answered by a fiber of the
 * peer; everything else waits in `received` for the test to answer with `send`.
 */
import { Deferred, Effect, Queue } from "effect"
import type { Scope } from "effect"
import type { RateLimit } from "../../src/session/Logging.ts"
import * as Open from "../../src/session/Open.ts"
import type { Session } from "../../src/session/Session.ts"
import type * as Transport from "../../src/wire/Transport.ts"

export type Message = { readonly [key: string]: unknown }

export interface MemoryPeer {
  readonly session: Session
  /** Frames the peer did not answer itself, in order. */
  readonly received: Queue.Queue<Message>
  /** Delivers one message to the client, as the server's. */
  readonly send: (message: object) => void
  /** Every frame the client sent, in order. */
  readonly frames: Array<Message>
}

export interface Options {
  readonly capabilities?: Readonly<Record<string, unknown>>
  /** `never`: initialize stays unanswered. */
  readonly initialize?: "never"
  readonly requestTimeoutMs?: number
  readonly maxPages?: number
  readonly logRateLimit?: RateLimit
  readonly secrets?: ReadonlyArray<string>
  /** A result for a request, or `undefined` to leave it to the test (through `received`). */
  readonly answer?: (message: Message) => unknown
}

export const make = (options: Options = {}): Effect.Effect<MemoryPeer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const inbox = yield* Queue.unbounded<Message>()
    const received = yield* Queue.unbounded<Message>()
    const frames: Array<Message> = []
    const ended = yield* Deferred.make<Transport.Ended>()
    let receiver: Transport.Receiver | undefined
    const send = (message: object) => receiver?.message(JSON.stringify({ jsonrpc: "2.0", ...message }))
    const session = yield* Open.over({
      server: "memory",
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      initializeTimeoutMs: Infinity,
      clientInfo: { name: "test", version: "0" },
      capabilities: {},
      maxInFlight: 64,
      maxPages: options.maxPages ?? 20,
      notificationBuffer: 1024,
      notificationReplay: 0,
      secrets: options.secrets ?? [],
      ...(options.logRateLimit === undefined ? {} : { logRateLimit: options.logRateLimit })
    }, (r) =>
      Effect.sync((): Transport.Transport => {
        receiver = r
        const send = (frame: Transport.Frame) => {
          const message: Message = JSON.parse(frame.text)
          frames.push(message)
          Queue.offerUnsafe(inbox, message)
        }
        return {
          kind: "http",
          send,
          abandon: () => {},
          established: () => {},
          initialized: (frame) => Effect.sync(() => send(frame)),
          ended: Deferred.await(ended),
          close: Effect.void
        }
      }))
    yield* Queue.take(inbox).pipe(
      Effect.flatMap((message) =>
        Effect.sync(() => {
          if (message["method"] === "initialize" && options.initialize !== "never") {
            return send({
              id: message["id"],
              result: {
                protocolVersion: "2025-11-25",
                capabilities: options.capabilities ?? {},
                serverInfo: { name: "memory", version: "0" }
              }
            })
          }
          if (message["method"] === "server/discover") {
            // A legacy-era peer: the era probe gets -32601 at once, as from every npm server; initialize follows.
            return send({ id: message["id"], error: { code: -32601, message: "Method not found" } })
          }
          if (message["method"] === "notifications/initialized") return
          const result = "id" in message ? options.answer?.(message) : undefined
          if (result !== undefined) return send({ id: message["id"], result })
          Queue.offerUnsafe(received, message)
        })
      ),
      Effect.forever,
      Effect.forkScoped
    )
    return { session, received, send, frames }
  })

/** The next frame the peer left to the test, which must be a request for `method`. */
export const nextRequest = (peer: MemoryPeer, method: string) =>
  Effect.flatMap(Queue.take(peer.received), (message) =>
    message["method"] === method
      ? Effect.succeed(message)
      : Effect.die(new Error(`expected a ${method} request, got ${JSON.stringify(message)}`)))

/** The progress token a request carries in `_meta.progressToken`. */
export const progressToken = (message: Message): unknown => {
  const params = message["params"]
  if (typeof params !== "object" || params === null || !("_meta" in params)) return undefined
  const meta = params._meta
  return typeof meta === "object" && meta !== null && "progressToken" in meta ? meta.progressToken : undefined
}
