/**
 * The state gateway replicas share: the upstream tokens (`TokenStore`), the change bus (`ChangeBus`) and the large
 * results (`ResultStore`). In process by default; in Redis when a Redis URL is configured, so that N replicas behind
 * a round-robin balancer act as one gateway.
 *
 * **Contract**:
 * - {@link layer} without `redis` builds the in-process parts and loads no Redis code at all (no `redis` client, no
 *   `effect/persistence/Redis`, none of `./redis/*`): the Redis side is imported only when a URL is given.
 * - With `redis`, the layer builds even when Redis is down: the replica starts degraded and connects on the
 *   reconnection `Schedule`. Building never waits for Redis.
 * - {@link SharedState} gives the connection's {@link Status} and its changes, for `/readyz` and the gateway's
 *   status. {@link describe} renders it; a degraded replica stays ready (every replica shares one Redis, and taking
 *   them all out of the balancer would turn a partial outage into a full one).
 * - While Redis is unreachable a replica keeps serving what needs no shared state: sealed sessions, tools and lists
 *   from its own upstream connections, the tokens it last read, its own change notifications, results it stored
 *   itself. See each part's module for what it does meanwhile.
 *
 * @since 0.1.0
 */
import type { TokenStore } from "@mcp-fleet/auth"
import * as Context from "effect/Context"
import type * as SecureRandom from "effect/crypto/SecureRandom"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as ChangeBus from "./ChangeBus.ts"
import * as ResultStore from "./ResultStore.ts"

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

/**
 * The options of {@link layer}.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options<E, R> {
  /** Where the state is shared; absent: in process. */
  readonly redis?: RedisOptions | undefined
  /** The large-result store's bounds and TTL. */
  readonly results?: ResultStore.Options | undefined
  /** The token store of a replica without Redis (the CLI's file store, or `TokenStore.layerMemory`). */
  readonly tokens: Layer.Layer<TokenStore.TokenStore, E, R>
}

/**
 * A status that never changes from `InProcess`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInProcess: Layer.Layer<SharedState> = Layer.succeed(
  SharedState,
  SharedState.of({ status: Effect.succeed({ _tag: "InProcess" }), changes: Stream.succeed({ _tag: "InProcess" }) })
)

/**
 * The shared state: in process without `redis`, in Redis with it (see the module's contract).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <E, R>(
  options: Options<E, R>
): Layer.Layer<
  SharedState | ChangeBus.ChangeBus | ResultStore.ResultStore | TokenStore.TokenStore,
  E,
  R | SecureRandom.SecureRandom
> => {
  const redis = options.redis
  if (redis === undefined) {
    return Layer.mergeAll(
      layerInProcess,
      ChangeBus.layerInProcess(),
      ResultStore.layer(options.results),
      options.tokens
    )
  }
  // The Redis side loads here, and only here.
  return Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("./redis/RedisShared.ts")),
      (module) => module.layer({ redis, results: options.results })
    )
  )
}
