/**
 * What a failure means for whoever holds it, as one typed value: every error of this package, of
 * `@mcp-fleet/auth` and of `@mcp-fleet/manager` carries it as `kind`. A supervisor reads it (with the predicates
 * below) instead of matching `_tag` strings: retry later, ask the user, blame the server, or fix the
 * configuration. Tagged classes stay for callers who match one error (`ErrIndexBuilding`, `SessionExpired`…).
 *
 * | kind | meaning | examples |
 * | --- | --- | --- |
 * | `Transient` | the same call may succeed later (after a delay) | `RequestTimeout`, `ConnectionFailed`, `SessionExpired`, `ProcessExited`, HTTP 5xx/408/429 |
 * | `NeedsUser` | nothing succeeds until the user acts (authorizes); `reason` says why | `AuthorizationRequired`, HTTP 401 without `McpAuth` |
 * | `ServerFault` | the server broke the protocol or refused for good: asking again gets the same answer | `ProtocolError`, `RemoteError`, `UnsupportedProtocolVersion` |
 * | `ConfigFault` | the configuration cannot work until it changes | `SpawnError`, `InvalidUrl`, `MissingClientCapability` |
 * | `CallerFault` | this call cannot be made as asked (the client is closed, the arguments are not JSON…) | `ClientClosed`, `InvalidParams`, `NotInEra` |
 *
 * @example
 * ```ts
 * import { ErrorKind } from "@mcp-fleet/transport"
 * import { Effect, Schedule } from "effect"
 *
 * const retried = <A, E extends ErrorKind.Classified>(call: Effect.Effect<A, E>) =>
 *   call.pipe(Effect.retry({ while: ErrorKind.isRetryable, schedule: Schedule.exponential("200 millis"), times: 3 }))
 * ```
 *
 * @since 0.4.0
 */

/**
 * The same call may succeed later: the server was slow, restarting, overloaded, or lost the session.
 *
 * @since 0.4.0
 * @category models
 */
export interface Transient {
  readonly _tag: "Transient"
}

/**
 * Nothing succeeds until the user acts (for MCP: authorizes, `mcp-fleet auth login <server>`).
 *
 * @since 0.4.0
 * @category models
 */
export interface NeedsUser {
  readonly _tag: "NeedsUser"
  /** Why, in one sentence without any secret. */
  readonly reason: string
}

/**
 * The server broke the protocol or refused for good: the same request gets the same answer.
 *
 * @since 0.4.0
 * @category models
 */
export interface ServerFault {
  readonly _tag: "ServerFault"
}

/**
 * The configuration cannot work until it changes (a command that cannot start, an unusable URL, a capability
 * the client does not declare).
 *
 * @since 0.4.0
 * @category models
 */
export interface ConfigFault {
  readonly _tag: "ConfigFault"
}

/**
 * This call cannot be made as asked: the client is closed, the arguments cannot be sent, the method does not exist
 * in the server's era.
 *
 * @since 0.4.0
 * @category models
 */
export interface CallerFault {
  readonly _tag: "CallerFault"
}

/**
 * What a failure means.
 *
 * @since 0.4.0
 * @category models
 */
export type ErrorKind = Transient | NeedsUser | ServerFault | ConfigFault | CallerFault

/**
 * A failure that says what it means: every error of the transport, auth and manager packages.
 *
 * @since 0.4.0
 * @category models
 */
export interface Classified {
  readonly kind: ErrorKind
}

/**
 * @since 0.4.0
 * @category constructors
 */
export const transient: Transient = { _tag: "Transient" }

/**
 * @since 0.4.0
 * @category constructors
 */
export const serverFault: ServerFault = { _tag: "ServerFault" }

/**
 * @since 0.4.0
 * @category constructors
 */
export const configFault: ConfigFault = { _tag: "ConfigFault" }

/**
 * @since 0.4.0
 * @category constructors
 */
export const callerFault: CallerFault = { _tag: "CallerFault" }

/**
 * @since 0.4.0
 * @category constructors
 */
export const needsUser = (reason: string): NeedsUser => ({ _tag: "NeedsUser", reason })

/**
 * Whether trying the same call again later may succeed.
 *
 * @since 0.4.0
 * @category predicates
 */
export const isRetryable = (error: Classified): boolean => error.kind._tag === "Transient"

/**
 * Why the user must act before anything succeeds, when that is what `error` means; otherwise `undefined`.
 *
 * @since 0.4.0
 * @category predicates
 */
export const userAction = (error: Classified): string | undefined =>
  error.kind._tag === "NeedsUser" ? error.kind.reason : undefined

/**
 * Whether the server is at fault for good (the same request gets the same answer).
 *
 * @since 0.4.0
 * @category predicates
 */
export const isServerFault = (error: Classified): boolean => error.kind._tag === "ServerFault"

/**
 * Whether the configuration must change first.
 *
 * @since 0.4.0
 * @category predicates
 */
export const isConfigFault = (error: Classified): boolean => error.kind._tag === "ConfigFault"
