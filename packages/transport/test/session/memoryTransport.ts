/**
 * An in-memory transport under a session (`session/Open.ts`): the test plays the server. What the session sends lands in a
 * queue (`next` takes the next message, parsed); `deliver` hands the session one message from the "server".
 */
import type { ClientHandlers, Transport } from "@mcp-fleet/transport"
import { Deferred, Effect, Queue } from "effect"
import type { Scope } from "effect"
import * as Open from "../../src/session/Open.ts"
import type { Session } from "../../src/session/Session.ts"

export interface Message {
  readonly jsonrpc?: string
  readonly id?: string | number
  readonly method?: string
  readonly params?: Record<string, unknown>
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string }
}

export interface MemoryPeer {
  readonly session: Session
  /** The next message the client sent. */
  readonly next: Effect.Effect<Message>
  /** Sends one message to the client, as the server. */
  readonly deliver: (message: object) => Effect.Effect<void>
  /** The `initialize` request the client sent. */
  readonly initialize: Message
}

/** A session whose handshake has completed against the test; `handlers` as given. */
export const memoryPeer = (
  handlers?: ClientHandlers.ClientHandlers,
  capabilities: Readonly<Record<string, unknown>> = {}
): Effect.Effect<MemoryPeer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const sent = yield* Queue.unbounded<string>()
    let receiver: Transport.Receiver | undefined
    const ended = Deferred.makeUnsafe<Transport.Ended>()
    const session = yield* Open.over({
      server: "memory",
      requestTimeoutMs: 30_000,
      initializeTimeoutMs: 30_000,
      clientInfo: { name: "test", version: "1" },
      capabilities,
      maxInFlight: 16,
      maxPages: 5,
      notificationBuffer: 16,
      notificationReplay: 4,
      secrets: [],
      handlers
    }, (r) =>
      Effect.sync((): Transport.Transport => {
        receiver = r
        return {
          kind: "http",
          send: (frame) => Queue.offerUnsafe(sent, frame.text),
          abandon: () => {},
          established: () => {},
          initialized: (frame) => Effect.sync(() => Queue.offerUnsafe(sent, frame.text)),
          ended: Deferred.await(ended),
          close: Effect.void
        }
      }))
    const next = Effect.map(Queue.take(sent), (text): Message => JSON.parse(text))
    const deliver = (message: object) => Effect.sync(() => receiver?.message(JSON.stringify(message)))
    // Server requests are a legacy-era feature: the era probe gets -32601 at once, then initialize follows.
    const discover = yield* next
    if (discover.method !== "server/discover") {
      return yield* Effect.die(new Error(`expected the era probe, got ${JSON.stringify(discover)}`))
    }
    yield* deliver({ jsonrpc: "2.0", id: discover.id, error: { code: -32601, message: "Method not found" } })
    const initialize = yield* next
    yield* deliver({
      jsonrpc: "2.0",
      id: initialize.id,
      result: {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "memory-server", version: "1" }
      }
    })
    yield* Effect.orDie(session.awaitReady)
    const initialized = yield* next
    if (initialized.method !== "notifications/initialized") {
      return yield* Effect.die(new Error(`expected initialized, got ${JSON.stringify(initialized)}`))
    }
    return { session, next, deliver, initialize }
  })
