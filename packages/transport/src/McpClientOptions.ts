/**
 * The options of `McpClient.make`, over stdio (`{ command }`) or HTTP (`{ url }`), and the one place where their
 * defaults are written: `resolve` and `resolveRemote` apply every default, for every wire.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import type { ClientHandlers } from "./ClientHandlers.ts"
import { InvalidUrl } from "./HttpError.ts"
import * as Durations from "./internal/Durations.ts"
import type { ProtocolChoice } from "./Protocol.ts"
import * as TaskWatch from "./session/TaskWatch.ts"
import * as Url from "./wire/http/Url.ts"

/**
 * What every client takes, whatever its wire.
 *
 * @since 0.4.0
 * @category options
 */
export interface SharedOptions {
  /** A label for logs and errors. Default: the command's base name (stdio), the URL's host (remote). */
  readonly name?: string | undefined
  /** Deadline of each request (remote: `initialize` included). Absent, zero or negative → 30 seconds. */
  readonly requestTimeout?: Duration.Input | undefined
  /** `clientInfo` sent in `initialize`. Default `{ name: "mcp-fleet", version: "0.1.0" }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string; readonly title?: string } | undefined
  /** Client capabilities declared in `initialize`. Default `{}` (none). */
  readonly capabilities?: Readonly<Record<string, unknown>> | undefined
  /**
   * The extensions the client supports (2025-11-25's `capabilities.extensions`), by identifier
   * (`vendor-prefix/extension-name`) with each one's settings (`{}` for none): declared in `initialize` (and in
   * `_meta` of modern requests) beside any `extensions` of `capabilities`; a setting given here wins. Default none.
   */
  readonly extensions?: Extensions | undefined
  /**
   * What answers the server's `roots/list`, `elicitation/create` and `sampling/createMessage`; each one present is
   * declared in `capabilities`. A missing one is taken from the `Roots`, `Elicitation` or `Sampling` service when
   * the program provides it. Default: none.
   */
  readonly handlers?: ClientHandlers | undefined
  /**
   * Longest inbound message accepted, in bytes: a stdout line (longer ones are dropped unbuffered), a JSON body, a
   * single event of a stream. Default 4 MiB.
   */
  readonly maxMessageBytes?: number | undefined
  /** Most requests waiting for an answer at once; more fail with `TooManyInFlight`. Default 1024. */
  readonly maxInFlight?: number | undefined
  /** Most pages a list may span before failing with `PageCapExceeded`. Default 20. */
  readonly maxPages?: number | undefined
  /** Server notifications buffered for slow consumers (oldest dropped first). Default 256. */
  readonly notificationBuffer?: number | undefined
  /**
   * How many of the latest notifications a new subscriber receives first, so that one who subscribes right
   * after `make` misses nothing the server sent at start (such as an early `list_changed`). Default 32.
   */
  readonly notificationReplay?: number | undefined
  /**
   * The protocol era: `auto` sends `server/discover` first and falls back to `initialize` (a server that answers
   * `-32601` at once costs one round trip); `legacy`, `modern` or a version pin it. Stdio: kept for the process (a
   * restart probes again); remote: cached per endpoint for the program's life. Default `auto` (remote over `sse`:
   * `legacy`).
   */
  readonly protocol?: ProtocolChoice | undefined
  /** Deadline of the `server/discover` probe under `auto` (a server that ignores it costs this). Default 5 seconds. */
  readonly probeTimeout?: Duration.Input | undefined
  /**
   * How a task is polled (`Tasks`): the server's `pollInterval` is honoured (1 s when it suggests none), never less
   * than `floor` (default 100 ms: a server asking for 0 is not polled in a busy loop) and never more than `cap`'s
   * delay at that poll (a `Schedule`, stepped once per poll; default every 30 s; once it ends, its last delay
   * stands).
   */
  readonly taskPolling?: TaskPolling | undefined
  /**
   * Check every tool result's `structuredContent` against the tool's `outputSchema` (from the latest tool list):
   * a mismatch, or a missing `structuredContent`, fails the call with `StructuredContentInvalid` (with the JSON
   * Pointer of the mismatch). Default `true`, as the official SDK does; `false` returns results unchecked.
   */
  readonly validateStructuredContent?: boolean | undefined
}

/**
 * How tasks are polled: the floor and the cap of the wait between two polls.
 *
 * @since 0.5.0
 * @category options
 */
export interface TaskPolling {
  readonly floor?: Duration.Input | undefined
  readonly cap?: Schedule.Schedule<unknown, unknown> | undefined
}

/**
 * Extensions a client declares, by identifier, with their settings.
 *
 * @since 0.5.0
 * @category options
 */
export type Extensions = Readonly<Record<string, Readonly<Record<string, unknown>>>>

/**
 * The capabilities to declare: `capabilities` as given, with `extensions` added to its own `extensions` (a setting
 * given in `extensions` wins; none given: `capabilities` unchanged).
 *
 * @since 0.5.0
 * @category defaults
 */
export const declared = (
  capabilities: Readonly<Record<string, unknown>> | undefined,
  extensions: Extensions | undefined
): Readonly<Record<string, unknown>> => {
  const given = capabilities ?? {}
  if (extensions === undefined || Object.keys(extensions).length === 0) return given
  const existing = given["extensions"]
  const before = typeof existing === "object" && existing !== null && !Array.isArray(existing) ? existing : {}
  return { ...given, extensions: { ...before, ...extensions } }
}

/**
 * What `McpClient.make` needs to start and talk to one MCP server over stdio.
 *
 * @since 0.1.0
 * @category options
 */
export interface McpClientOptions extends SharedOptions {
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
  /** How many of the last stderr lines are kept for errors and diagnostics. Default 20. */
  readonly stderrLines?: number | undefined
  /** Called with each complete stderr line as it arrives, in order (only when `stderrLines` > 0). */
  readonly onStderrLine?: ((line: string) => Effect.Effect<void>) | undefined
  /** After stdin is closed, how long the server may take to exit before SIGTERM. Default 2 seconds. */
  readonly shutdownGrace?: Duration.Input | undefined
  /** After SIGTERM, how long before SIGKILL. Default 2 seconds. */
  readonly killGrace?: Duration.Input | undefined
}

/**
 * The options with every default applied.
 *
 * @since 0.1.0
 * @category options
 */
export interface ResolvedOptions {
  /** The label (`name`), as the session calls it. */
  readonly server: string
  /** Deadline of `initialize`: none (`Infinity`); a slow start is not death, the caller bounds readiness. */
  readonly initializeTimeoutMs: number
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
  readonly validateStructuredContent: boolean
  /** The values of `Redacted` env entries: removed from whatever server text goes into errors and logs. */
  readonly secrets: ReadonlyArray<string>
  readonly taskPolling: TaskWatch.Polling
}

/**
 * What `McpClient.make` needs to talk to one remote MCP server (Streamable HTTP, legacy HTTP+SSE, or
 * auto-detection between them).
 *
 * @since 0.2.0
 * @category options
 */
export interface RemoteOptions extends SharedOptions {
  /** The server's MCP endpoint (`http:` or `https:`). */
  readonly url: string
  /** Headers sent on every request (`Authorization: Bearer …`); `Redacted` values never appear in any output. */
  readonly headers?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
  /** `http` (Streamable HTTP), `sse` (legacy HTTP+SSE) or `auto` (try the first, fall back). Default `auto`. */
  readonly transport?: "http" | "sse" | "auto" | undefined
  /** Bound of the `DELETE` that ends the session at close. Default 2 seconds. */
  readonly closeTimeout?: Duration.Input | undefined
  /** The log level sent in `_meta` of modern requests. */
  readonly logLevel?: string | undefined
  /**
   * The delays between renewals of sessions the server lost before a request succeeded on them (Streamable HTTP);
   * when the schedule ends, the client fails with `SessionsForgotten`. Default: 250 ms, 500 ms, 1 s.
   */
  readonly sessionRenewal?: Schedule.Schedule<unknown, unknown> | undefined
}

/**
 * The remote options with every default applied, the URL parsed and its credentials taken out.
 *
 * @since 0.4.0
 * @category options
 */
export interface ResolvedRemote {
  /** The label (`name`), as the session calls it. */
  readonly server: string
  /** The endpoint, without user and password (those became `Authorization: Basic`, unless a header said). */
  readonly endpoint: URL
  /** The URL as it may be shown: credentials redacted. */
  readonly url: string
  /** The key of the endpoint's era in the era cache. */
  readonly eraKey: string
  /** Deadline of `initialize`: the request timeout. */
  readonly initializeTimeoutMs: number
  readonly headers: Readonly<Record<string, string | Redacted.Redacted<string>>>
  readonly mode: "http" | "sse" | "auto"
  readonly requestTimeoutMs: number
  readonly clientInfo: { readonly name: string; readonly version: string; readonly title?: string }
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly maxMessageBytes: number
  readonly maxInFlight: number
  readonly maxPages: number
  readonly notificationBuffer: number
  readonly notificationReplay: number
  readonly closeTimeoutMs: number
  readonly protocol: ProtocolChoice
  readonly probeTimeoutMs: number
  readonly validateStructuredContent: boolean
  readonly logLevel: string | undefined
  readonly sessionRenewal: Schedule.Schedule<unknown, unknown> | undefined
  /** The values of `Redacted` headers (and a bearer's token alone) and the URL's password. */
  readonly secrets: ReadonlyArray<string>
  readonly taskPolling: TaskWatch.Polling
}

/**
 * The request deadline used when none (or a non-positive one) is given.
 *
 * @since 0.1.0
 * @category defaults
 */
export const DEFAULT_REQUEST_TIMEOUT_MS: number = Durations.DEFAULT_REQUEST_TIMEOUT_MS

/**
 * A duration in milliseconds: absent, zero, negative or infinite → `fallback`. The one reading of a `Duration.Input`
 * option in this package.
 *
 * @since 0.4.0
 * @category defaults
 */
export const millis: (input: Duration.Input | undefined, fallback: number) => number = Durations.millis

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

const atLeastZero = (n: number | undefined, fallback: number): number =>
  n !== undefined && n >= 0 ? Math.floor(n) : fallback

const CLIENT_INFO = { name: "mcp-fleet", version: "0.1.0" }
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024
const PROBE_TIMEOUT_MS = 5_000

/** The task polling with its defaults (`TaskWatch`). */
const taskPolling = (given: TaskPolling | undefined): TaskWatch.Polling => ({
  floorMs: given?.floor === undefined ? TaskWatch.DEFAULT_FLOOR_MS : Durations.millis(given.floor, 0),
  cap: given?.cap ?? TaskWatch.DEFAULT_CAP
})

const baseName = (command: string): string => {
  const parts = command.split(/[\\/]/)
  return parts[parts.length - 1] || command
}

/**
 * Applies every default of a stdio client. Called by `McpClient.make` only.
 *
 * @since 0.1.0
 * @category defaults
 */
export const resolve = (options: McpClientOptions): ResolvedOptions => {
  const env = options.env ?? {}
  const name = options.name ?? baseName(options.command)
  return {
    server: name,
    initializeTimeoutMs: Infinity,
    command: options.command,
    args: options.args ?? [],
    cwd: options.cwd,
    env,
    inheritEnv: options.inheritEnv ?? false,
    name,
    requestTimeoutMs: requestTimeoutMillis(options.requestTimeout),
    clientInfo: options.clientInfo ?? CLIENT_INFO,
    capabilities: declared(options.capabilities, options.extensions),
    maxMessageBytes: positive(options.maxMessageBytes, MAX_MESSAGE_BYTES),
    maxInFlight: positive(options.maxInFlight, 1024),
    maxPages: positive(options.maxPages, 20),
    stderrLines: atLeastZero(options.stderrLines, 20),
    onStderrLine: options.onStderrLine,
    notificationBuffer: positive(options.notificationBuffer, 256),
    notificationReplay: atLeastZero(options.notificationReplay, 32),
    shutdownGraceMs: millis(options.shutdownGrace, 2_000),
    killGraceMs: millis(options.killGrace, 2_000),
    protocol: options.protocol ?? "auto",
    probeTimeoutMs: millis(options.probeTimeout, PROBE_TIMEOUT_MS),
    validateStructuredContent: options.validateStructuredContent ?? true,
    // Every `Redacted` env value is replaced with `<redacted>` in whatever the client derives from server output.
    secrets: Object.values(env).flatMap((v) => (Redacted.isRedacted(v) ? [Redacted.value(v)] : [])),
    taskPolling: taskPolling(options.taskPolling)
  }
}

/** The URL, parsed, or why it cannot be used. */
const parseUrl = (server: string, raw: string): Effect.Effect<URL, InvalidUrl> => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Effect.fail(new InvalidUrl({ server, url: Url.redact(raw), reason: "it is not an absolute URL" }))
  }
  return url.protocol === "http:" || url.protocol === "https:"
    ? Effect.succeed(url)
    : Effect.fail(new InvalidUrl({ server, url: Url.redact(url), reason: `${url.protocol} is not http: or https:` }))
}

const hostOf = (raw: string): string => {
  try {
    return new URL(raw).host || raw
  } catch {
    return "remote"
  }
}

/**
 * Applies every default of a remote client: parses the URL (`InvalidUrl` unless absolute `http:`/`https:`), turns
 * credentials in it into `Authorization: Basic` (as curl and browsers do) unless a header already says, and
 * collects the secrets to scrub. Called by `McpClient.make` only.
 *
 * @since 0.4.0
 * @category defaults
 */
export const resolveRemote = (options: RemoteOptions): Effect.Effect<ResolvedRemote, InvalidUrl> => {
  const name = options.name ?? hostOf(options.url)
  return Effect.map(parseUrl(name, options.url), (given) => {
    const url = new URL(given)
    url.username = ""
    url.password = ""
    const basic = given.username !== "" || given.password !== ""
      ? `Basic ${btoa(`${decodeURIComponent(given.username)}:${decodeURIComponent(given.password)}`)}`
      : undefined
    const named = Object.keys(options.headers ?? {}).some((header) => header.toLowerCase() === "authorization")
    const headers: Readonly<Record<string, string | Redacted.Redacted<string>>> = basic !== undefined && !named
      ? { ...options.headers, authorization: Redacted.make(basic) }
      : options.headers ?? {}
    const secrets: Array<string> = []
    for (const value of Object.values(headers)) {
      if (!Redacted.isRedacted(value)) continue
      const text = Redacted.value(value)
      secrets.push(text)
      const bearer = /^\s*\S+\s+(\S+)\s*$/.exec(text)
      if (bearer !== null) secrets.push(bearer[1]!)
    }
    if (given.password !== "") secrets.push(decodeURIComponent(given.password))
    const mode = options.transport ?? "auto"
    const requestTimeoutMs = requestTimeoutMillis(options.requestTimeout)
    return {
      server: name,
      endpoint: url,
      url: Url.redact(given),
      eraKey: url.href,
      headers,
      mode,
      requestTimeoutMs,
      initializeTimeoutMs: requestTimeoutMs,
      clientInfo: options.clientInfo ?? CLIENT_INFO,
      capabilities: declared(options.capabilities, options.extensions),
      maxMessageBytes: positive(options.maxMessageBytes, MAX_MESSAGE_BYTES),
      maxInFlight: positive(options.maxInFlight, 1024),
      maxPages: positive(options.maxPages, 20),
      notificationBuffer: positive(options.notificationBuffer, 256),
      notificationReplay: atLeastZero(options.notificationReplay, 32),
      closeTimeoutMs: millis(options.closeTimeout, 2_000),
      // Legacy HTTP+SSE (2024-11-05) has no modern era to probe for.
      protocol: options.protocol ?? (mode === "sse" ? "legacy" : "auto"),
      probeTimeoutMs: millis(options.probeTimeout, PROBE_TIMEOUT_MS),
      validateStructuredContent: options.validateStructuredContent ?? true,
      logLevel: options.logLevel,
      sessionRenewal: options.sessionRenewal,
      secrets,
      taskPolling: taskPolling(options.taskPolling)
    }
  })
}

/**
 * A URL as it may be shown: user, password and secret-looking query values (`token`, `key`, `auth`…) replaced by
 * `***`. Accepts a `Redacted` URL (config files keep them so).
 *
 * @since 0.4.0
 * @category formatting
 */
export const redactUrl = (url: string | Redacted.Redacted<string>): string =>
  Url.redact(Redacted.isRedacted(url) ? Redacted.value(url) : url)
