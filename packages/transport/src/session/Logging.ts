/**
 * The server's log (`notifications/message`): each entry becomes an Effect log entry at the matching level,
 * annotated with the server's name, the entry's `logger` and its RFC 5424 level, and is also offered as a typed
 * stream.
 *
 * A server that floods must not flood the host: entries pass a token bucket (`burst` at once, `perSecond` refilled,
 * measured on the `Clock`, so the `TestClock` drives it in tests). What the bucket refuses is dropped from both the
 * log and the stream, and counted (`stats().logMessagesDropped`).
 *
 * @since 0.3.0
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as LogLevel from "effect/LogLevel"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { LoggingLevel } from "../ProtocolFeatures.ts"
import { LoggingMessage } from "../ProtocolFeatures.ts"
import * as Publisher from "./Publisher.ts"

/**
 * How many server log entries pass: `burst` at once, then `perSecond`.
 *
 * @since 0.3.0
 * @category options
 */
export interface RateLimit {
  readonly perSecond: number
  readonly burst: number
}

/**
 * The default: 100 entries at once, then 50 a second.
 *
 * @since 0.3.0
 * @category options
 */
export const DEFAULT_RATE_LIMIT: RateLimit = { perSecond: 50, burst: 100 }

/**
 * The Effect level of an RFC 5424 severity: `notice` is `Info`; `critical`, `alert` and `emergency` are `Fatal`.
 *
 * @since 0.3.0
 * @category conversions
 */
export const toLogLevel = (level: LoggingLevel): LogLevel.Severity => {
  switch (level) {
    case "debug":
      return "Debug"
    case "info":
    case "notice":
      return "Info"
    case "warning":
      return "Warn"
    case "error":
      return "Error"
    case "critical":
    case "alert":
    case "emergency":
      return "Fatal"
  }
}

/** Counters of the server's log. */
export interface Counters {
  logMessages: number
  /** Entries the rate limit refused, or that were not a log entry at all. */
  logMessagesDropped: number
}

const decode = Schema.decodeUnknownExit(LoggingMessage)

/** The log of one session: `route` on the reading fiber, `run` on a fiber of the session. */
export const make = Effect.fnUntraced(function*(options: {
  readonly server: string
  readonly clock: Clock.Clock
  readonly rate: RateLimit
  readonly scrub: (text: string) => string
  /** Removes secrets from an entry's `data` before it is streamed. */
  readonly scrubValue: (value: unknown) => unknown
  /** The session's excerpt of server text: secrets replaced first, then cut (`Redactor.excerpt`). */
  readonly excerpt: (text: string) => string
}) {
  const { clock, excerpt, rate, scrub, server } = options
  /** The text of an entry's `data`: a string as it is, anything else as an excerpt of its JSON. */
  const textOf = (data: unknown): string =>
    typeof data === "string" ? scrub(data) : excerpt(JSON.stringify(data) ?? "null")
  const counters: Counters = { logMessages: 0, logMessagesDropped: 0 }
  const pending = yield* Queue.sliding<LoggingMessage>(Math.max(1, rate.burst))
  const hub = yield* PubSub.sliding<LoggingMessage>(Math.max(1, rate.burst))
  // A subscriber whose buffer is full makes `publishUnsafe` refuse: the publisher slides instead.
  const publisher = Publisher.make(hub, Math.max(1, rate.burst))
  let tokens = rate.burst
  let refilledAt = clock.currentTimeMillisUnsafe()

  const admit = (): boolean => {
    const now = clock.currentTimeMillisUnsafe()
    tokens = Math.min(rate.burst, tokens + ((now - refilledAt) * rate.perSecond) / 1000)
    refilledAt = now
    if (tokens < 1) return false
    tokens -= 1
    return true
  }

  const route = (params: unknown): void => {
    const decoded = decode(params)
    if (Exit.isFailure(decoded) || !admit()) {
      counters.logMessagesDropped++
      return
    }
    counters.logMessages++
    const entry: LoggingMessage = { ...decoded.value, data: options.scrubValue(decoded.value.data) }
    Queue.offerUnsafe(pending, entry)
    publisher.publish(entry)
  }

  const logOne = (entry: LoggingMessage) =>
    Effect.logWithLevel(toLogLevel(entry.level))(textOf(entry.data)).pipe(
      Effect.annotateLogs({ mcpServer: server, logger: entry.logger ?? "", mcpLogLevel: entry.level })
    )

  return {
    counters,
    route,
    /** Logs and publishes what `route` admitted, forever. */
    run: Effect.andThen(
      Effect.forkChild(publisher.run),
      Queue.take(pending).pipe(Effect.flatMap(logOne), Effect.forever)
    ),
    /** Every admitted entry from the moment the stream runs. */
    messages: Stream.fromPubSub(hub)
  }
})
