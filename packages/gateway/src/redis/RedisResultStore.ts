/**
 * The large-result store's entries in Redis (a `ResultStore.Backing`), so that a `fleet://results/<id>` link given
 * by one replica is read from any replica.
 *
 * **Contract**:
 * - An entry is the hash `<prefix>results:<id>` (`n`: its page count, `p1` … `pN`: its pages, split by the
 *   store), with a TTL in Redis (`PEXPIRE`). The index `<prefix>results` (a sorted set by expiry) and the sizes
 *   `<prefix>results:sizes` keep the bounds for all replicas together: a put drops expired entries, then the
 *   oldest, until `maxEntries` and `maxChars` hold, in one script (atomic).
 * - Reading a page is one round trip (a script: the entry's expiry in the index by the replica's `Clock`, then
 *   `HMGET` of `n` and the page), and only that page crosses the network. Redis drops the hash itself at its TTL.
 * - **Degraded** (Redis unreachable): a put is kept in this replica's memory (with a warning), so a host that
 *   reads back through the same replica still gets it; a read looks in that memory first. Other replicas answer
 *   `ResultNotFound` for it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redis from "effect/persistence/Redis"
import * as ResultStore from "../ResultStore.ts"
import type * as RedisConnection from "./RedisConnection.ts"

const DROP_EXPIRED = `local expired = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", ARGV[1])
for _, old in ipairs(expired) do
  redis.call("DEL", ARGV[2] .. old)
  redis.call("HDEL", KEYS[2], old)
  redis.call("ZREM", KEYS[1], old)
end`

/** KEYS: entry, index, sizes. ARGV: now, ttl, maxEntries, maxChars, id, chars, entry key prefix, pages... */
const put = Redis.script(
  (
    keys: { readonly entry: string; readonly index: string; readonly sizes: string; readonly base: string },
    now: number,
    bounds: ResultStore.Bounds,
    id: string,
    chars: number,
    pages: ReadonlyArray<string>
  ) => [
    keys.entry,
    keys.index,
    keys.sizes,
    now,
    bounds.ttlMillis,
    bounds.maxEntries,
    bounds.maxChars,
    id,
    chars,
    keys.base,
    ...pages
  ],
  {
    numberOfKeys: 3,
    lua: `local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local maxEntries = tonumber(ARGV[3])
local maxChars = tonumber(ARGV[4])
local id = ARGV[5]
local chars = tonumber(ARGV[6])
local base = ARGV[7]
local expired = redis.call("ZRANGEBYSCORE", KEYS[2], "-inf", now)
for _, old in ipairs(expired) do
  redis.call("DEL", base .. old)
  redis.call("HDEL", KEYS[3], old)
  redis.call("ZREM", KEYS[2], old)
end
local count = redis.call("ZCARD", KEYS[2])
local total = 0
for _, v in ipairs(redis.call("HVALS", KEYS[3])) do total = total + tonumber(v) end
while count > 0 and (count + 1 > maxEntries or total + chars > maxChars) do
  local oldest = redis.call("ZRANGE", KEYS[2], 0, 0)[1]
  total = total - tonumber(redis.call("HGET", KEYS[3], oldest) or "0")
  redis.call("DEL", base .. oldest)
  redis.call("HDEL", KEYS[3], oldest)
  redis.call("ZREM", KEYS[2], oldest)
  count = count - 1
end
redis.call("DEL", KEYS[1])
redis.call("HSET", KEYS[1], "n", #ARGV - 7)
for i = 8, #ARGV do redis.call("HSET", KEYS[1], "p" .. (i - 7), ARGV[i]) end
redis.call("PEXPIRE", KEYS[1], ttl)
redis.call("ZADD", KEYS[2], now + ttl, id)
redis.call("HSET", KEYS[3], id, chars)
return 1`
  }
).withReturnType<number>()

/** KEYS: entry, index. ARGV: now, id, page field. The entry's page count and the page, or nil when expired. */
const pageScript = Redis.script(
  (entry: string, index: string, now: number, id: string, field: string) => [entry, index, now, id, field],
  {
    numberOfKeys: 2,
    lua: `local expiresAt = redis.call("ZSCORE", KEYS[2], ARGV[2])
if not expiresAt or tonumber(expiresAt) <= tonumber(ARGV[1]) then return nil end
return redis.call("HMGET", KEYS[1], "n", ARGV[3])`
  }
).withReturnType<[string | null, string | null] | null>()

/** KEYS: index, sizes. ARGV: now, entry key prefix. Drops expired entries; answers { count, chars }. */
const size = Redis.script(
  (index: string, sizes: string, now: number, base: string) => [index, sizes, now, base],
  {
    numberOfKeys: 2,
    lua: `${DROP_EXPIRED}
local total = 0
for _, v in ipairs(redis.call("HVALS", KEYS[2])) do total = total + tonumber(v) end
return { redis.call("ZCARD", KEYS[1]), total }`
  }
).withReturnType<[number, number]>()

/**
 * The backing over a connection, with this replica's memory for when Redis is unreachable.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  connection: RedisConnection.Service,
  bounds: ResultStore.Bounds
) {
  const local = yield* ResultStore.memory(bounds)
  const base = `${connection.prefix}results:`
  const index = `${connection.prefix}results`
  const sizes = `${connection.prefix}results:sizes`

  const backing: ResultStore.Backing = {
    put: (id, entry, now) =>
      Effect.gen(function*() {
        const pages = entry.pages.map((start, i) => entry.text.slice(start, entry.pages[i + 1] ?? entry.text.length))
        const stored = yield* connection.use(
          "store a large result",
          (redis) =>
            redis.eval(put)(
              { entry: `${base}${id}`, index, sizes, base },
              now,
              bounds,
              id,
              entry.text.length,
              pages
            )
        ).pipe(Effect.result)
        if (stored._tag === "Success") return true
        yield* Effect.logWarning("Redis is unreachable; a large result is kept on this replica only").pipe(
          Effect.annotateLogs({ reason: stored.failure.reason })
        )
        return yield* local.put(id, entry, now)
      }),
    page: (id, n, now) =>
      Effect.gen(function*() {
        const mine = yield* local.page(id, n, now)
        if (mine !== undefined) return mine
        const found = yield* connection.use(
          "read a large result",
          (redis) => redis.eval(pageScript)(`${base}${id}`, index, now, id, `p${n}`)
        ).pipe(Effect.result)
        if (found._tag === "Failure") {
          yield* Effect.logWarning("Redis is unreachable; a large result kept there cannot be read now").pipe(
            Effect.annotateLogs({ reason: found.failure.reason })
          )
          return undefined
        }
        if (found.success === null) return undefined
        const [count, text] = found.success
        if (count === null) return undefined
        return { text: text ?? undefined, pages: Number(count) }
      }),
    size: (now) =>
      connection.use("count the large results", (redis) => redis.eval(size)(index, sizes, now, base)).pipe(
        Effect.map(([entries, chars]) => ({ entries: Number(entries), chars: Number(chars) })),
        Effect.catch(() => local.size(now))
      )
  }
  return backing
})
