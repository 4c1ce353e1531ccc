/**
 * The soak's counters: calls per kind with their outcomes, and what the chaos fiber did. Fixed-size state (a
 * few maps keyed by error tag, a bounded list of examples), so the soak itself never grows the heap.
 *
 * @since 0.0.0
 */
import { Effect } from "effect"

/**
 * The kinds of call the workload makes.
 *
 * - `echo`: `echo` with a payload of some size, answer checked byte for byte (and for the right call).
 * - `sleep`: the `sleep` control tool with a short `ms`.
 * - `hang`: a call with a short own timeout to a server that never answers (expected: `RequestTimeout`).
 *
 * @since 0.0.0
 * @category models
 */
export type Op = "echo" | "sleep" | "hang"

/**
 * Every `Op`, in report order.
 *
 * @since 0.0.0
 * @category models
 */
export const ops: ReadonlyArray<Op> = ["echo", "sleep", "hang"]

/**
 * How one call ended. `Unsettled`: it had neither a value nor an error by its deadline plus grace.
 *
 * @since 0.0.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Failed"; readonly tag: string; readonly detail: string }
  | { readonly _tag: "Unsettled"; readonly detail: string }

/**
 * The counters of one kind of call.
 *
 * @since 0.0.0
 * @category models
 */
export interface OpStats {
  calls: number
  succeeded: number
  unsettled: number
  /** Failures by error tag (`_tag` of the typed error; `Defect`/`Interrupted` for the rest). */
  readonly failed: Map<string, number>
  /** The longest time any settled call of this kind took, ms. */
  slowestMs: number
}

/**
 * Everything the soak counts.
 *
 * @since 0.0.0
 * @category models
 */
export interface Tally {
  readonly ops: Readonly<Record<Op, OpStats>>
  /** The first few unsettled calls and unexpected failures, described (bounded). */
  readonly examples: Array<string>
  kills: number
  /** SIGKILLs that found no process (it had just exited): `ESRCH`. */
  killsMissed: number
  /** Chaos picked a server that had no process at that moment (offline, reconnecting). */
  killsSkipped: number
  restarts: number
  /** `restart(name)` calls that had not returned within their bound. */
  restartsUnsettled: number
}

const maxExamples = 20

/**
 * Fresh counters.
 *
 * @since 0.0.0
 * @category constructors
 */
export const make = (): Tally => ({
  ops: {
    echo: { calls: 0, succeeded: 0, unsettled: 0, failed: new Map(), slowestMs: 0 },
    sleep: { calls: 0, succeeded: 0, unsettled: 0, failed: new Map(), slowestMs: 0 },
    hang: { calls: 0, succeeded: 0, unsettled: 0, failed: new Map(), slowestMs: 0 }
  },
  examples: [],
  kills: 0,
  killsMissed: 0,
  killsSkipped: 0,
  restarts: 0,
  restartsUnsettled: 0
})

/**
 * Error tags that the chaos explains, per kind of call. Anything else is unexpected and is kept as an example.
 *
 * @since 0.0.0
 * @category models
 */
export const expectedFailures: Readonly<Record<Op, ReadonlyArray<string>>> = {
  // Killed mid-call (ProcessExited), restarted mid-call (ClientClosed), reconnecting (ServerUnavailable,
  // ErrIndexBuilding while initialize runs again).
  echo: ["ProcessExited", "ClientClosed", "ServerUnavailable", "ErrIndexBuilding"],
  sleep: ["ProcessExited", "ClientClosed", "ServerUnavailable", "ErrIndexBuilding"],
  hang: ["RequestTimeout", "ProcessExited", "ClientClosed", "ServerUnavailable", "ErrIndexBuilding"]
}

/**
 * Keeps a described example, up to a fixed number.
 *
 * @since 0.0.0
 * @category mutations
 */
export const note = (tally: Tally, example: string): void => {
  if (tally.examples.length < maxExamples) {
    tally.examples.push(example.length > 400 ? example.slice(0, 400) + "…" : example)
  }
}

/**
 * Counts one finished call.
 *
 * @since 0.0.0
 * @category mutations
 */
export const record = (tally: Tally, op: Op, outcome: Outcome, elapsedMs: number): Effect.Effect<void> =>
  Effect.sync(() => {
    const stats = tally.ops[op]
    stats.calls++
    switch (outcome._tag) {
      case "Succeeded":
        stats.succeeded++
        stats.slowestMs = Math.max(stats.slowestMs, elapsedMs)
        return
      case "Failed":
        stats.failed.set(outcome.tag, (stats.failed.get(outcome.tag) ?? 0) + 1)
        stats.slowestMs = Math.max(stats.slowestMs, elapsedMs)
        if (!expectedFailures[op].includes(outcome.tag)) {
          note(tally, `${op}: unexpected ${outcome.tag}: ${outcome.detail}`)
        }
        return
      case "Unsettled":
        stats.unsettled++
        note(tally, `${op}: UNSETTLED ${outcome.detail}`)
        return
    }
  })

/**
 * Totals over every kind of call.
 *
 * @since 0.0.0
 * @category getters
 */
export const totals = (tally: Tally) => {
  const failed = new Map<string, number>()
  let calls = 0
  let succeeded = 0
  let unsettled = 0
  let unexpected = 0
  for (const op of ops) {
    const stats = tally.ops[op]
    calls += stats.calls
    succeeded += stats.succeeded
    unsettled += stats.unsettled
    for (const [tag, n] of stats.failed) {
      failed.set(tag, (failed.get(tag) ?? 0) + n)
      if (!expectedFailures[op].includes(tag)) unexpected += n
    }
  }
  return { calls, succeeded, unsettled, failed, unexpected }
}
