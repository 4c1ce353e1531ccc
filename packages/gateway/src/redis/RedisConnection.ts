/**
 * One replica's connection to Redis, kept up by a supervisor: the shared parts (`RedisTokenStore`,
 * `RedisChangeBus`, `RedisResultStore`) run their commands through {@link RedisConnection.use} and hear the other
 * replicas on one pub/sub channel.
 *
 * **Contract**:
 * - The client is Effect's `Redis` service, built by `connect` (default: `@effect/platform-node`'s `NodeRedis` over
 *   node-redis, with node-redis' own reconnection switched off): the reconnection is ours, on a `Schedule`.
 * - A connection is up once the client answers and the replica is subscribed to `<prefix>events`. It is taken as
 *   lost when that subscription fails (node-redis fails it when the socket closes), or when a command fails and a
 *   `PING` then fails too. The client's scope is then closed, the status becomes `Disconnected`, and the supervisor
 *   tries again after the schedule's next delay (a fresh schedule after each connection).
 * - `use` never waits for a connection: while disconnected it fails at once with `RedisUnavailable`, and each
 *   command has a deadline (`commandTimeout`), so a replica never hangs on Redis.
 * - `publish(kind, body)` sends `{o: replica, k: kind, b: body}` on the channel; `events` gives the other replicas'
 *   messages (never this replica's own), and `Connected` after each (re)connection: messages sent while this
 *   replica was away are lost, so a consumer resynchronizes then.
 * - No status, error or log line holds the URL's password.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redis from "effect/persistence/Redis"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { RedisUnavailable } from "../GatewayError.ts"
import type { RedisOptions, Status } from "../internal/sharedState.ts"

/**
 * What the connection hears: another replica's message, or that it (re)connected.
 *
 * @since 0.1.0
 * @category models
 */
export type Event =
  | { readonly _tag: "Message"; readonly kind: string; readonly origin: string; readonly body: unknown }
  | { readonly _tag: "Connected" }

/**
 * The connection's operations.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** This replica's id (random, 11 characters): the origin of what it publishes. */
  readonly replica: string
  /** The prefix of every key and channel. */
  readonly prefix: string
  readonly status: SubscriptionRef.SubscriptionRef<Status>
  /** Runs commands on the connected client; fails at once with `RedisUnavailable` when there is none. */
  readonly use: <A>(
    operation: string,
    f: (redis: Redis.Redis["Service"]) => Effect.Effect<A, Redis.RedisError>
  ) => Effect.Effect<A, RedisUnavailable>
  /** Sends a message to the other replicas. */
  readonly publish: (kind: string, body: unknown) => Effect.Effect<void, RedisUnavailable>
  /** Subscribes now to the other replicas' messages and to `Connected` (take with `PubSub.take`). */
  readonly events: Effect.Effect<PubSub.Subscription<Event>, never, Scope.Scope>
}

/**
 * The connection service.
 *
 * @since 0.1.0
 * @category services
 */
export class RedisConnection extends Context.Service<RedisConnection, Service>()(
  "@mcp-fleet/gateway/redis/RedisConnection"
) {}

/**
 * How a client is built from the URL: a layer that fails with `RedisError` when it cannot connect.
 *
 * @since 0.1.0
 * @category models
 */
export type Connect = (url: string) => Layer.Layer<Redis.Redis, Redis.RedisError>

/**
 * The default reconnection: exponential from 100 ms, each delay capped at 5 s, jittered, for as long as the
 * replica runs.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultReconnect: Schedule.Schedule<unknown, string> = Schedule.min([
  Schedule.exponential("100 millis"),
  Schedule.spaced("5 seconds")
]).pipe(Schedule.jittered)

const Envelope = Schema.fromJsonString(Schema.Struct({ o: Schema.String, k: Schema.String, b: Schema.Unknown }))
const decodeEnvelope = Schema.decodeUnknownOption(Envelope)

const millis = (input: Duration.Input | undefined, fallback: number) =>
  input === undefined ? fallback : Math.max(1, Duration.toMillis(Duration.fromInputUnsafe(input)))

/** The text of a failure, without the URL's secrets. */
const reasonOf = (url: string) => {
  const secrets: Array<string> = [url]
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed !== undefined && parsed.password !== "") secrets.push(parsed.password, decodeURIComponent(parsed.password))
  return (cause: unknown): string => {
    let text = cause instanceof Redis.RedisError ? String(cause.cause) : String(cause)
    text = text.replace(/^Error: /, "")
    for (const secret of secrets) if (secret !== "") text = text.split(secret).join("<redacted>")
    return text.length > 200 ? `${text.slice(0, 200)}…` : text
  }
}

/**
 * Builds the connection and starts its supervisor (in the scope). Never waits for Redis: the status says where it
 * is. `connect` is required here; `RedisShared` passes `NodeRedis`'s.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  options: RedisOptions & { readonly connect: Connect }
): Effect.fn.Return<Service, never, Scope.Scope | SecureRandom.SecureRandom> {
  const url = Redacted.value(options.url)
  const reason = reasonOf(url)
  const prefix = options.prefix ?? "mcp-fleet:"
  const channel = `${prefix}events`
  const schedule = options.reconnect ?? defaultReconnect
  const connectTimeout = millis(options.connectTimeout, 5_000)
  const commandTimeout = millis(options.commandTimeout, 2_000)
  const replica = Base64Url.encode(yield* SecureRandom.SecureRandom.use((random) => random.randomBytes(8)))
  const status = yield* SubscriptionRef.make<Status>({
    _tag: "Connecting",
    attempt: 1,
    since: yield* Clock.currentTimeMillis
  })
  const events = yield* PubSub.unbounded<Event>()
  /** A command failed: the supervisor checks the connection. */
  const suspects = yield* Queue.sliding<void>(1)
  let current: Redis.Redis["Service"] | undefined

  const unavailable = (operation: string) =>
    Effect.flatMap(SubscriptionRef.get(status), (now) =>
      Effect.fail(
        new RedisUnavailable({
          operation,
          reason: now._tag === "Disconnected" ? `not connected (${now.reason})` : "not connected"
        })
      ))

  const use = <A>(operation: string, f: (redis: Redis.Redis["Service"]) => Effect.Effect<A, Redis.RedisError>) =>
    Effect.suspend(() => {
      const redis = current
      if (redis === undefined) return unavailable(operation)
      return f(redis).pipe(
        Effect.timeoutOrElse({
          duration: commandTimeout,
          orElse: () => Effect.fail(new Redis.RedisError({ cause: new Error(`no answer within ${commandTimeout} ms`) }))
        }),
        Effect.catch((error) =>
          Effect.andThen(
            Queue.offer(suspects, undefined),
            Effect.fail(new RedisUnavailable({ operation, reason: reason(error) }))
          )
        )
      )
    })

  /** One connection: resolves with why it ended, or fails with why it could not be made. */
  const session: Effect.Effect<string, string> = Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(options.connect(url)).pipe(
      Effect.timeoutOrElse({
        duration: connectTimeout,
        orElse: () =>
          Effect.fail(new Redis.RedisError({ cause: new Error(`no connection within ${connectTimeout} ms`) }))
      }),
      Effect.mapError(reason)
    )
    const redis = Context.get(context, Redis.Redis)
    const messages = yield* redis.subscribe(channel)
    yield* Queue.clear(suspects)
    current = redis
    yield* Effect.addFinalizer(() => Effect.sync(() => (current = undefined)))
    yield* SubscriptionRef.set(status, { _tag: "Connected", since: yield* Clock.currentTimeMillis })
    yield* PubSub.publish(events, { _tag: "Connected" })
    const listen = Effect.gen(function*() {
      while (true) {
        const message = yield* Queue.take(messages)
        const envelope = decodeEnvelope(message.message)
        if (envelope._tag === "None" || envelope.value.o === replica) continue
        yield* PubSub.publish(events, {
          _tag: "Message",
          kind: envelope.value.k,
          origin: envelope.value.o,
          body: envelope.value.b
        })
      }
    }).pipe(
      Effect.catch((error) =>
        Effect.succeed(error instanceof Redis.RedisError ? reason(error) : "the subscription ended")
      )
    )
    const check = Effect.gen(function*() {
      while (true) {
        yield* Queue.take(suspects)
        const ping = yield* Effect.exit(
          redis.send("PING").pipe(
            Effect.timeoutOrElse({
              duration: commandTimeout,
              orElse: () =>
                Effect.fail(new Redis.RedisError({ cause: new Error(`no PING answer within ${commandTimeout} ms`) }))
            })
          )
        )
        if (Exit.isFailure(ping)) {
          const failure = ping.cause.reasons.find((r) => r._tag === "Fail")
          return failure?._tag === "Fail" ? reason(failure.error) : "PING failed"
        }
      }
    })
    return yield* Effect.raceFirst(listen, check)
  }))

  const supervise = Effect.gen(function*() {
    let step = yield* Schedule.toStep(schedule)
    let attempt = 1
    while (true) {
      yield* SubscriptionRef.set(status, { _tag: "Connecting", attempt, since: yield* Clock.currentTimeMillis })
      const outcome = yield* Effect.result(session)
      if (Result.isSuccess(outcome)) {
        // A session that had connected starts a fresh schedule.
        step = yield* Schedule.toStep(schedule)
        attempt = 1
      } else {
        attempt++
      }
      const why = Result.isSuccess(outcome) ? `the connection dropped: ${outcome.success}` : outcome.failure
      const now = yield* Clock.currentTimeMillis
      yield* Effect.logWarning("Redis is unreachable; the replica serves what needs no shared state").pipe(
        Effect.annotateLogs({ reason: why, failedAttempts: attempt - 1 })
      )
      const next = yield* Effect.result(step(now, why))
      const failedAttempts = attempt - 1
      if (Result.isFailure(next)) {
        yield* SubscriptionRef.set(status, {
          _tag: "Disconnected",
          since: now,
          failedAttempts,
          reason: why,
          retryAt: undefined
        })
        return
      }
      const delay = Duration.toMillis(next.success[1])
      yield* SubscriptionRef.set(status, {
        _tag: "Disconnected",
        since: now,
        failedAttempts,
        reason: why,
        retryAt: now + delay
      })
      yield* Effect.sleep(delay)
    }
  })
  yield* Effect.forkScoped(supervise)

  const publish = (kind: string, body: unknown) =>
    use(`publish ${kind}`, (redis) => redis.send("PUBLISH", channel, JSON.stringify({ o: replica, k: kind, b: body })))
      .pipe(Effect.asVoid)

  return { replica, prefix, status, use, publish, events: PubSub.subscribe(events) }
})

/**
 * The connection as a layer (see {@link make}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: RedisOptions & { readonly connect: Connect }
): Layer.Layer<RedisConnection, never, SecureRandom.SecureRandom> => Layer.effect(RedisConnection, make(options))
