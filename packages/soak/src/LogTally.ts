/**
 * A logger for the soak that counts log lines by level and keeps the first few distinct messages of each, so a
 * long run's warnings (junk lines from `junk-first` servers after every restart, say) end up as a count in the
 * report instead of thousands of lines.
 *
 * @since 0.0.0
 */
import { Logger } from "effect"
import type { Layer, LogLevel } from "effect"

/**
 * The counts and the kept examples.
 *
 * @since 0.0.0
 * @category models
 */
export interface LogTally {
  readonly byLevel: Map<LogLevel.LogLevel, number>
  /** Up to `keep` distinct messages per level, each with how often it was seen (by its first 80 characters). */
  readonly examples: Map<LogLevel.LogLevel, Map<string, number>>
}

const keep = 5

/**
 * Fresh counters.
 *
 * @since 0.0.0
 * @category constructors
 */
export const make = (): LogTally => ({ byLevel: new Map(), examples: new Map() })

const text = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts.map((part) => (typeof part === "string" ? part : String(part))).join(" ").replace(/\s+/g, " ")
}

/**
 * A layer that replaces the current loggers with one that counts into `tally`.
 *
 * @since 0.0.0
 * @category layers
 */
export const layer = (tally: LogTally): Layer.Layer<never> =>
  Logger.layer([
    Logger.make((options) => {
      const level = options.logLevel
      tally.byLevel.set(level, (tally.byLevel.get(level) ?? 0) + 1)
      let seen = tally.examples.get(level)
      if (seen === undefined) {
        seen = new Map()
        tally.examples.set(level, seen)
      }
      const line = text(options.message)
      const key = line.length > 160 ? line.slice(0, 160) + "…" : line
      const byPrefix = [...seen.keys()].find((k) => k.slice(0, 80) === key.slice(0, 80))
      if (byPrefix !== undefined) seen.set(byPrefix, seen.get(byPrefix)! + 1)
      else if (seen.size < keep) seen.set(key, 1)
    })
  ])
