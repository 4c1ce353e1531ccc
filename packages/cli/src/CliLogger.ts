/**
 * How Effect log lines look on the CLI's stderr: `mcp-fleet: warning: [server] message (pid=4242)` — the
 * `mcp-fleet:` prefix of every diagnostic, the level, the server the line is about (the `mcpServer` annotation
 * the manager and transport set), the message, and any other annotations. No timestamps, no fiber ids.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"

const LEVELS: Readonly<Record<string, string>> = {
  Fatal: "fatal",
  Error: "error",
  Warn: "warning",
  Info: "info",
  Debug: "debug",
  Trace: "trace"
}

const text = (value: unknown): string =>
  typeof value === "string" ? value : value instanceof Error ? value.message : JSON.stringify(value) ?? String(value)

/**
 * One log line.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatLine = (options: {
  readonly logLevel: LogLevel.LogLevel
  readonly message: unknown
  readonly annotations: Readonly<Record<string, unknown>>
  readonly cause: Cause.Cause<unknown>
}): string => {
  const { mcpServer, ...rest } = options.annotations
  const parts = Array.isArray(options.message) ? options.message : [options.message]
  const message = parts.map(text).join(" ")
  const server = mcpServer === undefined ? "" : `[${text(mcpServer)}] `
  const extra = Object.entries(rest).map(([key, value]) => `${key}=${text(value)}`)
  const failure = options.cause.reasons.length === 0 ? [] : [Cause.pretty(options.cause).split("\n", 1)[0]!]
  const tail = [...extra, ...failure]
  return `mcp-fleet: ${LEVELS[options.logLevel] ?? options.logLevel.toLowerCase()}: ${server}${message}${
    tail.length > 0 ? ` (${tail.join(", ")})` : ""
  }`
}

/**
 * The CLI's logger: {@link formatLine} written with `Console.error`.
 *
 * @since 0.1.0
 * @category loggers
 */
export const logger: Logger.Logger<unknown, void> = Logger.withConsoleError(
  Logger.make((options) =>
    formatLine({
      logLevel: options.logLevel,
      message: options.message,
      cause: options.cause,
      annotations: options.fiber.getRef(References.CurrentLogAnnotations)
    })
  )
)
