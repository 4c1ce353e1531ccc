/**
 * Gateway replicas' shared state for the Redis tests: each replica is `RedisShared.layer` built in the test's
 * scope, with its own connection to one real redis-server (packages/testing's Daemons).
 */
import { assert } from "@effect/vitest"
import { TokenStore } from "@mcp-fleet/auth"
import { ChangeBus, ResultStore, SharedState } from "@mcp-fleet/gateway"
import { Context, Effect, Layer, Redacted, Schedule, Stream, SubscriptionRef } from "effect"
import type { Scope } from "effect"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as RedisConnection from "../../src/redis/RedisConnection.ts"
import * as RedisShared from "../../src/redis/RedisShared.ts"

export interface Replica {
  readonly tokens: TokenStore.TokenStore["Service"]
  readonly bus: ChangeBus.ChangeBus["Service"]
  readonly results: ResultStore.ResultStore["Service"]
  readonly state: SharedState.SharedState["Service"]
  readonly connection: RedisConnection.Service
  /** The layer's whole context, to provide to what runs "on" this replica. */
  readonly context: Context.Context<
    | TokenStore.TokenStore
    | ChangeBus.ChangeBus
    | ResultStore.ResultStore
    | SharedState.SharedState
    | RedisConnection.RedisConnection
  >
}

/** One replica on `url`; returns once it is connected (unless `connected: false`). */
export const replica = (
  url: string,
  options: {
    readonly redis?: Partial<RedisShared.Options["redis"]>
    readonly results?: ResultStore.Options
    /** Return at once instead of waiting for the first connection. */
    readonly connected?: boolean
  } = {}
): Effect.Effect<Replica, never, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      RedisShared.layer({
        redis: { url: Redacted.make(url), reconnect: Schedule.spaced("100 millis"), ...options.redis },
        results: options.results
      }).pipe(Layer.provide(SecureRandom.layerWebCrypto))
    )
    const replica = { context, ...parts(context) }
    if (options.connected !== false) yield* connected(replica.connection)
    return replica
  })

const parts = (context: Replica["context"]) => ({
  tokens: Context.get(context, TokenStore.TokenStore),
  bus: Context.get(context, ChangeBus.ChangeBus),
  results: Context.get(context, ResultStore.ResultStore),
  state: Context.get(context, SharedState.SharedState),
  connection: Context.get(context, RedisConnection.RedisConnection)
})

/** Waits until the connection's status satisfies `predicate` (the current value counts). */
export const until = (connection: RedisConnection.Service, predicate: (status: SharedState.Status) => boolean) =>
  SubscriptionRef.changes(connection.status).pipe(
    Stream.filter(predicate),
    Stream.runHead,
    Effect.map((o) => (o._tag === "Some" ? o.value : assert.fail("the status stream ended")))
  )

export const connected = (connection: RedisConnection.Service) => until(connection, (s) => s._tag === "Connected")
export const disconnected = (connection: RedisConnection.Service) =>
  Effect.map(
    until(connection, (s) => s._tag === "Disconnected"),
    (s) => (s._tag === "Disconnected" ? s : assert.fail(`not disconnected: ${s._tag}`))
  )
