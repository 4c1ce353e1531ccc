/**
 * The one deadline of a call that may be sent more than once (a 2026-07-28 request re-issued after its stream
 * broke): each sending gets what is left of the call's `timeout`, never a fresh one. With progress options the
 * deadline moves with each report when `resetTimeoutOnProgress` (from that report, as the pending table does), and
 * `maxTotalTimeout` bounds it from the call's start.
 *
 * @internal
 */
import type { ProgressHooks } from "../internal/PendingTable.ts"

/** What a later sending carries: the time left, and the progress hooks with what is left of the hard bound. */
export interface Left {
  readonly timeoutMs: number
  readonly progress?: ProgressHooks | undefined
}

/** A call's deadline. */
export interface CallDeadline {
  /** The progress hooks the first sending gets: they note each report that moves the deadline. */
  readonly progress: ProgressHooks | undefined
  /** What a sending now gets; `undefined` when nothing is left (the call has timed out). */
  readonly left: () => Left | undefined
  /** The bound that runs out first from now on: the call's `timeout`, or its `maxTotalTimeout`. */
  readonly bound: () => number
}

/** The deadline of a call starting now, with `timeoutMs` (`Infinity`: none) and its progress hooks, if any. */
export const start = (now: () => number, timeoutMs: number, hooks: ProgressHooks | undefined): CallDeadline => {
  const started = now()
  let from = started
  const hard = hooks === undefined ? Infinity : started + hooks.maxTotalTimeoutMs
  const progress: ProgressHooks | undefined = hooks === undefined || !hooks.resetTimeoutOnProgress ? hooks : {
    ...hooks,
    onProgress: (report) => {
      from = now()
      hooks.onProgress(report)
    }
  }
  const soft = () => (timeoutMs === Infinity ? Infinity : from + timeoutMs)
  return {
    progress,
    left: () => {
      const at = now()
      const until = Math.min(soft(), hard)
      if (until - at <= 0) return undefined
      const timeout = soft() === Infinity ? Infinity : soft() - at
      return progress === undefined ? { timeoutMs: timeout } : {
        timeoutMs: timeout,
        progress: { ...progress, maxTotalTimeoutMs: hard - at }
      }
    },
    bound: () => (hooks !== undefined && hard < soft() ? hooks.maxTotalTimeoutMs : timeoutMs)
  }
}
