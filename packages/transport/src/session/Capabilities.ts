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
 * A capability, one of its flags (`resources.subscribe`), or an extension (`skills`: SEP-2640's
 * `io.modelcontextprotocol/skills` in `capabilities.extensions`).
 *
 * @since 0.3.0
 * @category models
 */
export type Capability =
  | "resources"
  | "resources.subscribe"
  | "prompts"
  | "completions"
  | "logging"
  | "tools"
  | "skills"

/** Where each capability is declared: its object, and a flag in it (`true`) or an extension in it (an object). */
const PATHS: Record<
  Capability,
  readonly [name: string, inner: { readonly key: string; readonly kind: "flag" | "object" } | undefined]
> = {
  resources: ["resources", undefined],
  "resources.subscribe": ["resources", { key: "subscribe", kind: "flag" }],
  prompts: ["prompts", undefined],
  completions: ["completions", undefined],
  logging: ["logging", undefined],
  tools: ["tools", undefined],
  skills: ["extensions", { key: "io.modelcontextprotocol/skills", kind: "object" }]
}

const isObject = (value: unknown): boolean => typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether `session` declares `capability` (an object for a capability and an extension; `true` for a flag).
 *
 * @since 0.3.0
 * @category predicates
 */
export const declares = (session: ServerSession, capability: Capability): boolean => {
  const [name, inner] = PATHS[capability]
  const declared = session.capabilities[name]
  if (typeof declared !== "object" || declared === null) return false
  if (inner === undefined) return true
  return Object.entries(declared).some(([key, value]) =>
    key === inner.key && (inner.kind === "flag" ? value === true : isObject(value))
  )
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
