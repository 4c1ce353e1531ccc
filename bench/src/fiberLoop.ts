/**
 * The closed call loop of `cells/callCell.ts`, driven from Effect fibers instead of Promises: `concurrency` fibers,
 * each yielding the client's call effect back to back, in one `Effect.runPromise` for the whole window. It is how a
 * program written in Effect calls a client, with no `Effect.runPromise` (one fiber and one Promise) per call.
 *
 * @since 0.0.0
 */
import * as Effect from "effect/Effect"

/**
 * Runs the loop until `until` (a `performance.now()` time); resolves with every call's latency in ms. Every reply
 * is checked against the payload. `caller` is the fiber's index (0 … concurrency − 1), for loops that spread the
 * callers over several servers.
 *
 * @since 0.0.0
 */
export const fiberCallLoop = <E>(
  call: (payload: string, caller: number) => Effect.Effect<string, E>,
  payload: string,
  concurrency: number,
  until: number
): Promise<Array<number>> => {
  const latencies: Array<number> = []
  const worker = (caller: number) =>
    Effect.gen(function*() {
      while (performance.now() < until) {
        const start = performance.now()
        const text = yield* call(payload, caller)
        latencies.push(performance.now() - start)
        if (text.length !== payload.length) {
          return yield* Effect.die(`echo returned ${text.length} characters for a ${payload.length}-character payload`)
        }
      }
    })
  return Effect.runPromise(
    Effect.as(
      Effect.all(Array.from({ length: concurrency }, (_, i) => worker(i)), { concurrency: "unbounded", discard: true }),
      latencies
    )
  )
}
