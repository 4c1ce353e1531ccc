/**
 * Helpers for real-process tests.
 */
import { Processes } from "@mcp-fleet/testing"
import { Effect, Schedule } from "effect"

/** Whether a process (or, with a negative pid, a process group) exists. */
export const exists = Processes.exists

/** Polls `check` every 10 ms until it holds; fails after `limitMs` (a bound, not a wait). */
export const waitUntil = (check: () => boolean, what: string, limitMs = 5_000): Effect.Effect<void> =>
  Effect.suspend(() => (check() ? Effect.void : Effect.fail("not yet" as const))).pipe(
    Effect.retry(Schedule.spaced("10 millis").pipe(Schedule.upTo({ times: Math.ceil(limitMs / 10) }))),
    Effect.orDie,
    Effect.catchDefect(() => Effect.die(new Error(`timed out waiting for: ${what}`)))
  )
