/**
 * The six states of a managed server, and the two fail-safes that read them.
 *
 * - `starting`: spawned, `initialize` or the first `tools/list` not finished. Never counted as "ready — 0 tools".
 * - `ready`: alive, initialized, with a usable (non-empty) tool list.
 * - `degraded`: alive, but without a usable tool list (the list failed, timed out, or was empty).
 * - `offline`: not running (crashed, reconnecting, or given up).
 * - `disabled`: turned off in the configuration; never spawned, never in the tool faces.
 * - `unauthorized`: a remote server that needs the user to authorize (OAuth); nothing is retried until then
 *   (for the CLI: `mcp-fleet auth login <server>`, then a restart).
 *
 * @since 0.1.0
 */
import type { Tool } from "@mcp-fleet/transport"

/**
 * @since 0.1.0
 * @category models
 */
export type ServerState = "starting" | "ready" | "degraded" | "offline" | "disabled" | "unauthorized"

/**
 * Every state, in display order.
 *
 * @since 0.1.0
 * @category models
 */
export const all: ReadonlyArray<ServerState> = ["ready", "starting", "degraded", "unauthorized", "offline", "disabled"]

/**
 * Whether a server in this state contributes tools to counts and tool lists. Only `ready` does: a server that
 * has not finished starting is never shown as having zero tools.
 *
 * @since 0.1.0
 * @category fail-safes
 */
export const countsTools = (state: ServerState): boolean => state === "ready"

/**
 * Reads a state from text (a persisted ledger, a wire message). Anything unknown is `offline`, never `ready`.
 *
 * @since 0.1.0
 * @category fail-safes
 */
export const stateFromString = (s: string): ServerState => {
  switch (s) {
    case "starting":
    case "ready":
    case "degraded":
    case "offline":
    case "disabled":
    case "unauthorized":
      return s
    default:
      return "offline"
  }
}

/**
 * Where a server is in its life, as a tagged union: each case holds exactly what is true in it, so that
 * `{ ready, gaveUp }` cannot be written. `ServerTransition.next` is the only function that moves it; the flat
 * `ServerHealth` view is derived from it.
 *
 * - `Starting`: spawned (or about to be), `initialize` or the first `tools/list` not finished. `attempt` is the
 *   reconnection attempt this process is (0 for a first start or a restart).
 * - `Ready`: alive, initialized, with a non-empty tool list.
 * - `Degraded`: alive, without a usable tool list. `initializeFailed` marks an `initialize` error (evidence for
 *   the crash-loop rule if the process then exits).
 * - `Offline`: not running; reconnecting. `nextRetryAt` (Clock ms) is when the next attempt starts, once scheduled.
 * - `GaveUp`: not running, and no attempt will be made until `restart`.
 * - `NeedsAuthorization`: a remote server refused us and OAuth could not be completed without the user (no prompt,
 *   declined, refresh refused); no reconnection is attempted until a restart. `advice` is the one thing to do.
 * - `Disabled`: turned off in the configuration.
 * - `Removed`: taken out of the fleet; it leaves `health()`.
 *
 * @since 0.2.0
 * @category models
 */
export type State = Starting | Ready | Degraded | Offline | GaveUp | NeedsAuthorization | Disabled | Removed

/**
 * @since 0.2.0
 * @category models
 */
export interface Starting {
  readonly _tag: "Starting"
  readonly attempt: number
  readonly pid: number | undefined
  readonly listChangedPending: boolean
  readonly lastError: string | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Ready {
  readonly _tag: "Ready"
  readonly pid: number | undefined
  readonly tools: ReadonlyArray<Tool.DiscoveredTool>
  readonly instructions: string | undefined
  /** A note about the listing (tools left out: they did not decode, or repeated an earlier tool's name), if any. */
  readonly note: string | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Degraded {
  readonly _tag: "Degraded"
  readonly pid: number | undefined
  readonly reason: string
  readonly instructions: string | undefined
  readonly initializeFailed: boolean
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Offline {
  readonly _tag: "Offline"
  readonly lastError: string | undefined
  readonly attempt: number
  readonly nextRetryAt: number | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface GaveUp {
  readonly _tag: "GaveUp"
  readonly lastError: string | undefined
  readonly attempts: number
  /** Why reconnection stopped, as a sentence fragment ("gave up reconnecting after 5 attempts"). */
  readonly reason: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface NeedsAuthorization {
  readonly _tag: "NeedsAuthorization"
  /** Why authorization could not be completed (no secrets). */
  readonly reason: string
  /** What the user should do ("run `mcp-fleet auth login linear`"). */
  readonly advice: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Disabled {
  readonly _tag: "Disabled"
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Removed {
  readonly _tag: "Removed"
}

/**
 * The state a server is in before anything happened to it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const initial = (disabled: boolean): State =>
  disabled
    ? { _tag: "Disabled" }
    : { _tag: "Starting", attempt: 0, pid: undefined, listChangedPending: false, lastError: undefined }

/**
 * The kind of a state, as `ServerHealth.state` shows it (`GaveUp` is `offline`; `Removed` has no kind
 * of its own and reads as `offline`, but never appears in `health()`).
 *
 * @since 0.2.0
 * @category fail-safes
 */
export const kindOf = (state: State): ServerState => {
  switch (state._tag) {
    case "Starting":
      return "starting"
    case "Ready":
      return "ready"
    case "Degraded":
      return "degraded"
    case "Disabled":
      return "disabled"
    case "NeedsAuthorization":
      return "unauthorized"
    case "Offline":
    case "GaveUp":
    case "Removed":
      return "offline"
  }
}

/**
 * Whether a process may be running in this state (it may take calls and be watched).
 *
 * @since 0.2.0
 * @category fail-safes
 */
export const isLive = (state: State): state is Starting | Ready | Degraded =>
  state._tag === "Starting" || state._tag === "Ready" || state._tag === "Degraded"
