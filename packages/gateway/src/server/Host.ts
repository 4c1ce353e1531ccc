/**
 * One connected host, and one of its requests being served (an exchange).
 *
 * A host is a stdio peer, a 2025-era HTTP session, or — in the 2026-07-28 era, which has no session — one request:
 * each modern request is its own host, built from the request's `_meta`. What a host declared (capabilities, log
 * level, subscriptions) is read from here, and what the gateway sends it goes through `push` (its own channel:
 * stdout, the session's GET stream) or through the exchange it belongs to (the request's response stream).
 *
 * Requests the gateway sends to a host (elicitation, sampling, roots: 2025 era only) wait in `asked` for the host's
 * answer, which arrives as a response message.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Rpc from "./Rpc.ts"

/** The protocol era a host speaks. */
export type Era = "legacy" | "modern"

/** What a host says it is. */
export interface ClientInfo {
  readonly name: string
  readonly version: string
}

/** One connected host. */
export interface Host {
  readonly id: string
  readonly era: Era
  readonly transport: "stdio" | "http"
  /** The profile the host connected through (`/mcp/<profile>`, `--profile`); `undefined`: the whole fleet. */
  readonly profile: string | undefined
  protocolVersion: string
  clientInfo: ClientInfo | undefined
  capabilities: Readonly<Record<string, unknown>>
  /** The least severe log level the host wants; `undefined`: legacy, everything; modern, nothing. */
  logLevel: Rpc.LogLevel | undefined
  initialized: boolean
  /** Gateway URIs the host subscribed to (`resources/subscribe`, 2025 era). */
  readonly subscriptions: Set<string>
  /** The host's requests being served, by id: `notifications/cancelled` interrupts one. */
  readonly inFlight: Map<string | number, Fiber.Fiber<unknown, unknown>>
  /** Requests the gateway sent the host, by id, until it answers. */
  readonly asked: Map<string | number, Deferred.Deferred<unknown, Rpc.RpcError>>
  /** Sends on the host's own channel; `false` when it has none open (the message is dropped). */
  push: (message: Record<string, unknown>) => boolean
  /** The start of the ids of requests asked of the host (`fleet-`; a replica's tag in it when answers may be relayed). */
  askPrefix: string
  nextAsk: number
  closed: boolean
  /** When the host's session opened (it finished `initialize`), by the engine's clock; `undefined` before. */
  openedAt: number | undefined
  /** Its number in the engine's log lines (never its session id, which would let a reader act in the session). */
  number: number
  /** Requests served, and those answered with an error. */
  requests: number
  errors: number
}

/** A new host. */
export const make = (options: {
  readonly id: string
  readonly era: Era
  readonly transport: "stdio" | "http"
  readonly profile?: string | undefined
  readonly protocolVersion: string
  readonly push?: ((message: Record<string, unknown>) => boolean) | undefined
}): Host => ({
  id: options.id,
  era: options.era,
  transport: options.transport,
  profile: options.profile,
  protocolVersion: options.protocolVersion,
  clientInfo: undefined,
  capabilities: {},
  logLevel: undefined,
  initialized: false,
  subscriptions: new Set(),
  inFlight: new Map(),
  asked: new Map(),
  push: options.push ?? (() => false),
  askPrefix: "fleet-",
  nextAsk: 1,
  closed: false,
  openedAt: undefined,
  number: 0,
  requests: 0,
  errors: 0
})

/** One request of a host being served. */
export interface Exchange {
  readonly host: Host
  readonly id: string | number
  readonly method: string
  /** The progress token the host gave, if any. */
  readonly progressToken: string | number | undefined
  /**
   * The log level of this request: a 2025-era host's own (`undefined`: every entry); a 2026-07-28 request's
   * `_meta` level (`undefined`: none at all).
   */
  readonly logLevel: Rpc.LogLevel | undefined
  /** Sends a message tied to this request: on its response stream when it has one, else on the host's channel. */
  readonly related: (message: Record<string, unknown>) => boolean
}

/** Whether a log entry at `level` goes to this exchange's host. */
export const wantsLog = (exchange: Exchange, level: unknown): boolean =>
  exchange.host.era === "modern"
    ? exchange.logLevel !== undefined && Rpc.passes(level, exchange.logLevel)
    : Rpc.passes(level, exchange.logLevel)

/** Whether the host declared `capability` (`elicitation`, `sampling`, `roots`). */
export const declares = (host: Host, capability: string): boolean => host.capabilities[capability] !== undefined

/**
 * Sends `method` to a 2025-era host (on `exchange`'s stream when given, else on its own channel) and waits for its
 * answer. Interrupted (the server that asked cancelled), it tells the host `notifications/cancelled`, on the call's
 * stream while that call is still open (a host without a `GET` stream hears it too), else on its own channel.
 */
export const ask = (
  host: Host,
  exchange: Exchange | undefined,
  method: string,
  params: unknown
): Effect.Effect<unknown, Rpc.RpcError> =>
  Effect.suspend(() => {
    if (host.closed) return Effect.fail(Rpc.error(Rpc.INTERNAL_ERROR, "The host that made this call has gone."))
    const id = `${host.askPrefix}${host.nextAsk++}`
    const answer = Deferred.makeUnsafe<unknown, Rpc.RpcError>()
    host.asked.set(id, answer)
    const message = Rpc.requestMessage(id, method, params)
    const sent = exchange?.related(message) ?? host.push(message)
    if (!sent) {
      host.asked.delete(id)
      return Effect.fail(Rpc.error(Rpc.INTERNAL_ERROR, "The host has no open stream to ask it on."))
    }
    return Deferred.await(answer).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          // Where the question went: on the call's stream while the call is open, else on the host's own channel.
          const cancelled = Rpc.notificationMessage("notifications/cancelled", {
            requestId: id,
            reason: "cancelled upstream"
          })
          const open = exchange !== undefined && host.inFlight.has(exchange.id) && exchange.related(cancelled)
          if (!open) host.push(cancelled)
        })
      ),
      Effect.ensuring(Effect.sync(() => host.asked.delete(id)))
    )
  })

/** Settles the request `id` the gateway asked the host, with the host's answer. `false`: no such request. */
export const answered = (
  host: Host,
  id: string | number,
  outcome: { readonly result: unknown } | { readonly error: Rpc.RpcError }
): boolean => {
  const waiting = host.asked.get(id)
  if (waiting === undefined) return false
  host.asked.delete(id)
  if ("result" in outcome) Deferred.doneUnsafe(waiting, Exit.succeed(outcome.result))
  else Deferred.doneUnsafe(waiting, Exit.fail(outcome.error))
  return true
}
