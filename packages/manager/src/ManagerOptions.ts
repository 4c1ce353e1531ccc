/**
 * The options of `McpManager.layer`, and the one place where the manager's own defaults are written.
 *
 * The manager reads no configuration file and no environment variable: every value comes in here, computed
 * by whoever assembles the app. Per-server transport options (such as `requestTimeout`) are passed to the
 * transport untouched; the transport applies its own defaults.
 *
 * @since 0.1.0
 */
import type { McpClientOptions, Tool } from "@mcp-fleet/transport"
import type { Effect, Redacted } from "effect"
import { Duration } from "effect"
import type { ServerHealth } from "./ServerHealth.ts"
import type { ServerState } from "./ServerState.ts"

/**
 * One server of the fleet.
 *
 * @since 0.1.0
 * @category options
 */
export interface ServerConfig {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly env?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
  readonly cwd?: string | undefined
  /** Pass the parent's whole environment to this server (opt-in). */
  readonly inheritEnv?: boolean | undefined
  /** A disabled server is never spawned and never appears in `tools()`. */
  readonly disabled?: boolean | undefined
  /** Tool names the host already bridges by hand: counted in the summary, never filtered out. */
  readonly curated?: ReadonlyArray<string> | undefined
  /** Passed to the transport untouched (absent or ≤ 0 means the transport's default). */
  readonly requestTimeout?: Duration.Input | undefined
  /** Any other transport option (limits, grace periods, clientInfo…), passed through. */
  readonly client?:
    | Omit<
      McpClientOptions.McpClientOptions,
      "command" | "args" | "env" | "cwd" | "inheritEnv" | "name" | "requestTimeout"
    >
    | undefined
}

/**
 * Exponential backoff with a cap and a number of attempts. The delay before attempt `n` (1-based) is
 * `min(maxDelay, initialDelay * factor^(n-1))`. After `maxAttempts` failed attempts the server stays
 * offline until `restart`. Time comes from Effect's `Clock`, so tests drive it with `TestClock`.
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
  readonly to: ServerState
  readonly health: ServerHealth
}

/**
 * A real change of a server's tool set (an identical re-list is not one).
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
  /** Reconnection backoff. Defaults: 1 s initial, ×2, 30 s cap, 5 attempts. */
  readonly reconnect?: ReconnectPolicy | undefined
  /** Server lines shown by `statusLines()`; ≤ 0 means unlimited. Default 0. */
  readonly maxStatusLines?: number | undefined
  /** Called after every state transition, outside the state update, in order. */
  readonly onStateChange?: ((change: StateChange) => Effect.Effect<void>) | undefined
  /** Called when a server's tool set really changed, outside the state update, in order. */
  readonly onToolsChanged?: ((change: ToolsChange) => Effect.Effect<void>) | undefined
}

/**
 * The options with the manager's defaults applied (transport options are left alone).
 *
 * @since 0.1.0
 * @category options
 */
export interface ResolvedOptions {
  readonly servers: ReadonlyArray<readonly [string, ServerConfig]>
  readonly readyTimeoutMs: number
  readonly startupTimeoutMs: number
  readonly reconnect: {
    readonly initialDelayMs: number
    readonly maxDelayMs: number
    readonly factor: number
    readonly maxAttempts: number
  }
  readonly maxStatusLines: number
  readonly onStateChange: ((change: StateChange) => Effect.Effect<void>) | undefined
  readonly onToolsChanged: ((change: ToolsChange) => Effect.Effect<void>) | undefined
}

const millis = (input: Duration.Input | undefined, fallback: number): number => {
  if (input === undefined) return fallback
  const ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  return ms > 0 ? ms : fallback
}

/**
 * Applies the manager's defaults.
 *
 * @since 0.1.0
 * @category options
 */
export const resolve = (options: ManagerOptions): ResolvedOptions => ({
  servers: Object.entries(options.servers),
  readyTimeoutMs: millis(options.readyTimeout, 15 * 60_000),
  startupTimeoutMs: millis(options.startupTimeout, 60_000),
  reconnect: {
    initialDelayMs: millis(options.reconnect?.initialDelay, 1_000),
    maxDelayMs: millis(options.reconnect?.maxDelay, 30_000),
    factor: options.reconnect?.factor !== undefined && options.reconnect.factor >= 1 ? options.reconnect.factor : 2,
    maxAttempts: options.reconnect?.maxAttempts !== undefined && options.reconnect.maxAttempts >= 0
      ? Math.floor(options.reconnect.maxAttempts)
      : 5
  },
  maxStatusLines: options.maxStatusLines ?? 0,
  onStateChange: options.onStateChange,
  onToolsChanged: options.onToolsChanged
})

/**
 * The delay before reconnection attempt `attempt` (1-based).
 *
 * @since 0.1.0
 * @category options
 */
export const backoffDelay = (policy: ResolvedOptions["reconnect"], attempt: number): number =>
  Math.min(policy.maxDelayMs, policy.initialDelayMs * Math.pow(policy.factor, Math.max(0, attempt - 1)))
