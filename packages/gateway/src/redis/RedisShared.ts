/**
 * The shared state in Redis: one connection per replica (`RedisConnection`, kept up on a `Schedule`), and over it
 * the token store, the change bus and the large-result store. `SharedState.layer` imports this module only when a
 * Redis URL is configured.
 *
 * The client is Effect's `Redis` service implemented by `@effect/platform-node`'s `NodeRedis` over node-redis
 * (`redis` 6), with node-redis' own reconnection switched off (the connection's supervisor reconnects).
 *
 * @since 0.1.0
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { TokenStore } from "@mcp-fleet/auth"
import * as Context from "effect/Context"
import type * as SecureRandom from "effect/crypto/SecureRandom"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as ChangeBus from "../ChangeBus.ts"
import { Relay } from "../internal/relay.ts"
import { type RedisOptions, SharedState } from "../internal/sharedState.ts"
import * as ResultStore from "../ResultStore.ts"
import * as RedisChangeBus from "./RedisChangeBus.ts"
import * as RedisConnection from "./RedisConnection.ts"
import * as RedisResultStore from "./RedisResultStore.ts"
import * as RedisTokenStore from "./RedisTokenStore.ts"

/**
 * A node-redis client for `url`, through `NodeRedis`: no reconnection of its own, no offline queue (a command while
 * disconnected fails at once), `connectTimeout` on the socket.
 *
 * @since 0.1.0
 * @category constructors
 */
export const nodeRedis = (connectTimeout: Duration.Input = "5 seconds"): RedisConnection.Connect => (url) =>
  NodeRedis.layer({
    url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: false, connectTimeout: Duration.toMillis(Duration.fromInputUnsafe(connectTimeout)) }
  })

/**
 * The options of {@link layer}.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  readonly redis: RedisOptions & { readonly connect?: RedisConnection.Connect | undefined }
  readonly results?: ResultStore.Options | undefined
  readonly bus?: ChangeBus.Options | undefined
}

/**
 * The connection, the status, the token store, the change bus and the result store, all over one connection.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<
  | SharedState
  | ChangeBus.ChangeBus
  | ResultStore.ResultStore
  | TokenStore.TokenStore
  | RedisConnection.RedisConnection
  | Relay,
  never,
  SecureRandom.SecureRandom
> => {
  const connection = RedisConnection.layer({
    ...options.redis,
    connect: options.redis.connect ?? nodeRedis(options.redis.connectTimeout)
  })
  const parts = Layer.effectContext(Effect.gen(function*() {
    const redis = yield* RedisConnection.RedisConnection
    const tokens = yield* RedisTokenStore.make(redis, { lockTtl: options.redis.lockTtl })
    const bus = yield* RedisChangeBus.make(redis, options.bus)
    const backing = yield* RedisResultStore.make(redis, ResultStore.bounds(options.results))
    const results = yield* ResultStore.makeWith(options.results ?? {}, backing)
    const state = SharedState.of({
      status: SubscriptionRef.get(redis.status),
      changes: SubscriptionRef.changes(redis.status)
    })
    // Answers to requests another replica asked a 2025-11-25 host travel on the connection's channel too.
    const relay = Relay.of({
      publish: (answer) =>
        redis.publish("relay", answer).pipe(
          Effect.catch((error) =>
            Effect.logWarning("Redis is unreachable; a host's answer for another replica was dropped").pipe(
              Effect.annotateLogs({ reason: error.reason })
            )
          )
        ),
      subscribe: Effect.map(redis.events, (events) =>
        Effect.gen(function*() {
          while (true) {
            const event = yield* PubSub.take(events)
            if (event._tag === "Message" && event.kind === "relay") return event.body
          }
        }))
    })
    return Context.make(TokenStore.TokenStore, tokens).pipe(
      Context.add(ChangeBus.ChangeBus, bus),
      Context.add(ResultStore.ResultStore, results),
      Context.add(SharedState, state),
      Context.add(Relay, relay)
    )
  }))
  return parts.pipe(Layer.provideMerge(connection))
}
