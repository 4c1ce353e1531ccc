/**
 * The five states of a managed server, and the two fail-safes that read them.
 *
 * - `starting`: spawned, `initialize` or the first `tools/list` not finished. Never counted as "ready — 0 tools".
 * - `ready`: alive, initialized, with a usable (non-empty) tool list.
 * - `degraded`: alive, but without a usable tool list (the list failed, timed out, or was empty).
 * - `offline`: not running (crashed, reconnecting, or given up).
 * - `disabled`: turned off in the configuration; never spawned, never in the tool faces.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export type ServerState = "starting" | "ready" | "degraded" | "offline" | "disabled"

/**
 * Every state, in display order.
 *
 * @since 0.1.0
 * @category models
 */
export const all: ReadonlyArray<ServerState> = ["ready", "starting", "degraded", "offline", "disabled"]

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
      return s
    default:
      return "offline"
  }
}
