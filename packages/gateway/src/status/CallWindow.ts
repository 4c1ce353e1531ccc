/**
 * The tool calls hosts made through the gateway, over a sliding window: per tool, how many, how many failed, and the
 * latency's p50 and p99; per server, the same in time buckets for the status page's chart.
 *
 * Bounded three ways: samples older than `windowMs` are ignored and dropped; each tool keeps at most its last
 * `maxSamples` (a ring, so p99 is over at most that many calls); at most `maxTools` tools are tracked (a new one
 * evicts the tool called least recently). Times are the caller's (`Clock` through `timed`), so `TestClock` drives it.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

/** The window's bounds. */
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

/** The defaults: 5 minutes, 1,024 samples per tool, 512 tools, 10 s buckets. */
export const defaults: Options = { windowMs: 5 * 60_000, maxSamples: 1_024, maxTools: 512, bucketMs: 10_000 }

/** One tool's figures over the window. */
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

/** One bucket of a server's series: the calls that ended in `[start, start + bucketMs)`. */
export interface Bucket {
  readonly start: number
  readonly calls: number
  readonly errors: number
  readonly p50Ms: number
  readonly p99Ms: number
}

/** The window. */
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
}

/** The value at quantile `q` of ascending `sorted` (nearest rank). */
export const quantile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!

const ascending = (a: number, b: number) => a - b

/** An empty window. */
export const make = (overrides: Partial<Options> = {}): CallWindow => {
  const options: Options = { ...defaults, ...overrides }
  const rings = new Map<string, Ring>()
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
      ring = { server, tool, at: [], ms: [], error: [], next: 0, lastAt: at }
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
    version++
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

  const tools = (now: number): ReadonlyArray<ToolStats> => {
    const from = now - options.windowMs
    return live(now).map((ring) => {
      const latencies: Array<number> = []
      let errors = 0
      for (let i = 0; i < ring.at.length; i++) {
        if (ring.at[i]! <= from) continue
        latencies.push(ring.ms[i]!)
        if (ring.error[i]!) errors++
      }
      latencies.sort(ascending)
      return {
        server: ring.server,
        tool: ring.tool,
        calls: latencies.length,
        errors,
        p50Ms: latencies.length === 0 ? undefined : quantile(latencies, 0.5),
        p99Ms: latencies.length === 0 ? undefined : quantile(latencies, 0.99),
        lastAt: ring.lastAt
      }
    })
  }

  const series = (now: number): ReadonlyMap<string, ReadonlyArray<Bucket>> => {
    const from = now - options.windowMs
    const byServer = new Map<string, Map<number, { latencies: Array<number>; errors: number }>>()
    for (const ring of live(now)) {
      let buckets = byServer.get(ring.server)
      if (buckets === undefined) byServer.set(ring.server, buckets = new Map())
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
    const result = new Map<string, ReadonlyArray<Bucket>>()
    for (const [server, buckets] of byServer) {
      const list: Array<Bucket> = []
      for (const [start, bucket] of [...buckets].sort((a, b) => a[0] - b[0])) {
        const sorted = bucket.latencies.sort(ascending)
        list.push({
          start,
          calls: sorted.length,
          errors: bucket.errors,
          p50Ms: quantile(sorted, 0.5),
          p99Ms: quantile(sorted, 0.99)
        })
      }
      result.set(server, list)
    }
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
