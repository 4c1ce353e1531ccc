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
import type * as SecureRandom from "effect/crypto/SecureRandom"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ChangeBus from "./ChangeBus.ts"
import * as Shared from "./internal/sharedState.ts"
import * as ResultStore from "./ResultStore.ts"

/**
 * The shared state's connection, as `/readyz` and the status show it: `InProcess` (no Redis configured),
 * `Connecting`, `Connected`, or `Disconnected` (with the reason and the next attempt).
 *
 * @since 0.1.0
 * @category models
 */
export type Status = Shared.Status

/**
 * The options of the Redis side.
 *
 * @since 0.1.0
 * @category options
 */
export type RedisOptions = Shared.RedisOptions

/**
 * The status service: `status` now, `changes` from now on (the current value first).
 *
 * @since 0.1.0
 * @category services
 */
export const SharedState = Shared.SharedState

/**
 * @since 0.1.0
 * @category services
 */
export type SharedState = Shared.SharedState

/**
 * Whether a status is degraded, and one line saying so (no URL, no secret).
 *
 * @since 0.1.0
 * @category rendering
 */
export const describe = Shared.describe

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
