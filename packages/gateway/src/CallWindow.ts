/**
 * The tool calls hosts made through the gateway, over a sliding window: per tool, how many, how many failed, and the
 * latency's p50 and p99; per server, the same in time buckets for the status page's chart.
 *
 * Bounded three ways: samples older than `windowMs` are ignored and dropped; each tool keeps at most its last
 * `maxSamples` (a ring, so p99 is over at most that many calls); at most `maxTools` tools are tracked (a new one
 * evicts the tool called least recently). Times are the caller's (`Clock` through `timed`), so `TestClock` drives it.
 *
 * Figures are computed again only for what changed: a tool's (a server's) are kept until it gets a call or its oldest
 * call in the window leaves it. Every page reads the same window, so they share that work too.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

/**
 * The window's bounds.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How far back the statistics look (default 5 minutes). */
  readonly windowMs: number
  /** Samples kept per tool (default 1,024). */
  readonly maxSamples: number
  /** Tools tracked at once (default 512). */
  readonly maxTools: number
  /** The width of one bucket of the per-server series (default 10 s). */
  readonly bucketMs: number
}

/**
 * The defaults: 5 minutes, 1,024 samples per tool, 512 tools, 10 s buckets.
 *
 * @since 0.1.0
 * @category options
 */
export const defaults: Options = { windowMs: 5 * 60_000, maxSamples: 1_024, maxTools: 512, bucketMs: 10_000 }

/**
 * One tool's figures over the window.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolStats {
  readonly server: string
  readonly tool: string
  readonly calls: number
  readonly errors: number
  /** Milliseconds, nearest rank; `undefined` without calls. */
  readonly p50Ms: number | undefined
  readonly p99Ms: number | undefined
  /** When the last call ended (Clock milliseconds). */
  readonly lastAt: number
}

/**
 * One bucket of a server's series: the calls that ended in `[start, start + bucketMs)`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Bucket {
  readonly start: number
  readonly calls: number
  readonly errors: number
  readonly p50Ms: number
  readonly p99Ms: number
}

/**
 * The window.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallWindow {
  readonly options: Options
  /** Records one call that ended at `at` after `ms` milliseconds. */
  readonly record: (server: string, tool: string, at: number, ms: number, error: boolean) => void
  /** Runs `effect` as a call of `server`'s `tool` and records it when it ends (not when it is interrupted). */
  readonly timed: <A, E, R>(
    server: string,
    tool: string,
    effect: Effect.Effect<A, E, R>,
    failed: (value: A) => boolean
  ) => Effect.Effect<A, E, R>
  /** Every tool with a call in the window at `now`, by server then tool. */
  readonly tools: (now: number) => ReadonlyArray<ToolStats>
  /** Each server's buckets with calls in the window at `now`, oldest first. */
  readonly series: (now: number) => ReadonlyMap<string, ReadonlyArray<Bucket>>
  /** Counts every record: two equal versions read the same samples. */
  readonly version: () => number
}

interface Ring {
  readonly server: string
  readonly tool: string
  readonly at: Array<number>
  readonly ms: Array<number>
  readonly error: Array<boolean>
  /** Where the next sample goes once the ring is full. */
  next: number
  lastAt: number
  /** The window's version at this tool's last record. */
  version: number
  /** Its figures, valid for `version` until `validUntil` (when its oldest call in the window leaves it). */
  cached: { readonly version: number; readonly validUntil: number; readonly stats: ToolStats } | undefined
}

interface SeriesCache {
  /** The versions of the server's tools the buckets were built from. */
  readonly signature: string
  readonly validUntil: number
  readonly buckets: ReadonlyArray<Bucket>
}

/**
 * The value at quantile `q` of ascending `sorted` (nearest rank).
 *
 * @since 0.1.0
 * @category math
 */
export const quantile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!

const ascending = (a: number, b: number) => a - b

/**
 * An empty window.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (overrides: Partial<Options> = {}): CallWindow => {
  const options: Options = { ...defaults, ...overrides }
  const rings = new Map<string, Ring>()
  const seriesCache = new Map<string, SeriesCache>()
  let version = 0

  const evictOldest = () => {
    let oldest: string | undefined
    let oldestAt = Number.POSITIVE_INFINITY
    for (const [key, ring] of rings) {
      if (ring.lastAt < oldestAt) {
        oldest = key
        oldestAt = ring.lastAt
      }
    }
    if (oldest !== undefined) rings.delete(oldest)
  }

  const record = (server: string, tool: string, at: number, ms: number, error: boolean) => {
    const key = `${server}\u0000${tool}`
    let ring = rings.get(key)
    if (ring === undefined) {
      if (rings.size >= options.maxTools) evictOldest()
      ring = { server, tool, at: [], ms: [], error: [], next: 0, lastAt: at, version: 0, cached: undefined }
      rings.set(key, ring)
    }
    if (ring.at.length < options.maxSamples) {
      ring.at.push(at)
      ring.ms.push(ms)
      ring.error.push(error)
    } else {
      ring.at[ring.next] = at
      ring.ms[ring.next] = ms
      ring.error[ring.next] = error
      ring.next = (ring.next + 1) % options.maxSamples
    }
    ring.lastAt = Math.max(ring.lastAt, at)
    // One counter for every tool: a version is never reused, even by a tool evicted and called again.
    ring.version = ++version
  }

  /** The rings with a sample in the window; the others are dropped. */
  const live = (now: number): Array<Ring> => {
    const from = now - options.windowMs
    const kept: Array<Ring> = []
    for (const [key, ring] of rings) {
      if (ring.lastAt <= from) rings.delete(key)
      else kept.push(ring)
    }
    return kept.sort((a, b) =>
      a.server < b.server ? -1 : a.server > b.server ? 1 : a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0
    )
  }

  /** When the oldest of `ring`'s calls in the window (from `from`) leaves it. */
  const validUntil = (ring: Ring, from: number) => {
    let oldest = Number.POSITIVE_INFINITY
    for (const at of ring.at) if (at > from && at < oldest) oldest = at
    return oldest + options.windowMs
  }

  const statsOf = (ring: Ring, now: number): ToolStats => {
    const cached = ring.cached
    if (cached !== undefined && cached.version === ring.version && now < cached.validUntil) return cached.stats
    const from = now - options.windowMs
    const latencies: Array<number> = []
    let errors = 0
    for (let i = 0; i < ring.at.length; i++) {
      if (ring.at[i]! <= from) continue
      latencies.push(ring.ms[i]!)
      if (ring.error[i]!) errors++
    }
    latencies.sort(ascending)
    const stats: ToolStats = {
      server: ring.server,
      tool: ring.tool,
      calls: latencies.length,
      errors,
      p50Ms: latencies.length === 0 ? undefined : quantile(latencies, 0.5),
      p99Ms: latencies.length === 0 ? undefined : quantile(latencies, 0.99),
      lastAt: ring.lastAt
    }
    ring.cached = { version: ring.version, validUntil: validUntil(ring, from), stats }
    return stats
  }

  const tools = (now: number): ReadonlyArray<ToolStats> => live(now).map((ring) => statsOf(ring, now))

  /** One server's buckets from its tools' rings. */
  const bucketsOf = (server: Array<Ring>, from: number): Array<Bucket> => {
    const buckets = new Map<number, { latencies: Array<number>; errors: number }>()
    for (const ring of server) {
      for (let i = 0; i < ring.at.length; i++) {
        const at = ring.at[i]!
        if (at <= from) continue
        const start = Math.floor(at / options.bucketMs) * options.bucketMs
        let bucket = buckets.get(start)
        if (bucket === undefined) buckets.set(start, bucket = { latencies: [], errors: 0 })
        bucket.latencies.push(ring.ms[i]!)
        if (ring.error[i]!) bucket.errors++
      }
    }
    return [...buckets].sort((a, b) => a[0] - b[0]).map(([start, bucket]) => {
      const sorted = bucket.latencies.sort(ascending)
      return {
        start,
        calls: sorted.length,
        errors: bucket.errors,
        p50Ms: quantile(sorted, 0.5),
        p99Ms: quantile(sorted, 0.99)
      }
    })
  }

  const series = (now: number): ReadonlyMap<string, ReadonlyArray<Bucket>> => {
    const from = now - options.windowMs
    const byServer = new Map<string, Array<Ring>>()
    for (const ring of live(now)) {
      const list = byServer.get(ring.server)
      if (list === undefined) byServer.set(ring.server, [ring])
      else list.push(ring)
    }
    const result = new Map<string, ReadonlyArray<Bucket>>()
    for (const [server, list] of byServer) {
      const signature = list.map((ring) => `${ring.tool}\u0000${ring.version}`).join("\u0000")
      const cached = seriesCache.get(server)
      if (cached !== undefined && cached.signature === signature && now < cached.validUntil) {
        result.set(server, cached.buckets)
        continue
      }
      const buckets = bucketsOf(list, from)
      const until = Math.min(...list.map((ring) => validUntil(ring, from)))
      seriesCache.set(server, { signature, validUntil: until, buckets })
      result.set(server, buckets)
    }
    for (const server of seriesCache.keys()) if (!byServer.has(server)) seriesCache.delete(server)
    return result
  }

  const timed = <A, E, R>(
    server: string,
    tool: string,
    effect: Effect.Effect<A, E, R>,
    failed: (value: A) => boolean
  ): Effect.Effect<A, E, R> =>
    Effect.flatMap(
      Clock.currentTimeNanos,
      (started) =>
        Effect.onExit(effect, (exit) =>
          Effect.flatMap(Clock.currentTimeNanos, (ended) =>
            Effect.sync(() => {
              if (Exit.hasInterrupts(exit)) return
              const at = Number(ended / 1_000_000n)
              const ms = Number(ended - started) / 1_000_000
              record(server, tool, at, ms, Exit.isFailure(exit) || failed(exit.value))
            })))
    )

  return { options, record, timed, tools, series, version: () => version }
}
