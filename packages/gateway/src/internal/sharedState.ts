/**
 * The status service of the shared state and the Redis options, apart from `SharedState.ts`: the Redis side (which
 * `SharedState.layer` imports only when configured) depends on this module, not on the one that imports it.
 *
 * @internal
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import type * as Stream from "effect/Stream"

/**
 * The shared state's connection, as `/readyz` and the status show it. Times are epoch ms by `Clock`.
 *
 * - `InProcess`: no Redis configured; nothing is shared.
 * - `Connecting`: a connection attempt is under way (`attempt` 1 is the first since the last connection).
 * - `Connected`: Redis answers.
 * - `Disconnected`: the connection dropped (`failedAttempts` 0) or the last attempts failed; `retryAt` is the next
 *   attempt, `undefined` when the reconnection schedule has ended.
 *
 * @since 0.1.0
 * @category models
 */
export type Status =
  | { readonly _tag: "InProcess" }
  | { readonly _tag: "Connecting"; readonly attempt: number; readonly since: number }
  | { readonly _tag: "Connected"; readonly since: number }
  | {
    readonly _tag: "Disconnected"
    readonly since: number
    readonly failedAttempts: number
    readonly reason: string
    readonly retryAt: number | undefined
  }

/**
 * The status service: `status` now, `changes` from now on (the current value first).
 *
 * @since 0.1.0
 * @category services
 */
export class SharedState extends Context.Service<SharedState, {
  readonly status: Effect.Effect<Status>
  readonly changes: Stream.Stream<Status>
}>()("@mcp-fleet/gateway/SharedState") {}

/**
 * Whether a status is degraded, and one line saying so (no URL, no secret).
 *
 * @since 0.1.0
 * @category rendering
 */
export const describe = (status: Status): { readonly degraded: boolean; readonly line: string } => {
  switch (status._tag) {
    case "InProcess":
      return { degraded: false, line: "shared state: in process (no Redis configured)" }
    case "Connected":
      return { degraded: false, line: "shared state: Redis connected" }
    case "Connecting":
      return { degraded: true, line: `shared state: connecting to Redis (attempt ${status.attempt})` }
    case "Disconnected":
      return {
        degraded: true,
        line: `shared state: Redis unreachable (${status.reason})${
          status.retryAt === undefined
            ? "; no further attempt"
            : `; next attempt at ${new Date(status.retryAt).toISOString()}`
        }`
      }
  }
}

/**
 * The options of the Redis side.
 *
 * @since 0.1.0
 * @category options
 */
export interface RedisOptions {
  /** `redis://[[user]:password@]host:port[/db]` or `rediss://…`: a secret when it holds a password. */
  readonly url: Redacted.Redacted<string>
  /** The prefix of every key and channel. Default `mcp-fleet:`; replicas of one gateway use the same. */
  readonly prefix?: string | undefined
  /**
   * When to try again after a failed attempt or a drop (a fresh schedule after every connection). Default:
   * exponential from 100 ms, each delay capped at 5 s, jittered, for as long as the replica runs.
   */
  readonly reconnect?: Schedule.Schedule<unknown, string> | undefined
  /** The deadline of a connection attempt. Default 5 seconds. */
  readonly connectTimeout?: Duration.Input | undefined
  /** The deadline of a command; past it, the command fails and the connection is checked. Default 2 seconds. */
  readonly commandTimeout?: Duration.Input | undefined
  /** How long a refresh holds the cross-replica token lock at most. Default 45 seconds. */
  readonly lockTtl?: Duration.Input | undefined
}
