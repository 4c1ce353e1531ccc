/**
 * The change bus over Redis pub/sub: a change published on one replica reaches every replica's subscribers.
 *
 * **Contract** (beyond `ChangeBus`'s):
 * - `publish` delivers here at once, then sends the change on the connection's channel; every other replica
 *   delivers it to its own subscribers (each once, by the change's key).
 * - After each (re)connection the bus delivers `Resync` here: changes sent while this replica was away are lost
 *   (Redis pub/sub keeps nothing), so its consumers read everything again.
 * - **Degraded** (Redis unreachable): `publish` still delivers here (with a warning that it was not shared).
 * - A message that does not decode as a change is ignored.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as ChangeBus from "../ChangeBus.ts"
import type * as RedisConnection from "./RedisConnection.ts"

const decodeChange = Schema.decodeUnknownOption(ChangeBus.Change)
const encodeChange = Schema.encodeSync(ChangeBus.Change)

/**
 * Builds the bus over a connection (scoped: it listens to the other replicas).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  connection: RedisConnection.Service,
  options: ChangeBus.Options = {}
): Effect.fn.Return<ChangeBus.ChangeBus["Service"], never, Scope.Scope> {
  const local = yield* ChangeBus.makeLocal(options)
  const events = yield* connection.events
  yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
    const event = yield* PubSub.take(events)
    if (event._tag === "Connected") return yield* local.deliver({ _tag: "Resync" })
    if (event.kind !== "change") return
    const change = decodeChange(event.body)
    if (change._tag === "Some" && change.value._tag !== "Resync") yield* local.deliver(change.value)
  })))
  return ChangeBus.ChangeBus.of({
    publish: Effect.fn("ChangeBus.publish")(function*(change: ChangeBus.Change) {
      yield* local.deliver(change)
      if (change._tag === "Resync") return
      yield* connection.publish("change", encodeChange(change)).pipe(
        Effect.catch((error) =>
          Effect.logWarning("Redis is unreachable; a change was delivered on this replica only").pipe(
            Effect.annotateLogs({ change: ChangeBus.keyOf(change), reason: error.reason })
          )
        )
      )
    }),
    subscribe: local.subscribe,
    changes: local.changes
  })
})
