/**
 * Durations as people type them on a command line: `500ms`, `30s`, `2m`, `1.5s`, or a bare number of seconds
 * (`10`, as `timeout(1)` reads it). Effect's own spelling (`"30 seconds"`, `"200 millis"`) is accepted too.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  millis: 1,
  milli: 1,
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000
}

const PATTERN = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/

/**
 * Reads a duration; `None` for anything else (negative, unknown unit, empty).
 *
 * @example
 * ```ts
 * import { DurationText } from "@mcp-fleet/cli"
 *
 * DurationText.parse("1.5s") // Some(Duration 1500 millis)
 * DurationText.parse("10")   // Some(Duration 10 seconds)
 * DurationText.parse("soon") // None
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Option.Option<Duration.Duration> => {
  const match = PATTERN.exec(text.trim().toLowerCase())
  if (match === null) return Option.none()
  const value = Number(match[1])
  const unit = match[2] === undefined || match[2] === "" ? "s" : match[2]
  const scale = UNITS[unit]
  if (scale === undefined || !Number.isFinite(value)) return Option.none()
  return Option.some(Duration.millis(Math.round(value * scale)))
}

/**
 * A duration for messages: `750 ms`, `30 s`, `1.5 s`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const format = (duration: Duration.Duration): string => {
  const ms = Duration.toMillis(duration)
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${Number((ms / 1_000).toFixed(2))} s`
}
