/**
 * The POSTs that carry a client's answers to a server's requests (`ping`, `roots/list`, sampling…), a few at a time.
 * A server that sent 500 `ping`s on one answer stream once got 500 answer POSTs at once, on 503 connections: here
 * at most `CONCURRENCY` are on the wire, the rest wait their turn, and past `MAX_WAITING` waiting answers a new one
 * is dropped (the server's request then goes unanswered; the caller says so).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"

/** Answer POSTs on the wire at once, per transport. */
export const CONCURRENCY = 4
/** Answers waiting for a turn; one more is dropped. */
export const MAX_WAITING = 1024

/** A transport's pool: `bounded(post)` is `post` run in its turn, or `undefined` when too many already wait. */
export interface AnswerPool {
  readonly bounded: <R>(post: Effect.Effect<void, never, R>) => Effect.Effect<void, never, R> | undefined
}

/** An empty pool. */
export const make = (): AnswerPool => {
  const permits = Semaphore.makeUnsafe(CONCURRENCY)
  let waiting = 0
  return {
    bounded: (post) => {
      if (waiting >= MAX_WAITING) return undefined
      waiting++
      let started = false
      return permits.withPermit(Effect.suspend(() => {
        started = true
        waiting--
        return post
      })).pipe(Effect.ensuring(Effect.sync(() => {
        if (!started) waiting--
      })))
    }
  }
}
