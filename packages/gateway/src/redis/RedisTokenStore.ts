/**
 * A `TokenStore` in Redis: an upstream authorized once is authorized on every replica, and a refresh is
 * single-flight across replicas.
 *
 * **Contract**:
 * - **Per entry**, as the file store: each server's tokens are the key `<prefix>tokens:<resource>` and each
 *   issuer's client `<prefix>clients:<issuer>`, JSON in the file store's shape, decoded on their own. An entry that
 *   does not decode is treated as absent with a warning naming its server (or issuer), once; the others are unaffected,
 *   and the next write replaces it.
 * - **Zero round trips on the call path**: what a replica read is kept in memory and dropped when another replica
 *   writes the entry (a message on the connection's channel). A read that raced such a message is not kept. After a
 *   reconnection everything kept is dropped (messages may have been missed).
 * - **Single-flight refresh** (`exclusive`, which `McpAuth` refreshes inside): a lock `<prefix>lock:<resource>`
 *   (`SET NX PX lockTtl`, released by a compare-and-delete script, so only its holder releases it). A replica that
 *   finds it held waits for the holder's release message (or the lock's expiry, at most `lockTtl`), then takes it
 *   and reads the store again: it finds the refreshed tokens, so one token request is made per expiry, not one per
 *   replica. The lock's TTL bounds a holder that died.
 * - **Degraded** (Redis unreachable): reads answer what this replica last read or wrote; writes are kept on this
 *   replica only (with a warning) and not written later; `exclusive` runs without the cross-replica lock. The
 *   replica keeps working with the tokens it has.
 * - No token or secret appears in a log line or an error.
 *
 * @since 0.1.0
 */
import { TokenStore } from "@mcp-fleet/auth"
import * as Clock from "effect/Clock"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Option from "effect/Option"
import * as Redis from "effect/persistence/Redis"
import * as PubSub from "effect/PubSub"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as RedisConnection from "./RedisConnection.ts"

type Tokens = TokenStore.Tokens
type ClientCredentials = TokenStore.ClientCredentials

/**
 * The file store's entry (`FileTokenStore`), with the fields of a DPoP-bound token (`tokenType`, `dpopKey`: the proof
 * key a DPoP token is of no use without), read from `Tokens` when they are there, so that no field is lost between
 * replicas.
 */
const StoredTokens = Schema.Struct({
  issuer: Schema.String,
  accessToken: Schema.String,
  refreshToken: Schema.optionalKey(Schema.String),
  expiresAt: Schema.optionalKey(Schema.Finite),
  obtainedAt: Schema.Finite,
  scope: Schema.optionalKey(Schema.String),
  tokenType: Schema.optionalKey(Schema.Literal("DPoP")),
  dpopKey: Schema.optionalKey(Schema.String)
})

const StoredClient = Schema.Struct({
  issuer: Schema.String,
  clientId: Schema.String,
  clientSecret: Schema.optionalKey(Schema.String),
  authMethod: Schema.Literals(["client_secret_basic", "client_secret_post", "none"]),
  source: Schema.Literals(["pre-registered", "metadata-document", "dynamic"])
})

const decodeTokens = Schema.decodeUnknownOption(Schema.fromJsonString(StoredTokens))
const decodeClient = Schema.decodeUnknownOption(Schema.fromJsonString(StoredClient))

const toTokens = (t: typeof StoredTokens.Type): Tokens => ({
  issuer: t.issuer,
  accessToken: Redacted.make(t.accessToken),
  refreshToken: t.refreshToken === undefined ? undefined : Redacted.make(t.refreshToken),
  expiresAt: t.expiresAt,
  obtainedAt: t.obtainedAt,
  scope: t.scope,
  ...(t.tokenType === undefined ? {} : { tokenType: t.tokenType }),
  ...(t.dpopKey === undefined ? {} : { dpopKey: Redacted.make(t.dpopKey) })
})

/** The DPoP fields of `tokens`, where its `Tokens` type has them. */
const dpopOf = (t: Tokens): { readonly tokenType?: "DPoP"; readonly dpopKey?: string } => {
  const tokenType = "tokenType" in t && t.tokenType === "DPoP" ? "DPoP" : undefined
  const dpopKey = "dpopKey" in t && Redacted.isRedacted(t.dpopKey) ? t.dpopKey : undefined
  const key = dpopKey === undefined ? undefined : Redacted.value(dpopKey)
  return {
    ...(tokenType === undefined ? {} : { tokenType }),
    ...(typeof key === "string" ? { dpopKey: key } : {})
  }
}

const fromTokens = (t: Tokens): typeof StoredTokens.Type => ({
  issuer: t.issuer,
  accessToken: Redacted.value(t.accessToken),
  ...(t.refreshToken === undefined ? {} : { refreshToken: Redacted.value(t.refreshToken) }),
  ...(t.expiresAt === undefined || !Number.isFinite(t.expiresAt) ? {} : { expiresAt: t.expiresAt }),
  obtainedAt: t.obtainedAt,
  ...(t.scope === undefined ? {} : { scope: t.scope }),
  ...dpopOf(t)
})

const toClient = (c: typeof StoredClient.Type): ClientCredentials => ({
  issuer: c.issuer,
  clientId: c.clientId,
  clientSecret: c.clientSecret === undefined ? undefined : Redacted.make(c.clientSecret),
  authMethod: c.authMethod,
  source: c.source
})

const fromClient = (c: ClientCredentials): typeof StoredClient.Type => ({
  issuer: c.issuer,
  clientId: c.clientId,
  ...(c.clientSecret === undefined ? {} : { clientSecret: Redacted.value(c.clientSecret) }),
  authMethod: c.authMethod,
  source: c.source
})

/** `SET key value` (or `DEL key` when value is empty) and `PUBLISH channel message`, in one round trip. */
const writeAndTell = Redis.script(
  (key: string, channel: string, value: string, message: string) => [key, channel, value, message],
  {
    numberOfKeys: 2,
    lua: `if ARGV[1] == "" then redis.call("DEL", KEYS[1]) else redis.call("SET", KEYS[1], ARGV[1]) end
redis.call("PUBLISH", KEYS[2], ARGV[2])
return 1`
  }
).withReturnType<number>()

/** Deletes the lock only if this holder's token is still in it, and tells the waiters. */
const release = Redis.script(
  (key: string, channel: string, token: string, message: string) => [key, channel, token, message],
  {
    numberOfKeys: 2,
    lua: `if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("DEL", KEYS[1])
  redis.call("PUBLISH", KEYS[2], ARGV[2])
  return 1
end
return 0`
  }
).withReturnType<number>()

const TokensMessage = Schema.Struct({ resource: Schema.String })
const ClientsMessage = Schema.Struct({ issuer: Schema.String })
const isTokensMessage = Schema.is(TokensMessage)
const isClientsMessage = Schema.is(ClientsMessage)

/**
 * The options of {@link make}.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** How long a refresh holds the lock at most. Default 45 seconds (the token request's own deadline is 30). */
  readonly lockTtl?: Duration.Input | undefined
}

/** A read-through cache of one kind of entry, dropped entry by entry on another replica's write. */
const makeEntries = <A>() => {
  /** What is known to be in Redis now (while connected and subscribed). */
  const fresh = new Map<string, Option.Option<A>>()
  /** What this replica last read or wrote: the answer while Redis is unreachable. */
  const last = new Map<string, Option.Option<A>>()
  /** Bumped by every invalidation: a read that saw a bump while in flight is not kept. */
  const generations = new Map<string, number>()
  let epoch = 0
  return {
    fresh,
    last,
    stamp: (key: string) => `${epoch}:${generations.get(key) ?? 0}`,
    invalidate: (key: string) => {
      fresh.delete(key)
      generations.set(key, (generations.get(key) ?? 0) + 1)
    },
    clear: () => {
      fresh.clear()
      generations.clear()
      epoch++
    }
  }
}

/**
 * Builds the store over a connection (scoped: it listens to the other replicas' writes).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  connection: RedisConnection.Service,
  options: Options = {}
): Effect.fn.Return<TokenStore.TokenStore["Service"], never, Scope.Scope | SecureRandom.SecureRandom> {
  const random = yield* SecureRandom.SecureRandom
  const { prefix, replica } = connection
  const channel = `${prefix}events`
  const lockTtl = options.lockTtl === undefined
    ? 45_000
    : Math.max(1, Duration.toMillis(Duration.fromInputUnsafe(options.lockTtl)))
  const tokens = makeEntries<Tokens>()
  const clients = makeEntries<ClientCredentials>()
  /** Releases seen, by resource: waiters wake on them. */
  const unlocked = yield* PubSub.unbounded<string>()
  const warned = new Set<string>()

  const warnOnce = (what: string, message: string, annotations: Record<string, unknown>) =>
    warned.has(what)
      ? Effect.void
      : Effect.andThen(
        Effect.sync(() => warned.add(what)),
        Effect.logWarning(message).pipe(Effect.annotateLogs(annotations))
      )

  // The other replicas' writes and releases, and reconnections.
  const events = yield* connection.events
  yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
    const event = yield* PubSub.take(events)
    if (event._tag === "Connected") {
      tokens.clear()
      clients.clear()
      return
    }
    if (event.kind === "tokens" && isTokensMessage(event.body)) tokens.invalidate(event.body.resource)
    else if (event.kind === "clients" && isClientsMessage(event.body)) clients.invalidate(event.body.issuer)
    else if (event.kind === "unlocked" && isTokensMessage(event.body)) {
      yield* PubSub.publish(unlocked, event.body.resource)
    }
  })))

  /** Reads an entry: memory when fresh, else Redis; while Redis is unreachable, what this replica last saw. */
  const read = <A>(
    entries: ReturnType<typeof makeEntries<A>>,
    key: string,
    redisKey: string,
    decode: (text: string) => Option.Option<A>,
    label: string
  ) =>
    Effect.gen(function*() {
      const known = entries.fresh.get(key)
      if (known !== undefined) return known
      const stamp = entries.stamp(key)
      const text = yield* connection.use(`read ${label}`, (redis) => redis.send<string | null>("GET", redisKey)).pipe(
        Effect.map((value): Option.Option<string> => (value === null ? Option.none() : Option.some(value))),
        Effect.result
      )
      if (text._tag === "Failure") {
        yield* warnOnce(
          `down:${label}:${key}`,
          "Redis is unreachable; what this replica last saw of the entry is used",
          {
            entry: label,
            reason: text.failure.reason
          }
        )
        return entries.last.get(key) ?? Option.none()
      }
      let value: Option.Option<A> = Option.none()
      if (Option.isSome(text.success)) {
        value = decode(text.success.value)
        if (Option.isNone(value)) {
          yield* warnOnce(
            `corrupt:${label}:${key}`,
            `The shared token store could not decode ${label}; that entry was dropped`,
            {}
          )
        }
      }
      if (entries.stamp(key) === stamp) entries.fresh.set(key, value)
      entries.last.set(key, value)
      return value
    })

  /** Writes (or, with `undefined`, deletes) an entry and tells the other replicas. */
  const write = <A>(
    entries: ReturnType<typeof makeEntries<A>>,
    key: string,
    redisKey: string,
    kind: "tokens" | "clients",
    body: Record<string, string>,
    value: A | undefined,
    encoded: string,
    label: string
  ) =>
    Effect.gen(function*() {
      entries.invalidate(key)
      const stamp = entries.stamp(key)
      entries.last.set(key, value === undefined ? Option.none() : Option.some(value))
      const message = JSON.stringify({ o: replica, k: kind, b: body })
      const written = yield* connection.use(`write ${label}`, (redis) =>
        redis.eval(writeAndTell)(redisKey, channel, encoded, message)).pipe(
          Effect.result
        )
      if (written._tag === "Failure") {
        yield* Effect.logWarning("Redis is unreachable; the change is kept on this replica only").pipe(
          Effect.annotateLogs({ entry: label, reason: written.failure.reason })
        )
        return
      }
      warned.delete(`down:${label}:${key}`)
      warned.delete(`corrupt:${label}:${key}`)
      // Kept unless another replica's write was announced meanwhile.
      if (entries.stamp(key) === stamp) {
        entries.fresh.set(key, value === undefined ? Option.none() : Option.some(value))
      }
    })

  const tokensKey = (resource: string) => `${prefix}tokens:${resource}`
  const clientsKey = (issuer: string) => `${prefix}clients:${issuer}`
  const lockKey = (resource: string) => `${prefix}lock:${resource}`

  /** Waits until the lock is free to try again: its holder's release message, or its remaining time at most. */
  const awaitRelease = (resource: string, subscription: PubSub.Subscription<string>) =>
    Effect.gen(function*() {
      const remaining = yield* connection.use("read the refresh lock's time", (redis) =>
        redis.send<number>("PTTL", lockKey(resource))).pipe(Effect.orElseSucceed(() =>
          lockTtl
        ))
      const woken = Effect.gen(function*() {
        while ((yield* PubSub.take(subscription)) !== resource) {
          // another resource's release
        }
      })
      yield* Effect.raceFirst(woken, Effect.sleep(Math.max(1, Math.min(remaining < 0 ? 1 : remaining, lockTtl))))
    })

  const exclusive = <A, E, R>(resource: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.scoped(Effect.gen(function*() {
      const token = Base64Url.encode(yield* random.randomBytes(16))
      const subscription = yield* PubSub.subscribe(unlocked)
      const start = yield* Clock.currentTimeMillis
      let held = false
      while (true) {
        const taken = yield* connection.use(
          "take the refresh lock",
          (redis) => redis.send<string | null>("SET", lockKey(resource), token, "NX", "PX", String(lockTtl))
        ).pipe(Effect.result)
        if (taken._tag === "Failure") {
          yield* Effect.logWarning("Redis is unreachable; this refresh is not single-flight across replicas").pipe(
            Effect.annotateLogs({ reason: taken.failure.reason })
          )
          break
        }
        if (taken.success === "OK") {
          held = true
          break
        }
        // Bounded: a lock is never extended, so it is free within lockTtl; past twice that, go on without it.
        if ((yield* Clock.currentTimeMillis) - start > 2 * lockTtl) {
          yield* Effect.logWarning("The refresh lock stayed taken past twice its TTL; this refresh goes on without it")
          break
        }
        yield* awaitRelease(resource, subscription)
      }
      if (held) {
        // Released by its holder only; the other replicas hear it on the channel, the waiters of this one (another
        // McpAuth over this store) here.
        yield* Effect.addFinalizer(() =>
          connection.use("release the refresh lock", (redis) =>
            redis.eval(release)(
              lockKey(resource),
              channel,
              token,
              JSON.stringify({ o: replica, k: "unlocked", b: { resource } })
            )).pipe(Effect.ignore, Effect.andThen(PubSub.publish(unlocked, resource)))
        )
      }
      // What is kept may be older than what the last holder wrote: read it again.
      tokens.invalidate(resource)
      return yield* effect
    }))

  return TokenStore.TokenStore.of({
    getTokens: (resource) =>
      read(
        tokens,
        resource,
        tokensKey(resource),
        (text) => Option.map(decodeTokens(text), toTokens),
        `the tokens of ${resource}`
      ),
    setTokens: (resource, value) =>
      write(
        tokens,
        resource,
        tokensKey(resource),
        "tokens",
        { resource },
        value,
        JSON.stringify(fromTokens(value)),
        `the tokens of ${resource}`
      ),
    removeTokens: (resource) =>
      write(tokens, resource, tokensKey(resource), "tokens", { resource }, undefined, "", `the tokens of ${resource}`),
    getClient: (issuer) =>
      read(
        clients,
        issuer,
        clientsKey(issuer),
        (text) => Option.map(decodeClient(text), toClient),
        `the client registration at ${issuer}`
      ),
    setClient: (issuer, value) =>
      write(
        clients,
        issuer,
        clientsKey(issuer),
        "clients",
        { issuer },
        value,
        JSON.stringify(fromClient(value)),
        `the client registration at ${issuer}`
      ),
    exclusive
  })
})
