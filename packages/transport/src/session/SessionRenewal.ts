/**
 * When a session initializes again after an HTTP server forgot it (a 404, or a 400 naming the session, for a request
 * that carried the session id).
 *
 * - A **fresh** loss initializes again at once: a request had succeeded on the lost session, or it was the session
 *   of the first handshake.
 * - A session made by a renewal and lost before one request succeeded on it is **not** a fresh loss (the server
 *   forgets every session: a load balancer without session affinity, at its worst). The next renewal waits the
 *   schedule's delay; once the schedule is done, the session fails with `SessionsForgotten`.
 *
 * Without this, such a server cost 856 initializes in 3 s for as long as the client lived (issue 24).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Pull from "effect/Pull"
import * as Schedule from "effect/Schedule"
import { SessionsForgotten } from "../HttpError.ts"

/** The default: 250 ms, 500 ms, then 1 s before the renewals of sessions lost unconfirmed, then `SessionsForgotten`. */
export const DEFAULT_SCHEDULE: Schedule.Schedule<unknown, unknown> = Schedule.exponential("250 millis").pipe(
  Schedule.upTo({ times: 3 })
)

/** One session's renewals. */
export interface Renewal {
  /**
   * What runs before the next `initialize`, once the session has been lost (`confirmed`: a request had succeeded
   * on it): nothing, a wait, or `SessionsForgotten`.
   */
  readonly before: (confirmed: boolean) => Effect.Effect<void, SessionsForgotten>
}

/** The renewals of the session with `server`, spaced by `schedule` (stepped once per unconfirmed loss). */
export const make = (server: string, schedule: Schedule.Schedule<unknown, unknown>): Renewal => {
  /** Whether the current session was made by a renewal (the first handshake's was not). */
  let renewed = false
  /** Sessions made by a renewal and lost unconfirmed, in a row. */
  let streak = 0
  let step: ((now: number, input: unknown) => Pull.Pull<[unknown, Duration.Duration], unknown, unknown>) | undefined
  return {
    before: (confirmed) =>
      Effect.suspend(() => {
        const fresh = confirmed || !renewed
        renewed = true
        if (fresh) {
          streak = 0
          step = undefined
          return Effect.void
        }
        streak++
        return Effect.gen(function*() {
          step ??= yield* Schedule.toStep(schedule)
          const next = yield* Effect.exit(step(yield* Clock.currentTimeMillis, streak))
          if (Exit.isFailure(next)) {
            return yield* new SessionsForgotten({ server, losses: streak })
          }
          yield* Effect.sleep(next.value[1])
        })
      })
  }
}
