/**
 * How often one event stream (the GET stream, or a request's stream being resumed) may be opened again, so that a
 * server cannot drive the client into a reconnection storm (issue 24: `retry: 0` with a priming event and a close
 * 10 ms later cost 244 GETs in 3 s, with no end).
 *
 * - The wait before opening it again is the server's `retry:` (else our backoff), never less than `RETRY_FLOOR_MS`.
 * - At most `MAX_PER_WINDOW` openings within `WINDOW_MS`. A stream that used them all and carried no message in that
 *   time is given up, with a reason; one that carries messages waits until the window frees.
 * - A GET the server refuses (a 4xx other than 405, 408 and 429: an app that routes only `POST /mcp` answers 404) is
 *   tried once more, then given up.
 *
 * A priming event (an id and `retry:`, no data) is an event but not a message: it proves the stream opened, and no
 * more.
 *
 * @internal
 */

/** The least wait before a stream is opened again, whatever its `retry:` says. */
export const RETRY_FLOOR_MS = 250
/** The window the openings are counted in. */
export const WINDOW_MS = 60_000
/** Openings of one stream within `WINDOW_MS`. */
export const MAX_PER_WINDOW = 10
/** Refusals (4xx) of one stream's GET before it is given up. */
export const MAX_REFUSALS = 2

/** Our own backoff between attempts when the server gave no `retry:`: 1 s × 1.5ⁿ, at most 30 s. */
export const backoffMs = (attempt: number): number => Math.min(1000 * 1.5 ** attempt, 30_000)

/** The wait before the next opening: the server's `retry:` or our backoff, at least `RETRY_FLOOR_MS`. */
export const delayMs = (retryMs: number | undefined, attempt: number): number =>
  Math.max(retryMs ?? backoffMs(attempt), RETRY_FLOOR_MS)

/** Whether a GET's status is a refusal: the server will not serve this stream (405 is said apart). */
export const isRefusal = (status: number): boolean =>
  status >= 400 && status < 500 && status !== 405 && status !== 408 && status !== 429

/** What the next opening may do at a given time. */
export type Turn =
  | { readonly _tag: "Open" }
  | { readonly _tag: "Wait"; readonly ms: number }
  | { readonly _tag: "GiveUp"; readonly reason: string }

/** The openings of one stream. */
export interface Budget {
  /** Asks to open the stream at `now` (an `Open` counts as an opening). */
  readonly next: (now: number) => Turn
  /** The stream carried a message at `now`. */
  readonly carried: (now: number) => void
}

/** A stream's budget, empty. */
export const budget = (): Budget => {
  const openings: Array<number> = []
  let lastMessageAt = -Infinity
  return {
    next: (now) => {
      while (openings.length > 0 && openings[0]! <= now - WINDOW_MS) openings.shift()
      if (openings.length < MAX_PER_WINDOW) {
        openings.push(now)
        return { _tag: "Open" }
      }
      const oldest = openings[0]!
      if (lastMessageAt < oldest) {
        return {
          _tag: "GiveUp",
          reason: `it was opened ${MAX_PER_WINDOW} times within ${WINDOW_MS / 1000} s and carried no message`
        }
      }
      return { _tag: "Wait", ms: oldest + WINDOW_MS - now }
    },
    carried: (now) => {
      lastMessageAt = now
    }
  }
}
