/**
 * `notifications/elicitation/complete` (2025-11-25), routed: while a URL-mode elicitation is with the client's
 * handler (asked by `elicitation/create`, or required by a `-32042` error), its id is watched, and the server's
 * completion notification for it completes the handler's `completion`. A notification for an id nobody watches, or
 * one already completed, is ignored, as the spec requires (it still reaches the `notifications` stream).
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { ServerNotification } from "../Protocol.ts"

/** The completion notifications of one session. */
export interface Completions {
  /** Watches `id` until `release`: `completion` completes when the server says the elicitation is complete. */
  readonly watch: (id: string) => { readonly completion: Effect.Effect<void>; readonly release: () => void }
  /** Sees each notification the server sent. */
  readonly observe: (notification: ServerNotification) => void
}

const METHOD = "notifications/elicitation/complete"

const idOf = (params: unknown): string | undefined =>
  typeof params === "object" && params !== null && "elicitationId" in params &&
    typeof params.elicitationId === "string"
    ? params.elicitationId
    : undefined

/** A fresh registry. */
export const make = (): Completions => {
  const watched = new Map<string, { readonly done: Deferred.Deferred<void>; watchers: number }>()
  return {
    watch: (id) => {
      const entry = watched.get(id) ?? { done: Deferred.makeUnsafe<void>(), watchers: 0 }
      entry.watchers++
      watched.set(id, entry)
      let released = false
      return {
        completion: Deferred.await(entry.done),
        release: () => {
          if (released) return
          released = true
          entry.watchers--
          if (entry.watchers === 0 && watched.get(id) === entry) watched.delete(id)
        }
      }
    },
    observe: (notification) => {
      if (notification.method !== METHOD) return
      const id = idOf(notification.params)
      const entry = id === undefined ? undefined : watched.get(id)
      if (id === undefined || entry === undefined) return
      // Completed: a later notification for the same id is ignored.
      watched.delete(id)
      Deferred.doneUnsafe(entry.done, Exit.void)
    }
  }
}
