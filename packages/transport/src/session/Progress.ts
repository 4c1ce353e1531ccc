/**
 * Progress of a request (`notifications/progress`), the shape an Effect caller uses:
 * `callTool(name, args, { onProgress })`, or `callToolStream` for a stream of progress then the result.
 *
 * - The client mints the token: the request's own JSON-RPC id, sent as `_meta.progressToken` (as the official SDK
 *   does), so a token is unique among the requests in flight.
 * - A report for a token no waiting request asked for (unknown, or already answered) is dropped and counted.
 * - Every report is delivered before the call's result: reports are queued in wire order on the reading fiber, and
 *   the call returns only once its queue is drained.
 * - `resetTimeoutOnProgress` (default `false`, as in the SDK) restarts the request's deadline at each report;
 *   `maxTotalTimeout` (default unbounded) bounds it from the start whatever progress comes. The SDK checks that
 *   bound only when a report arrives; here it is a deadline of its own, so a server that stops reporting is still
 *   cut off there (the spec: "clients SHOULD always enforce a maximum timeout").
 *
 * @since 0.3.0
 */
import type * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type { PendingTable, ProgressHooks } from "../internal/PendingTable.ts"
import type { Progress } from "../ProtocolFeatures.ts"
import { ProgressNotification } from "../ProtocolFeatures.ts"

/**
 * Per-call progress options, next to `timeout`.
 *
 * @since 0.3.0
 * @category options
 */
export interface ProgressOptions {
  /** Runs for each progress report of this call, in order; all of them before the call returns. */
  readonly onProgress?: ((progress: Progress) => Effect.Effect<void>) | undefined
  /** Each report restarts the call's deadline (its `timeout`). Default `false`. */
  readonly resetTimeoutOnProgress?: boolean | undefined
  /** The call's bound from its start, whatever progress comes. Default: none. */
  readonly maxTotalTimeout?: Duration.Input | undefined
}

/**
 * One event of `callToolStream`: a progress report, or the call's result (the last event).
 *
 * @since 0.3.0
 * @category models
 */
export type CallEvent<A> =
  | { readonly _tag: "Progress"; readonly progress: Progress }
  | { readonly _tag: "Result"; readonly result: A }

const decodeProgress = Schema.decodeUnknownExit(ProgressNotification)

const millis = (input: Duration.Input): number => {
  const ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  return Number.isNaN(ms) || ms < 0 ? 0 : ms
}

/** Whether the options ask for a progress token at all. */
const wanted = (options: ProgressOptions | undefined): options is ProgressOptions =>
  options !== undefined &&
  (options.onProgress !== undefined || options.resetTimeoutOnProgress === true ||
    options.maxTotalTimeout !== undefined)

/** Hands each report to `onProgress`, in order, until the call's reports end. */
const deliver = Effect.fnUntraced(function*(
  reports: Queue.Dequeue<Progress, Cause.Done>,
  onProgress: ProgressOptions["onProgress"]
) {
  while (true) {
    const next = yield* Effect.exit(Queue.take(reports))
    if (Exit.isFailure(next)) return
    if (onProgress !== undefined) yield* onProgress(next.value)
  }
})

/**
 * Runs `send` with progress hooks when `options` ask for them: reports go through a queue to `onProgress` on a
 * fiber of the caller's, and the result is returned only after that queue is drained.
 */
export const run = <A, E>(
  options: ProgressOptions | undefined,
  send: (hooks: ProgressHooks | undefined) => Effect.Effect<A, E>
): Effect.Effect<A, E> => {
  if (!wanted(options)) return send(undefined)
  const onProgress = options.onProgress
  return Effect.gen(function*() {
    const reports = yield* Queue.unbounded<Progress, Cause.Done>()
    const consumer = yield* Effect.forkChild(deliver(reports, onProgress), { startImmediately: true })
    const outcome = yield* Effect.exit(send({
      onProgress: (report) => {
        Queue.offerUnsafe(reports, report)
      },
      resetTimeoutOnProgress: options.resetTimeoutOnProgress === true,
      maxTotalTimeoutMs: options.maxTotalTimeout === undefined ? Infinity : millis(options.maxTotalTimeout)
    }))
    Queue.endUnsafe(reports)
    yield* Fiber.join(consumer)
    return yield* outcome
  })
}

/** The caller's view of a report (the token stays the client's business). */
const toProgress = (
  { message, progress, total }: typeof ProgressNotification.Type,
  scrub: (text: string) => string
): Progress => ({
  progress,
  ...(total !== undefined ? { total } : {}),
  ...(message !== undefined ? { message: scrub(message) } : {})
})

/** Counters of progress reports. */
export interface Counters {
  /** Reports delivered to a waiting call. */
  progressDelivered: number
  /** Reports dropped: unknown or finished token, or params that are not a progress report. */
  progressDropped: number
}

/** Routes `notifications/progress` params to the pending request that asked for them, or counts them dropped. */
export const router = (pending: PendingTable, scrub: (text: string) => string) => {
  const counters: Counters = { progressDelivered: 0, progressDropped: 0 }
  return {
    counters,
    route: (params: unknown): void => {
      const decoded = decodeProgress(params)
      if (Exit.isSuccess(decoded) && pending.progress(decoded.value.progressToken, toProgress(decoded.value, scrub))) {
        counters.progressDelivered++
      } else {
        counters.progressDropped++
      }
    }
  }
}
