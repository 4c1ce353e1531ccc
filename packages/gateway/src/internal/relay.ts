/**
 * The relay between replicas for answers to requests the gateway asked a 2025-11-25 host (elicitation, sampling,
 * roots). The request waits on the replica that asked it; the host's answer is a new `POST`, which a round-robin
 * balancer may send to another replica: that replica relays it to the one that asked (the request's id names it).
 * The Redis side provides it (`RedisShared`), over the connection's channel; without it, such an answer reaching
 * another replica is dropped.
 *
 * @internal
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** One relayed answer: for replica `to`, the session `sid`'s answer to request `id`. */
export interface Answer {
  readonly to: string
  readonly sid: string
  readonly id: string | number
  readonly outcome:
    | { readonly result: unknown }
    | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } }
}

/**
 * The relay: `publish` to the other replicas; `subscribe` subscribes at once and returns the wait for the next
 * message of another replica (unchecked: the receiver decodes it; this replica's own never come back).
 */
export class Relay extends Context.Service<Relay, {
  readonly publish: (answer: Answer) => Effect.Effect<void>
  readonly subscribe: Effect.Effect<Effect.Effect<unknown>, never, Scope.Scope>
}>()("@mcp-fleet/gateway/Relay") {}
