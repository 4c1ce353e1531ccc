/**
 * The options of `McpClient.make`, and the one place where their defaults are written.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type { ClientHandlers } from "./ClientHandlers.ts"
import type { ProtocolChoice } from "./Protocol.ts"

/**
 * What `McpClient.make` needs to start and talk to one MCP server over stdio.
 *
 * @since 0.1.0
 * @category options
 */
export interface McpClientOptions {
  /** The executable to run (no shell: arguments are never interpreted). */
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  /**
   * Variables for the child, on top of the application's base environment (the `BaseEnvironment` reference: empty
   * unless provided, e.g. by `BaseEnvironment.layer(process.env)`). Values may be `Redacted`: each `Redacted` value
   * is replaced with `<redacted>` in everything the client derives from the server's output.
   */
  readonly env?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
  /** Opt in to passing the parent's whole environment to the child. Default `false`. */
  readonly inheritEnv?: boolean | undefined
  /** A label for logs and errors. Default: the command's base name. */
  readonly name?: string | undefined
  /** Deadline of each request. Absent, zero or negative → 30 seconds. */
  readonly requestTimeout?: Duration.Input | undefined
  /** `clientInfo` sent in `initialize`. Default `{ name: "mcp-fleet", version: "0.1.0" }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string; readonly title?: string } | undefined
  /** Client capabilities declared in `initialize`. Default `{}` (none). */
  readonly capabilities?: Readonly<Record<string, unknown>> | undefined
  /**
   * What answers the server's `roots/list`, `elicitation/create` and `sampling/createMessage`; each one present is
   * declared in `capabilities`. A missing one is taken from the `Roots`, `Elicitation` or `Sampling` service when
   * the program provides it. Default: none.
   */
  readonly handlers?: ClientHandlers | undefined
  /** Longest inbound line accepted, in bytes; longer ones are dropped unbuffered. Default 4 MiB. */
  readonly maxMessageBytes?: number | undefined
  /** Most requests waiting for an answer at once; more fail with `TooManyInFlight`. Default 1024. */
  readonly maxInFlight?: number | undefined
  /** Most pages a list may span before failing with `PageCapExceeded`. Default 20. */
  readonly maxPages?: number | undefined
  /** How many of the last stderr lines are kept for errors and diagnostics. Default 20. */
  readonly stderrLines?: number | undefined
  /** Called with each complete stderr line as it arrives, in order (only when `stderrLines` > 0). */
  readonly onStderrLine?: ((line: string) => Effect.Effect<void>) | undefined
  /** Server notifications buffered for slow consumers (oldest dropped first). Default 256. */
  readonly notificationBuffer?: number | undefined
  /**
   * How many of the latest notifications a new subscriber receives first, so that one who subscribes right
   * after `make` misses nothing the server sent at start (such as an early `list_changed`). Default 32.
   */
  readonly notificationReplay?: number | undefined
  /** After stdin is closed, how long the server may take to exit before SIGTERM. Default 2 seconds. */
  readonly shutdownGrace?: Duration.Input | undefined
  /** After SIGTERM, how long before SIGKILL. Default 2 seconds. */
  readonly killGrace?: Duration.Input | undefined
  /**
   * The protocol era: `auto` sends `server/discover` first and falls back to `initialize` (a server that answers
   * `-32601` at once costs one round trip); `legacy`, `modern` or a version pin it. Kept for the process (a restart
   * probes again). Default `auto`.
   */
  readonly protocol?: ProtocolChoice | undefined
  /** Deadline of the `server/discover` probe under `auto` (a server that ignores it costs this). Default 5 seconds. */
  readonly probeTimeout?: Duration.Input | undefined
}

/**
 * The options with every default applied.
 *
 * @since 0.1.0
 * @category options
 */
export interface ResolvedOptions {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string | undefined
  readonly env: Readonly<Record<string, string | Redacted.Redacted<string>>>
  readonly inheritEnv: boolean
  readonly name: string
  readonly requestTimeoutMs: number
  readonly clientInfo: { readonly name: string; readonly version: string; readonly title?: string }
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly maxMessageBytes: number
  readonly maxInFlight: number
  readonly maxPages: number
  readonly stderrLines: number
  readonly onStderrLine: ((line: string) => Effect.Effect<void>) | undefined
  readonly notificationBuffer: number
  readonly notificationReplay: number
  readonly shutdownGraceMs: number
  readonly killGraceMs: number
  readonly protocol: ProtocolChoice
  readonly probeTimeoutMs: number
}

/**
 * The request deadline used when none (or a non-positive one) is given. Written here and nowhere else.
 *
 * @since 0.1.0
 * @category defaults
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000

const millis = (input: Duration.Input | undefined, fallback: number): number => {
  if (input === undefined) return fallback
  const ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  return Number.isFinite(ms) && ms > 0 ? ms : fallback
}

/**
 * A request deadline in milliseconds: absent, zero or negative → `DEFAULT_REQUEST_TIMEOUT_MS`.
 *
 * @since 0.1.0
 * @category defaults
 */
export const requestTimeoutMillis = (input: Duration.Input | undefined): number =>
  millis(input, DEFAULT_REQUEST_TIMEOUT_MS)

const positive = (n: number | undefined, fallback: number): number =>
  n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback

const baseName = (command: string): string => {
  const parts = command.split(/[\\/]/)
  return parts[parts.length - 1] || command
}

/**
 * Applies every default. Called by `McpClient.make` only.
 *
 * @since 0.1.0
 * @category defaults
 */
export const resolve = (options: McpClientOptions): ResolvedOptions => ({
  command: options.command,
  args: options.args ?? [],
  cwd: options.cwd,
  env: options.env ?? {},
  inheritEnv: options.inheritEnv ?? false,
  name: options.name ?? baseName(options.command),
  requestTimeoutMs: requestTimeoutMillis(options.requestTimeout),
  clientInfo: options.clientInfo ?? { name: "mcp-fleet", version: "0.1.0" },
  capabilities: options.capabilities ?? {},
  maxMessageBytes: positive(options.maxMessageBytes, 4 * 1024 * 1024),
  maxInFlight: positive(options.maxInFlight, 1024),
  maxPages: positive(options.maxPages, 20),
  stderrLines: options.stderrLines !== undefined && options.stderrLines >= 0 ? Math.floor(options.stderrLines) : 20,
  onStderrLine: options.onStderrLine,
  notificationBuffer: positive(options.notificationBuffer, 256),
  notificationReplay: options.notificationReplay !== undefined && options.notificationReplay >= 0
    ? Math.floor(options.notificationReplay)
    : 32,
  shutdownGraceMs: millis(options.shutdownGrace, 2_000),
  killGraceMs: millis(options.killGrace, 2_000),
  protocol: options.protocol ?? "auto",
  probeTimeoutMs: millis(options.probeTimeout, 5_000)
})
