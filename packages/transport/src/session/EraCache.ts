/**
 * Which era each remote endpoint spoke last, for the life of the program: a legacy endpoint is not probed again
 * (its `initialize` goes first), and a cached choice that stops working is probed afresh.
 *
 * Provide a fresh map to isolate a program part (tests do).
 *
 * @internal
 */
import * as Context from "effect/Context"
import type { Era } from "../Protocol.ts"

/** The cache: endpoint URL (credentials removed) → era. */
export const EraCache: Context.Reference<Map<string, Era>> = Context.Reference(
  "@mcp-fleet/transport/EraCache",
  { defaultValue: () => new Map<string, Era>() }
)
