/**
 * The 2026-07-28 caching hints of list results (`ttlMs`, `cacheScope`): a listed result is kept for `ttlMs` and a
 * repeated list within that time is answered from here, without a request. Nothing is ever fetched in the
 * background: an expired entry is only dropped, and the next list asks the server. A list_changed notification
 * drops its list at once (a `subscriptions/listen` acknowledgement drops them all), and a list whose fetch overlapped
 * such a drop is not kept (it may predate the change).
 * A list of several pages is kept for the smallest `ttlMs` of its pages; no hint, or `ttlMs` 0, keeps nothing.
 * `cacheScope` (`server/utilities/caching`): a `private` result "MAY be reused for the same authorization context"
 * and a cache "MUST NOT be shared across authorization contexts (e.g. a different access token requires a different
 * cache)". Every cache here belongs to one session, whose authorization context changes when the credentials its
 * transport would send change (`McpAuth` refreshed or replaced the token; read before each lookup): a `private` list
 * (one private page makes the list private) is kept under the context it was fetched in, and never served in another.
 * A `public` list, or one without `cacheScope` (the SEP's default), is served whatever the credentials.
 * A session keeps one `Group`: a cache per kind of list (each keeps its own type), one set of counters, and one
 * `observe` that drops what a notification invalidates in each.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** A result's caching hint. */
export interface Hint {
  readonly ttlMs: number
  /** `cacheScope: "private"`: only for the authorization context it was fetched in. */
  readonly private?: true | undefined
}

/** The start of a fetch, for `put`: what invalidated the list since, and the authorization context it runs in. */
export interface Token {
  readonly generation: number
  readonly context: number
}

/** What a session says about its list cache (in its stats). */
export interface Stats {
  /** Lists answered from the cache. */
  readonly hits: number
  /** Lists fetched from the server. */
  readonly misses: number
  /** Whether the last answer of each list method came from the cache. */
  readonly lastFromCache: Readonly<Record<string, boolean>>
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The hint of one raw result: a non-negative finite `ttlMs`, else none. */
export const hintOf = (raw: unknown): Hint | undefined => {
  if (!isRecord(raw)) return undefined
  const ttl = raw.ttlMs
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl < 0) return undefined
  return raw.cacheScope === "private" ? { ttlMs: ttl, private: true } : { ttlMs: ttl }
}

/** The hint of a list of pages: the smallest, and none as soon as one page has none. */
export const combine = (a: Hint | undefined | null, b: Hint | undefined): Hint | undefined => {
  if (a === null) return b
  if (a === undefined || b === undefined) return undefined
  const ttlMs = Math.min(a.ttlMs, b.ttlMs)
  return a.private === true || b.private === true ? { ttlMs, private: true } : { ttlMs }
}

/**
 * The list methods each notification invalidates. A listen's acknowledgement is a start: what changed while no
 * stream was open was not seen, so it drops every list.
 */
export const invalidatedBy: Readonly<Record<string, ReadonlyArray<string>>> = {
  "notifications/subscriptions/acknowledged": [
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list"
  ],
  "notifications/tools/list_changed": ["tools/list"],
  "notifications/prompts/list_changed": ["prompts/list"],
  "notifications/resources/list_changed": ["resources/list", "resources/templates/list"]
}

interface Entry<A> {
  readonly value: A
  readonly expiresAt: number
  /** The authorization context of a private list; `undefined` for a public one. */
  readonly context: number | undefined
}

/** A session's cache of lists of type `A` (one instance per kind of list, so each keeps its own type). */
export interface ListCache<A> {
  /** The authorization context now (see `group`). */
  readonly context: Effect.Effect<number>
  /**
   * The cached value of `method` if still fresh at `now` and, when private, fetched in authorization `context`
   * (counted as a hit), else undefined.
   */
  readonly get: (method: string, now: number, context?: number) => A | undefined
  /** Marks the start of a fetch of `method` in authorization `context`; pass the token to `put`. */
  readonly begin: (method: string, context?: number) => Token
  /**
   * Keeps `value` for `hint.ttlMs` from `now` (a private one under the token's authorization context), unless an
   * invalidation happened since `begin` (counted as a miss).
   */
  readonly put: (method: string, token: Token, value: A, hint: Hint | undefined, now: number) => void
  /** Drops what a notification invalidates. */
  readonly observe: (notificationMethod: string) => void
  readonly stats: () => Stats
}

/** The counters a group of caches shares. */
interface Counters {
  hits: number
  misses: number
  readonly lastFromCache: Record<string, boolean>
}

const member = <A>(counters: Counters, context: Effect.Effect<number>): ListCache<A> => {
  const entries = new Map<string, Entry<A>>()
  const generations = new Map<string, number>()
  return {
    context,
    get: (method, now, current = 0) => {
      const entry = entries.get(method)
      if (entry === undefined) return undefined
      if (now >= entry.expiresAt || (entry.context !== undefined && entry.context !== current)) {
        entries.delete(method)
        return undefined
      }
      counters.hits += 1
      counters.lastFromCache[method] = true
      return entry.value
    },
    begin: (method, current = 0) => ({ generation: generations.get(method) ?? 0, context: current }),
    put: (method, token, value, hint, now) => {
      counters.misses += 1
      counters.lastFromCache[method] = false
      if (hint === undefined || hint.ttlMs <= 0 || (generations.get(method) ?? 0) !== token.generation) return
      entries.set(method, {
        value,
        expiresAt: now + hint.ttlMs,
        context: hint.private === true ? token.context : undefined
      })
    },
    observe: (notificationMethod) => {
      for (const method of invalidatedBy[notificationMethod] ?? []) {
        entries.delete(method)
        generations.set(method, (generations.get(method) ?? 0) + 1)
      }
    },
    stats: () => ({ hits: counters.hits, misses: counters.misses, lastFromCache: { ...counters.lastFromCache } })
  }
}

const emptyCounters = (): Counters => ({ hits: 0, misses: 0, lastFromCache: {} })

/** One authorization context for a cache's whole life. */
const single: Effect.Effect<number> = Effect.succeed(0)

/**
 * An empty cache; `context` reads the session's authorization context (a number that changes when the credentials
 * the transport would send change; default: one context for the cache's life).
 */
export const make = <A>(context: Effect.Effect<number> = single): ListCache<A> => member(emptyCounters(), context)

/** A session's caches: one per kind of list, sharing counters and invalidation. */
export interface Group {
  /** A new cache of the group (its hits and misses count in the group's stats). */
  readonly cache: <A>() => ListCache<A>
  /** Drops what a notification invalidates, in every cache of the group. */
  readonly observe: (notificationMethod: string) => void
  readonly stats: () => Stats
}

/** An empty group, whose caches read the authorization context from `context` (see `make`). */
export const group = (context: Effect.Effect<number> = single): Group => {
  const counters = emptyCounters()
  // What each member drops on a notification (its `observe`).
  const observers: Array<(notificationMethod: string) => void> = []
  return {
    cache: <A>() => {
      const cache = member<A>(counters, context)
      observers.push(cache.observe)
      return cache
    },
    observe: (notificationMethod) => {
      for (const observe of observers) observe(notificationMethod)
    },
    stats: () => ({ hits: counters.hits, misses: counters.misses, lastFromCache: { ...counters.lastFromCache } })
  }
}

/**
 * `fetch` through `cache` under `method` at `now()`: a fresh entry answers without a request; otherwise `fetch` runs
 * with `seen`, which every raw page passes through (its hint is read), and the result is kept for the pages' hint.
 */
export const through = <A, E, R>(
  cache: ListCache<A>,
  method: string,
  now: () => number,
  fetch: (seen: <T>(raw: T) => T) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.flatMap(cache.context, (context) => {
    const cached = cache.get(method, now(), context)
    if (cached !== undefined) return Effect.succeed(cached)
    const token = cache.begin(method, context)
    // The smallest `ttlMs` of the pages (null: no page seen yet).
    let hint: Hint | undefined | null = null
    const seen = <T>(raw: T): T => {
      hint = combine(hint, hintOf(raw))
      return raw
    }
    return Effect.map(fetch(seen), (value) => {
      cache.put(method, token, value, hint ?? undefined, now())
      return value
    })
  })
