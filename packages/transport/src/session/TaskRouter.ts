/**
 * `notifications/tasks/status`, routed: each followed task waits for the next status notification about it while it
 * waits for its next poll, so a server that says a task changed is heard at once (the poll still comes: the
 * notifications are optional, a client must not rely on them). A notification nobody waits for is kept (the latest
 * per task, for the last `UNCLAIMED` tasks) for the next wait on its task: a server may say a task moved before its
 * `tools/call` answer has told the client the task exists (server-everything does), or while the client is between
 * a poll and its next wait. The notification is published on the session's stream as any other.
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

/** How many tasks' unclaimed notifications are kept (the oldest task's is dropped first). */
export const UNCLAIMED = 64

/** A router with nobody waiting. */
export const make = (): TaskRouter => {
  const waiting = new Map<string, Set<Deferred.Deferred<unknown>>>()
  const unclaimed = new Map<string, unknown>()
  return {
    observe: (notification) => {
      if (notification.method !== STATUS) return
      const taskId = taskIdOf(notification.params)
      if (taskId === undefined) return
      const waiters = waiting.get(taskId)
      if (waiters === undefined) {
        unclaimed.delete(taskId)
        unclaimed.set(taskId, notification.params)
        if (unclaimed.size > UNCLAIMED) unclaimed.delete(unclaimed.keys().next().value!)
        return
      }
      waiting.delete(taskId)
      for (const waiter of waiters) Deferred.doneUnsafe(waiter, Exit.succeed(notification.params))
    },
    next: (taskId) =>
      Effect.suspend(() => {
        if (unclaimed.has(taskId)) {
          const params = unclaimed.get(taskId)
          unclaimed.delete(taskId)
          return Effect.succeed(params)
        }
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
