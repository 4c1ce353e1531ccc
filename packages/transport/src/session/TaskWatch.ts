/**
 * One task the client follows: a fiber (in the caller's scope) that waits, polls `tasks/get`, and does what each
 * status asks (`TaskProtocol.settle`: answer input, fetch the result) until the task ends; the handle a host holds
 * (its latest status, a stream of statuses, its result, its cancellation).
 *
 * - **Waiting** between polls: the server's `pollInterval` (1 s when it suggests none), never less than the floor
 *   and never more than the cap, the cap being the delay of the client's polling `Schedule` at that poll (it may
 *   grow; once the schedule ends its last delay stands). A `notifications/tasks/status` about the task ends the wait
 *   at once and counts as the poll.
 * - **A poll that fails** with a transient error (a timeout, a dropped stream, a 503) is tried again at the next
 *   poll, `MAX_POLL_FAILURES` times in a row at most; any other error ends the wait with that error.
 * - **The end of the session** ends the wait at once with `TaskLost` (a stdio server's tasks die with its process;
 *   a remote server's may live on: `remote`). A server that no longer knows the task (`-32602`) is `TaskLost` too.
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ErrorKind from "../ErrorKind.ts"
import type { ProtocolError, StructuredContentInvalid } from "../McpError.ts"
import type { CallToolResult } from "../Protocol.ts"
import { isUnknownTask, TaskLost } from "../TaskError.ts"
import type { TaskCancelled } from "../TaskError.ts"
import type { Task, TaskHandle } from "../Tasks.ts"
import type { Observed, RequestError, Send, TaskProtocol } from "./TaskProtocol.ts"

/** How tasks are polled. */
export interface Polling {
  /** The shortest wait between two polls, in milliseconds. */
  readonly floorMs: number
  /** The longest wait at each poll: the delay of this schedule's step. */
  readonly cap: Schedule.Schedule<unknown, unknown>
}

/** The wait between polls when the server suggests none (the official SDK's default too). */
export const DEFAULT_INTERVAL_MS = 1_000
/** The default floor: a server that asks for 0 ms is polled every 100 ms, not in a busy loop. */
export const DEFAULT_FLOOR_MS = 100
/** The default cap: a server that asks for an hour is polled every 30 s. */
export const DEFAULT_CAP: Schedule.Schedule<unknown, unknown> = Schedule.spaced("30 seconds")
/** Failed polls in a row that a task survives (each one retried at the next poll). */
export const MAX_POLL_FAILURES = 3

/** What a followed task can fail with (its result not matching the tool's `outputSchema`, too). */
export type WatchError = RequestError | TaskCancelled | TaskLost | StructuredContentInvalid

/** What a followed task needs of its session. */
export interface Context {
  readonly server: string
  readonly scrub: (text: string) => string
  /** The tasks of the session's era now (a renewed session keeps its era). */
  readonly protocol: () => TaskProtocol
  /** Sends one task request (readiness-gated: it waits while an HTTP session is renewed). */
  readonly send: Send
  /** The params of the next `notifications/tasks/status` about the task. */
  readonly notified: (taskId: string) => Effect.Effect<unknown>
  /** Completes once the session has ended. */
  readonly ended: Effect.Effect<void>
  /** Why the session ended, once it has. */
  readonly endedWhy: () => string | undefined
  /** Whether the server is remote (its tasks may outlive this connection). */
  readonly remote: () => boolean
  readonly polling: Polling
}

type Woken =
  | { readonly _tag: "Timer" }
  | { readonly _tag: "Notified"; readonly params: unknown }
  | { readonly _tag: "Ended" }
  | { readonly _tag: "Woken" }

const timer: Woken = { _tag: "Timer" }
const ended: Woken = { _tag: "Ended" }
const woken: Woken = { _tag: "Woken" }

const differs = (a: Task, b: Task): boolean =>
  a.status !== b.status || a.statusMessage !== b.statusMessage || a.lastUpdatedAt !== b.lastUpdatedAt ||
  a.pollIntervalMs !== b.pollIntervalMs

/** The wait before the next poll: the server's interval (or the default), raised to the floor, cut to the cap. */
export const waitMillis = (task: Task, floorMs: number, capMs: number): number =>
  Math.max(floorMs, Math.min(task.pollIntervalMs ?? DEFAULT_INTERVAL_MS, capMs))

/**
 * Follows the task `first` describes in the current scope: polling starts at once and stops when the task ends or
 * the scope closes (which does not cancel the task).
 */
export const follow = Effect.fnUntraced(function*(
  context: Context,
  first: Observed,
  options: {
    /**
     * Decodes the task's result (a `CallToolResult`), checked against its tool's `outputSchema` as a plain call's
     * result is, when the tool is known.
     */
    readonly decodeResult: (raw: unknown) => Effect.Effect<CallToolResult, ProtocolError | StructuredContentInvalid>
    readonly immediateResponse?: string | undefined
    readonly onStatus?: ((task: Task) => Effect.Effect<void>) | undefined
  }
): Effect.fn.Return<TaskHandle<WatchError>, never, Scope.Scope> {
  const { server } = context
  const taskId = first.task.taskId
  const scrubbed = (observed: Observed): Observed =>
    observed.task.statusMessage === undefined
      ? observed
      : { ...observed, task: { ...observed.task, statusMessage: context.scrub(observed.task.statusMessage) } }
  let latest = scrubbed(first)
  /** The loop has stopped (the task ended, or the follower's scope closed): the status streams end. */
  let stopped = false
  /** The task's end is known (its result, or why it can no longer be had): nothing is left to cancel. */
  let settled = false
  let wake = Deferred.makeUnsafe<void>()
  const listeners = new Set<Queue.Queue<Task, Cause.Done>>()
  const answered = new Set<string>()
  const outcome = yield* Deferred.make<CallToolResult, WatchError>()
  const onStatus = options.onStatus

  const publish = (observed: Observed): Effect.Effect<void> =>
    Effect.suspend(() => {
      const next = scrubbed(observed)
      const changed = differs(latest.task, next.task)
      latest = next
      if (!changed) return Effect.void
      for (const listener of listeners) Queue.offerUnsafe(listener, next.task)
      return onStatus === undefined ? Effect.void : onStatus(next.task)
    })

  const lost = (reason: string, remote: boolean) => new TaskLost({ server, taskId, reason, remote })
  /** Whether a task request's failure means the task is lost: the session ended, or the server forgot the task. */
  const lostBy = (error: WatchError): TaskLost | undefined => {
    const why = context.endedWhy()
    if (why !== undefined) return lost(`the connection ended (${why})`, context.remote())
    if (isUnknownTask(error)) return lost(`the server no longer knows it (${error.message})`, false)
    return undefined
  }
  const classify = (error: WatchError): WatchError => lostBy(error) ?? error

  const loop: Effect.Effect<CallToolResult, WatchError> = Effect.gen(function*() {
    if (onStatus !== undefined) yield* onStatus(latest.task)
    const step = yield* Schedule.toStep(context.polling.cap)
    let capMs = Infinity
    let failures = 0
    let polls = 0
    while (true) {
      const settled = yield* Effect.mapError(context.protocol().settle(context.send, latest, answered), classify)
      if (settled._tag === "Result") return yield* options.decodeResult(settled.raw)
      const stepped = yield* Effect.exit(step(yield* Clock.currentTimeMillis, polls))
      if (Exit.isSuccess(stepped)) capMs = Duration.toMillis(stepped.value[1])
      const wait = waitMillis(latest.task, context.polling.floorMs, capMs)
      wake = Deferred.makeUnsafe<void>()
      const why = yield* Effect.raceAll([
        Effect.as(Effect.sleep(wait), timer),
        Effect.map(context.notified(taskId), (params): Woken => ({ _tag: "Notified", params })),
        Effect.as(context.ended, ended),
        Effect.as(Deferred.await(wake), woken)
      ])
      polls++
      if (why._tag === "Ended") {
        return yield* lost(`the connection ended (${context.endedWhy() ?? "closed"})`, context.remote())
      }
      if (why._tag === "Notified") {
        const observed = context.protocol().notified(why.params)
        if (observed !== undefined && observed.task.taskId === taskId) {
          yield* publish(observed)
          continue
        }
      }
      const polled = yield* Effect.result(context.protocol().get(context.send, taskId, latest.requestState))
      if (polled._tag === "Success") {
        failures = 0
        yield* publish(polled.success)
        continue
      }
      const gone = lostBy(polled.failure)
      if (gone !== undefined) return yield* gone
      if (ErrorKind.isRetryable(polled.failure) && failures < MAX_POLL_FAILURES) {
        failures++
        continue
      }
      return yield* polled.failure
    }
  })

  const finish = (exit: Exit.Exit<CallToolResult, WatchError>) =>
    Effect.sync(() => {
      stopped = true
      settled = !Exit.hasInterrupts(exit)
      for (const listener of listeners) Queue.endUnsafe(listener)
      listeners.clear()
      Deferred.doneUnsafe(outcome, exit)
    })

  yield* Effect.forkScoped(Effect.onExit(loop, finish), { startImmediately: true })

  return {
    server,
    taskId,
    created: latest.task,
    immediateResponse: options.immediateResponse,
    current: () => latest.task,
    statuses: Stream.callback<Task>((queue) =>
      Effect.gen(function*() {
        Queue.offerUnsafe(queue, latest.task)
        if (stopped) return Queue.endUnsafe(queue)
        listeners.add(queue)
        yield* Effect.addFinalizer(() => Effect.sync(() => listeners.delete(queue)))
      })
    ),
    result: Deferred.await(outcome),
    cancel: Effect.suspend(() => {
      if (settled) return Effect.void
      return context.protocol().cancel(context.send, taskId, latest.requestState).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: publish })),
        // A task that ended first answers -32602 (2025-11-25): the follower's next poll says how it ended.
        Effect.catchIf((error) => isUnknownTask(error), () => Effect.void),
        Effect.ensuring(Effect.sync(() => Deferred.doneUnsafe(wake, Exit.void)))
      )
    })
  }
})
