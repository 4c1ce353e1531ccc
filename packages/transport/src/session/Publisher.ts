/**
 * Publishing server notifications from the transport's reading fiber without ever blocking it, and with the
 * sliding strategy honoured: a slow subscriber loses its oldest notifications, never the reader its pace, and never
 * another subscriber a notification.
 *
 * `PubSub.publishUnsafe` is synchronous but does not apply the strategy: it refuses a message as soon as any
 * subscriber's buffer is full. So a refused notification (and every one after it, to keep the order) waits in a
 * bounded overflow that one fiber hands to `PubSub.publishAll`, which slides. The overflow keeps the newest
 * `capacity` only: one `publishAll` of more would leave each subscriber the newest `capacity` anyway.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as PubSub from "effect/PubSub"

/** A synchronous `publish` and the fiber body that drains what it could not publish at once. */
export interface Publisher<A> {
  readonly publish: (message: A) => void
  /** Forked by the owner for the life of the PubSub. */
  readonly run: Effect.Effect<never>
}

/** A publisher into `pubsub`, a sliding PubSub of `capacity`. */
export const make = <A>(pubsub: PubSub.PubSub<A>, capacity: number): Publisher<A> => {
  let overflow: Array<A> = []
  let wake = Deferred.makeUnsafe<void>()
  return {
    publish: (message) => {
      if (overflow.length === 0 && PubSub.publishUnsafe(pubsub, message)) return
      overflow.push(message)
      if (overflow.length > capacity) overflow.shift()
      Deferred.doneUnsafe(wake, Exit.void)
    },
    run: Effect.suspend(() => Deferred.await(wake)).pipe(
      Effect.andThen(Effect.suspend(() => {
        wake = Deferred.makeUnsafe()
        const batch = overflow
        overflow = []
        return PubSub.publishAll(pubsub, batch)
      })),
      Effect.forever
    )
  }
}
