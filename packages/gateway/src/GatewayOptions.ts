/**
 * The options of `McpGateway.layer`, each with its default written on it, and the one place the defaults are
 * applied (`resolve`).
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import type * as Redacted from "effect/Redacted"
import type * as NameTable from "./NameTable.ts"
import type * as Profiles from "./Profiles.ts"
import type * as ResultStore from "./ResultStore.ts"

/**
 * @since 0.1.0
 * @category options
 */
export interface GatewayOptions {
  /** The `serverInfo` hosts see. Default `{ name: "mcp-fleet", version: "0.1.0" }`. */
  readonly serverInfo?: { readonly name: string; readonly version: string } | undefined
  /** `instructions` sent to hosts (2025 era: `initialize`; 2026-07-28: `server/discover`). Default: none. */
  readonly instructions?: string | undefined
  /**
   * How tool and prompt names are namespaced (`NameTable`): `always` (the default) `server__tool`, `conditional` the
   * bare name unless several servers offer it, `never` the bare name (a shared one goes to the first server).
   */
  readonly prefix?: NameTable.Policy | undefined
  /** The key hosts are configured with for the gateway (their tool-name prefix, `HostLimits`). Default `mcp-fleet`. */
  readonly hostKey?: string | undefined
  /** A name-length limit per `clientInfo.name`, winning over `HostLimits`' rules. Default none. */
  readonly nameLengths?: Readonly<Record<string, number>> | undefined
  /**
   * How long a server that stopped being ready keeps its tools, prompts and resources listed; calls to them answer at
   * once with the manager's explanation. Default 60 seconds.
   */
  readonly gracePeriod?: Duration.Input | undefined
  /**
   * How long after the gateway starts its lists wait for every server to settle (ready, offline, …) before they
   * are answered with what is ready: hosts that list once and ignore `list_changed` (one-shot CLIs, several
   * editors) see the whole fleet. Default 5 seconds; 0 answers at once. Later lists never wait.
   */
  readonly startupListWait?: Duration.Input | undefined
  /** Changes within this window reach hosts as one `list_changed` per list. Default 100 milliseconds. */
  readonly listChangedDelay?: Duration.Input | undefined
  /** Most 2025-era HTTP sessions open at once; a new one past it is refused (503). Default 256. */
  readonly maxSessions?: number | undefined
  /** A 2025-era HTTP session unused this long is closed. Default 30 minutes. */
  readonly sessionIdleTimeout?: Duration.Input | undefined
  /** Most requests of one host served at once; more are answered -32003. Default 64. */
  readonly maxInFlightPerHost?: number | undefined
  /** Largest message accepted from a host, in bytes (an HTTP body, a stdio line). Default 4 MiB. */
  readonly maxMessageBytes?: number | undefined
  /**
   * How long a 2026-07-28 host has to come back with the input an upstream asked for (the call waits meanwhile).
   * Default 10 minutes.
   */
  readonly inputRoundTimeout?: Duration.Input | undefined
  /** Bearer tokens any of which a request may carry (`Authorization: Bearer …`); none: no token is asked for. */
  readonly tokens?: ReadonlyArray<Redacted.Redacted<string>> | undefined
  /**
   * Origins accepted besides the loopback ones (`http://localhost[:port]`, `http://127.0.0.1[:port]`,
   * `http://[::1][:port]`); a request with any other `Origin` is refused (403). Default none.
   */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /** Host names accepted in `Host` besides `localhost`, `127.0.0.1` and `[::1]`. Default none. */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /** How long shutdown waits for calls in flight before the fleet is closed. Default 10 seconds. */
  readonly drainTimeout?: Duration.Input | undefined
  /**
   * Filters and named profiles (`Profiles`: servers, allow/deny globs, read-only, pinned tools, search mode); a host
   * picks a profile by path (`/mcp/<profile>`) or `--profile`. Default: every tool of every server, search mode past
   * 40 tools.
   */
  readonly profiles?: Profiles.ProfilesConfig | undefined
  /** Large tool results (`ResultStore`): what is spilled to `fleet://results/…`, and for how long. */
  readonly results?: ResultStore.Options | undefined
  /**
   * Record `GatewayMetrics` (request durations, sessions, gauges, refusals) in the app's metric registry, and serve
   * the registry as Prometheus text at `/metrics` over HTTP. Default `false`: nothing is recorded.
   */
  readonly metrics?: boolean | undefined
  /**
   * The read-only status page at `/` of the HTTP front, behind the same Host/Origin checks and tokens as `/mcp`
   * (the README's "The status page"). Default `true`.
   */
  readonly statusPage?: boolean | undefined
}

/**
 * The options with every default applied.
 *
 * @since 0.1.0
 * @category options
 */
export interface Resolved {
  readonly serverInfo: { readonly name: string; readonly version: string }
  readonly instructions: string | undefined
  readonly prefix: NameTable.Policy
  readonly hostKey: string
  readonly nameLengths: Readonly<Record<string, number>>
  readonly graceMs: number
  readonly startupListWaitMs: number
  readonly listChangedDelayMs: number
  readonly maxSessions: number
  readonly sessionIdleMs: number
  readonly maxInFlightPerHost: number
  readonly maxMessageBytes: number
  readonly inputRoundMs: number
  readonly tokens: ReadonlyArray<Redacted.Redacted<string>>
  readonly allowedOrigins: ReadonlyArray<string>
  readonly allowedHosts: ReadonlyArray<string>
  readonly drainMs: number
  readonly profiles: Profiles.ProfilesConfig
  readonly results: ResultStore.Options
  readonly metrics: boolean
  readonly statusPage: boolean
}

const millis = (input: Duration.Input | undefined, fallback: number): number => {
  if (input === undefined) return fallback
  const ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  return Number.isFinite(ms) && ms >= 0 ? ms : fallback
}

const positive = (n: number | undefined, fallback: number): number =>
  n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback

/**
 * Applies every default.
 *
 * @since 0.1.0
 * @category options
 */
export const resolve = (options: GatewayOptions = {}): Resolved => ({
  serverInfo: options.serverInfo ?? { name: "mcp-fleet", version: "0.1.0" },
  instructions: options.instructions,
  prefix: options.prefix ?? "always",
  hostKey: options.hostKey ?? "mcp-fleet",
  nameLengths: options.nameLengths ?? {},
  graceMs: millis(options.gracePeriod, 60_000),
  startupListWaitMs: millis(options.startupListWait, 5_000),
  listChangedDelayMs: millis(options.listChangedDelay, 100),
  maxSessions: positive(options.maxSessions, 256),
  sessionIdleMs: millis(options.sessionIdleTimeout, 30 * 60_000),
  maxInFlightPerHost: positive(options.maxInFlightPerHost, 64),
  maxMessageBytes: positive(options.maxMessageBytes, 4 * 1024 * 1024),
  inputRoundMs: millis(options.inputRoundTimeout, 10 * 60_000),
  tokens: options.tokens ?? [],
  allowedOrigins: options.allowedOrigins ?? [],
  allowedHosts: options.allowedHosts ?? [],
  drainMs: millis(options.drainTimeout, 10_000),
  profiles: options.profiles ?? {},
  results: options.results ?? {},
  metrics: options.metrics === true,
  statusPage: options.statusPage ?? true
})
