/**
 * The server capability each client → server method needs, checked before anything is sent: a server that did
 * not declare it gets no request (which would end in -32601), and the caller gets `CapabilityNotSupported`.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import { CapabilityNotSupported } from "../McpError.ts"
import type { ServerSession } from "../Protocol.ts"

/**
 * A capability, or one of its flags (`resources.subscribe`).
 *
 * @since 0.3.0
 * @category models
 */
export type Capability = "resources" | "resources.subscribe" | "prompts" | "completions" | "logging" | "tools"

const PATHS: Record<Capability, readonly [name: string, flag: string | undefined]> = {
  resources: ["resources", undefined],
  "resources.subscribe": ["resources", "subscribe"],
  prompts: ["prompts", undefined],
  completions: ["completions", undefined],
  logging: ["logging", undefined],
  tools: ["tools", undefined]
}

/**
 * Whether `session` declares `capability` (an object for a capability; `true` for a flag).
 *
 * @since 0.3.0
 * @category predicates
 */
export const declares = (session: ServerSession, capability: Capability): boolean => {
  const [name, flag] = PATHS[capability]
  const declared = session.capabilities[name]
  if (typeof declared !== "object" || declared === null) return false
  return flag === undefined || Object.entries(declared).some(([key, value]) => key === flag && value === true)
}

/**
 * Succeeds when `session` declares `capability`; fails with `CapabilityNotSupported` for `method` otherwise.
 *
 * @since 0.3.0
 * @category checks
 */
export const require = (
  server: string,
  session: ServerSession,
  method: string,
  capability: Capability
): Effect.Effect<void, CapabilityNotSupported> =>
  declares(session, capability) ? Effect.void : Effect.fail(new CapabilityNotSupported({ server, method, capability }))
