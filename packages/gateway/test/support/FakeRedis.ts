/**
 * A fake of Effect's `Redis` service for the connection's own tests (its schedule on TestClock): PING and PUBLISH,
 * subscriptions that a test drops, connections a test refuses. Everything else is tested against a real
 * redis-server.
 */
import { Deferred, Effect, Layer } from "effect"
import * as Redis from "effect/persistence/Redis"

export interface FakeRedis {
  /** Whether a connection attempt succeeds. */
  up: boolean
  /** Whether commands fail (the subscription stays). */
  broken: boolean
  /** Connection attempts so far, and the URLs they were given. */
  readonly attempts: Array<string>
  /** Messages published, by channel. */
  readonly published: Array<{ readonly channel: string; readonly message: string }>
  /** Fails every open subscription (the socket closed) and refuses the next attempts until `up` again. */
  readonly drop: Effect.Effect<void>
  /** Delivers a message to every subscriber of `channel`. */
  readonly deliver: (channel: string, message: string) => void
  /** The `connect` option of the connection. */
  readonly connect: (url: string) => Layer.Layer<Redis.Redis, Redis.RedisError>
}

export const make = (): FakeRedis => {
  const subscribers = new Set<{
    readonly channel: string
    readonly onMessage: (message: Redis.RedisMessage) => void
    readonly ended: Deferred.Deferred<void, Redis.RedisError>
  }>()
  const fake: FakeRedis = {
    up: true,
    broken: false,
    attempts: [],
    published: [],
    drop: Effect.gen(function*() {
      fake.up = false
      for (const subscriber of [...subscribers]) {
        yield* Deferred.fail(subscriber.ended, new Redis.RedisError({ cause: new Error("Socket closed unexpectedly") }))
      }
      subscribers.clear()
    }),
    deliver: (channel, message) => {
      for (const subscriber of subscribers) {
        if (subscriber.channel === channel) subscriber.onMessage({ channel, message })
      }
    },
    connect: (url) =>
      Layer.effect(
        Redis.Redis,
        Effect.gen(function*() {
          fake.attempts.push(url)
          if (!fake.up) {
            return yield* new Redis.RedisError({ cause: new Error(`connect ECONNREFUSED (to ${url})`) })
          }
          return yield* Redis.make({
            send: <A>(command: string, ...args: ReadonlyArray<string>) =>
              Effect.suspend((): Effect.Effect<A, Redis.RedisError> => {
                if (fake.broken || !fake.up) {
                  return Effect.fail(new Redis.RedisError({ cause: new Error("The client is closed") }))
                }
                if (command === "PING") return Effect.succeed("PONG" as A)
                if (command === "PUBLISH") {
                  fake.published.push({ channel: args[0]!, message: args[1]! })
                  fake.deliver(args[0]!, args[1]!)
                  return Effect.succeed(1 as A)
                }
                return Effect.fail(new Redis.RedisError({ cause: new Error(`the fake does not know ${command}`) }))
              }),
            subscribe: (channel, onMessage) =>
              Effect.gen(function*() {
                const ended = yield* Deferred.make<void, Redis.RedisError>()
                const subscriber = { channel, onMessage, ended }
                subscribers.add(subscriber)
                yield* Effect.addFinalizer(() => Effect.sync(() => subscribers.delete(subscriber)))
                return Deferred.await(ended)
              }),
            connect: Effect.fail(new Redis.RedisError({ cause: new Error("the fake has no reserved connections") }))
          })
        })
      )
  }
  return fake
}
