/**
 * `notifications/tasks/status`, routed: each followed task waits for the next status notification about it while it
 * waits for its next poll, so a server that says a task changed is heard at once (the poll still comes: the
 * notifications are optional, a client must not rely on them). The notification is published on the session's
 * stream as any other.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { ServerNotification } from "../Protocol.ts"

/** The method of a task's status notification. */
export const STATUS = "notifications/tasks/status"

/** The routes of one session. */
export interface TaskRouter {
  /** Hands a status notification to whoever waits for its task (called on the reading fiber). */
  readonly observe: (notification: ServerNotification) => void
  /** The params of the next status notification about `taskId`. */
  readonly next: (taskId: string) => Effect.Effect<unknown>
}

/** The task id a status notification names, if any. */
export const taskIdOf = (params: unknown): string | undefined =>
  typeof params === "object" && params !== null && "taskId" in params && typeof params.taskId === "string"
    ? params.taskId
    : undefined

/** A router with nobody waiting. */
export const make = (): TaskRouter => {
  const waiting = new Map<string, Set<Deferred.Deferred<unknown>>>()
  return {
    observe: (notification) => {
      if (notification.method !== STATUS) return
      const taskId = taskIdOf(notification.params)
      const waiters = taskId === undefined ? undefined : waiting.get(taskId)
      if (taskId === undefined || waiters === undefined) return
      waiting.delete(taskId)
      for (const waiter of waiters) Deferred.doneUnsafe(waiter, Exit.succeed(notification.params))
    },
    next: (taskId) =>
      Effect.suspend(() => {
        const waiter = Deferred.makeUnsafe<unknown>()
        let waiters = waiting.get(taskId)
        if (waiters === undefined) waiting.set(taskId, waiters = new Set())
        const registered = waiters
        registered.add(waiter)
        return Deferred.await(waiter).pipe(
          Effect.ensuring(Effect.sync(() => {
            registered.delete(waiter)
            if (registered.size === 0 && waiting.get(taskId) === registered) waiting.delete(taskId)
          }))
        )
      })
  }
}
