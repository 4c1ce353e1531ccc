/**
 * Reading a `Duration.Input` option as milliseconds, and the request deadline's default: below every floor, so the
 * options' resolver (`McpClientOptions`) and the session's per-call deadline read durations the same way.
 *
 * @internal
 */
import * as Duration from "effect/Duration"

/** The request deadline used when none (or a non-positive one) is given. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000

/** A duration in milliseconds: absent, zero, negative or infinite → `fallback`. */
export const millis = (input: Duration.Input | undefined, fallback: number): number => {
  if (input === undefined) return fallback
  const ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  return Number.isFinite(ms) && ms > 0 ? ms : fallback
}
