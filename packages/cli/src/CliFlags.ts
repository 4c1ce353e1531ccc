/**
 * The flags that several commands share, defined once so their names, defaults and help text agree.
 *
 * @since 0.1.0
 */
import { McpClientOptions } from "@mcp-fleet/transport"
import * as Flag from "effect/cli/Flag"
import * as Duration from "effect/Duration"
import type * as LogLevel from "effect/LogLevel"
import type * as Option from "effect/Option"
import * as DurationText from "./DurationText.ts"

/**
 * Where the config file is read from when `--config` is not given: `.mcp.json` in the current directory,
 * as Claude Code does.
 *
 * @since 0.1.0
 * @category defaults
 */
export const DEFAULT_CONFIG_PATH = ".mcp.json"

/**
 * How long `status` and `tools` wait for the servers to settle, and `call` for its server to be ready, when
 * `--wait` is not given.
 *
 * @since 0.1.0
 * @category defaults
 */
export const DEFAULT_WAIT: Duration.Duration = Duration.seconds(30)

const durationFlag = (name: string) =>
  Flag.String(name).pipe(
    Flag.withMetavar("DURATION"),
    Flag.filterMap(
      DurationText.parse,
      () => "a duration such as 500ms, 30s, 2m or 10 (seconds)"
    )
  )

/**
 * `--config F` / `-c F`: the `mcpServers` JSON file.
 *
 * @since 0.1.0
 * @category flags
 */
export const config: Flag.Flag<string> = Flag.String("config").pipe(
  Flag.withAlias("c"),
  Flag.withMetavar("FILE"),
  Flag.withDescription(
    `The mcpServers file (Claude Desktop, Cursor, Claude Code or VS Code format; JSON, or JSONC with comments and trailing commas). Paths inside it are relative to its folder. Default: ${DEFAULT_CONFIG_PATH} in the current directory.`
  ),
  Flag.withDefault(DEFAULT_CONFIG_PATH)
)

/**
 * `--wait D`: how long to wait for servers to start.
 *
 * @since 0.1.0
 * @category flags
 */
export const wait = (description: string): Flag.Flag<Duration.Duration> =>
  durationFlag("wait").pipe(
    Flag.withDescription(`${description} Default: ${DurationText.format(DEFAULT_WAIT)}.`),
    Flag.withDefault(DEFAULT_WAIT)
  )

/**
 * `--timeout D`: a call's own deadline (the server's request timeout still applies). The help text shows the
 * transport's `DEFAULT_REQUEST_TIMEOUT_MS`, the one place that default is written.
 *
 * @since 0.1.0
 * @category flags
 */
export const timeout: Flag.Flag<Option.Option<Duration.Duration>> = durationFlag("timeout").pipe(
  Flag.withDescription(
    `Deadline of the call itself; the shorter of this and the server's request timeout (default ${
      DurationText.format(Duration.millis(McpClientOptions.DEFAULT_REQUEST_TIMEOUT_MS))
    }) applies.`
  ),
  Flag.optional
)

/**
 * `--json`: machine-readable output on stdout.
 *
 * @since 0.1.0
 * @category flags
 */
export const json: Flag.Flag<boolean> = Flag.Boolean("json").pipe(
  Flag.withDescription("Print JSON on stdout instead of text."),
  Flag.withDefault(false)
)

/**
 * `--verbose`: every server's stderr, live, each line prefixed `[server]`, on stderr.
 *
 * @since 0.1.0
 * @category flags
 */
export const verbose: Flag.Flag<boolean> = Flag.Boolean("verbose").pipe(
  Flag.withDescription("Show every server's stderr as it is written, each line prefixed [server], on stderr."),
  Flag.withDefault(false)
)

/**
 * `--server S` / `-s S`: only this server.
 *
 * @since 0.3.0
 * @category flags
 */
export const server: Flag.Flag<Option.Option<string>> = Flag.String("server").pipe(
  Flag.withAlias("s"),
  Flag.withMetavar("NAME"),
  Flag.withDescription("Only this server (only it is started); fails if it does not become ready."),
  Flag.optional
)

const LOG_LEVELS: Readonly<Record<string, LogLevel.LogLevel>> = {
  all: "All",
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  warning: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
}

/**
 * The level of the global `--log-level` flag in a command line (`--log-level debug` or `--log-level=debug`), read
 * before the command line is parsed: the level must also hold where a defect of the command is reported, outside
 * the command's handler (where `effect/cli` applies it). `undefined` when absent or not a level.
 *
 * @since 0.4.0
 * @category global flags
 */
export const logLevelIn = (args: ReadonlyArray<string>): LogLevel.LogLevel | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") return undefined
    const value = arg === "--log-level" ? args[i + 1] : arg.startsWith("--log-level=") ? arg.slice(12) : undefined
    if (value !== undefined) return LOG_LEVELS[value]
  }
  return undefined
}
