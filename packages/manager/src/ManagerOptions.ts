/**
 * The options of `McpManager.layer`. Each option's default is written on it here; the reconnection default is
 * `defaultReconnect` (built by `backoff`), and the internal resolver applies the rest.
 *
 * The manager reads no configuration file and no environment variable: every value comes in here, computed
 * by whoever assembles the app. Per-server transport options (such as `requestTimeout`) are passed to the
 * transport untouched; the transport applies its own defaults.
 *
 * @since 0.1.0
 */
import type { ClientHandlers, McpClientOptions, ProtocolFeatures, Tool } from "@mcp-fleet/transport"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type { ServerHealth } from "./ServerHealth.ts"
import type { ServerState } from "./ServerState.ts"

/**
 * What every server entry may say, local or remote.
 *
 * @since 0.2.0
 * @category options
 */
export interface CommonServerConfig {
  /** A disabled server is never spawned and never appears in `tools()`. */
  readonly disabled?: boolean | undefined
  /** Tool names the host already bridges by hand: counted in the summary, never filtered out. */
  readonly curated?: ReadonlyArray<string> | undefined
  /** Passed to the transport untouched (absent or ≤ 0 means the transport's default). */
  readonly requestTimeout?: Duration.Input | undefined
}

/**
 * One local server of the fleet: a command run over stdio.
 *
 * @since 0.2.0
 * @category options
 */
export interface StdioServerConfig extends CommonServerConfig {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly env?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
  readonly cwd?: string | undefined
  /** Pass the parent's whole environment to this server (opt-in). */
  readonly inheritEnv?: boolean | undefined
  /** Any other transport option (limits, grace periods, clientInfo…), passed through. */
  readonly client?:
    | Omit<
      McpClientOptions.McpClientOptions,
      "command" | "args" | "env" | "cwd" | "inheritEnv" | "name" | "requestTimeout"
    >
    | undefined
  readonly url?: undefined
  readonly headers?: undefined
  readonly transport?: undefined
}

/**
 * One remote server of the fleet: a URL spoken to over Streamable HTTP or legacy HTTP+SSE. Running one needs
 * an `HttpClient` in the manager's context (apps provide `NodeHttpClient.layerUndici`); without it the server
 * fails to start with a message that says so.
 *
 * @since 0.2.0
 * @category options
 */
export interface RemoteServerConfig extends CommonServerConfig {
  /** The MCP endpoint; `Redacted` when it carries a token. Shown in health with credentials redacted. */
  readonly url: string | Redacted.Redacted<string>
  /** Headers on every request (`Authorization: Bearer …`); `Redacted` values never appear in any output. */
  readonly headers?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
  /** `http`, `sse` or `auto` (the transport's default: Streamable HTTP, falling back to HTTP+SSE). */
  readonly transport?: "http" | "sse" | "auto" | undefined
  /** Any other transport option (limits, clientInfo…), passed through. */
  readonly client?:
    | Omit<McpClientOptions.RemoteOptions, "url" | "headers" | "transport" | "name" | "requestTimeout">
    | undefined
  readonly command?: undefined
  readonly args?: undefined
  readonly env?: undefined
  readonly cwd?: undefined
  readonly inheritEnv?: undefined
}

/**
 * One server of the fleet: local (`command`) or remote (`url`).
 *
 * @since 0.1.0
 * @category options
 */
export type ServerConfig = StdioServerConfig | RemoteServerConfig

/**
 * Exponential backoff with a cap and a number of attempts, as a record: shorthand for `backoff(policy)`.
 * The delay before attempt `n` (1-based) is `min(maxDelay, initialDelay * factor^(n-1))`. After `maxAttempts`
 * failed attempts the server stays offline until `restart`. Defaults: 1 s, ×2, 30 s cap, 5 attempts.
 *
 * @since 0.1.0
 * @category options
 */
export interface ReconnectPolicy {
  readonly initialDelay?: Duration.Input | undefined
  readonly maxDelay?: Duration.Input | undefined
  readonly factor?: number | undefined
  readonly maxAttempts?: number | undefined
}

/**
 * A state transition, as listeners and the `changes` stream see it.
 *
 * @since 0.1.0
 * @category models
 */
export interface StateChange {
  readonly server: string
  readonly from: ServerState
  /** `"removed"` when the server left the fleet (`health` is then its last snapshot). */
  readonly to: ServerState | "removed"
  readonly health: ServerHealth
}

/**
 * A real change of the tools a server offers: a listing that differs from its previous listing, or `[]` when
 * the server is removed. Going offline is not one, nor is coming back with identical tools (watch `changes` for
 * availability); an identical re-list is not one either.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolsChange {
  readonly server: string
  readonly tools: ReadonlyArray<Tool.DiscoveredTool>
}

/**
 * @since 0.1.0
 * @category options
 */
export interface ManagerOptions {
  readonly servers: Readonly<Record<string, ServerConfig>>
  /** How long to wait for `initialize` before noting it; the server stays `starting`, never killed. Default 15 minutes. */
  readonly readyTimeout?: Duration.Input | undefined
  /** Bound of one tools/list discovery; on expiry a live server is `degraded`, not restarted. Default 60 seconds. */
  readonly startupTimeout?: Duration.Input | undefined
  /**
   * The reconnection policy: a `Schedule` stepped once per failed start (its input is the failure's text), its
   * delay is the wait before the next attempt, and when it ends the server gives up. A `ReconnectPolicy`
   * record is shorthand for `backoff(record)`. Default `defaultReconnect`: 1 s, ×2, capped at 30 s, 5 attempts.
   * Independently, a failure that repeats identically on two starts in a row gives up at once (crash loop).
   */
  readonly reconnect?: Schedule.Schedule<unknown, string> | ReconnectPolicy | undefined
  /** Server lines shown by `statusLines()`; ≤ 0 means unlimited. Default 0. */
  readonly maxStatusLines?: number | undefined
  /** Capacity of the listener queue and of each `changes` subscriber; when full, the oldest are dropped. Default 1024. */
  readonly eventCapacity?: number | undefined
  /** Called after every state transition, outside the state update, in order. */
  readonly onStateChange?: ((change: StateChange) => Effect.Effect<void>) | undefined
  /** Called when a server's tool set really changed, outside the state update, in order. */
  readonly onToolsChanged?: ((change: ToolsChange) => Effect.Effect<void>) | undefined
  /**
   * What answers every server's `roots/list`, `elicitation/create` and `sampling/createMessage` (each handler gets
   * the server's name). A server's own `client.handlers` override these one by one. Each handler present is
   * declared in that server's `initialize`. Default: none.
   */
  readonly handlers?: ClientHandlers.ClientHandlers | undefined
  /**
   * The least severe log level asked of every server that declares `logging` (`logging/setLevel`), once it is
   * ready, on each (re)connection. Default: none asked (the server's own default).
   */
  readonly serverLogLevel?: ProtocolFeatures.LoggingLevel | undefined
  /**
   * What a server in the `unauthorized` state tells the user to do, as a sentence fragment (the CLI's:
   * "run `mcp-fleet auth login <name>`"). Default: `authorize it (provide McpAuth with a prompt), then restart it`.
   */
  readonly authorizationAdvice?: ((server: string) => string) | undefined
}

const positiveMillis = (input: Duration.Input | undefined, fallback: number): number => {
  if (input === undefined) return fallback
  const ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  return ms > 0 ? ms : fallback
}

/**
 * The reconnection `Schedule` of a backoff record: exponential from `initialDelay` by `factor`, each delay capped
 * at `maxDelay`, at most `maxAttempts` attempts. Invalid values fall back to the defaults.
 *
 * @example
 * ```ts
 * import { ManagerOptions } from "@mcp-fleet/manager"
 * const quick = ManagerOptions.backoff({ initialDelay: "200 millis", maxAttempts: 3 })
 * ```
 *
 * @since 0.2.0
 * @category options
 */
export const backoff = (policy: ReconnectPolicy = {}): Schedule.Schedule<Duration.Duration, unknown> => {
  const initial = positiveMillis(policy.initialDelay, 1_000)
  const cap = positiveMillis(policy.maxDelay, 30_000)
  const factor = policy.factor !== undefined && policy.factor >= 1 ? policy.factor : 2
  const times = policy.maxAttempts !== undefined && policy.maxAttempts >= 0 ? Math.floor(policy.maxAttempts) : 5
  return Schedule.exponential(initial, factor).pipe(
    Schedule.modifyDelay(({ duration }) => Effect.succeed(Math.min(Duration.toMillis(duration), cap))),
    Schedule.upTo({ times })
  )
}

/**
 * The default reconnection policy: `backoff({})` (1 s, ×2, capped at 30 s, 5 attempts, no jitter).
 *
 * @since 0.2.0
 * @category options
 */
export const defaultReconnect: Schedule.Schedule<Duration.Duration, unknown> = backoff()
