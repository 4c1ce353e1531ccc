/**
 * The requests waiting for an answer, their deadlines, and `notifications/cancelled`.
 *
 * A request registers an entry holding its caller's resume callback (no Deferred, no fiber and no timer per
 * request) and is resumed exactly once, by whoever removes the entry: the answer, the deadline fiber, a failure of
 * the transport, or the caller's own interruption. One deadline fiber sleeps until the earliest deadline. An
 * expired or interrupted request that is `cancellable` gets a `notifications/cancelled`, and the transport is told
 * to abandon it (HTTP aborts its exchange).
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { RequestError } from "../McpError.ts"
import { InvalidParams, RequestTimeout, TooManyInFlight } from "../McpError.ts"
import type { Progress } from "../ProtocolFeatures.ts"
import type { Frame } from "../wire/Transport.ts"
import * as JsonRpc from "./JsonRpc.ts"

/** What a request can fail with over any transport. */
export type { RequestError }

/** Per-request options. */
export interface RequestOptions {
  /** Milliseconds until the request expires; `Infinity` for none. */
  readonly timeoutMs: number
  /** Whether expiry or interruption sends `notifications/cancelled` (never for `initialize`). */
  readonly cancellable: boolean
  /** Told the request's id once it has one (the tracing layer's `jsonrpc.request.id`); absent when untraced. */
  readonly onId?: ((id: number) => void) | undefined
  /** HTTP headers of this request (the modern era's `Mcp-Method`…); ignored off HTTP. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Asks for progress: the request's id becomes its `_meta.progressToken`. */
  readonly progress?: ProgressHooks | undefined
}

/** What a request that asked for progress does with each report. */
export interface ProgressHooks {
  /** Called synchronously with each report's params, in wire order, before the answer settles the request. */
  readonly onProgress: (report: Progress) => void
  /** Each report moves the deadline to `timeoutMs` from now (never past `maxTotalTimeoutMs` from the start). */
  readonly resetTimeoutOnProgress: boolean
  /** The hard bound from the start, whatever progress comes (`Infinity`: none). */
  readonly maxTotalTimeoutMs: number
}

/** One waiting request. */
export interface Entry {
  readonly id: number
  readonly method: string
  /** Resumes the suspended caller; called exactly once, by whoever removes the entry. */
  readonly resume: (outcome: Exit.Exit<unknown, RequestError>) => void
  /** When it expires; moved by progress when `progress.resetTimeoutOnProgress`. */
  deadline: number
  readonly timeoutMs: number
  readonly cancellable: boolean
  readonly progress: ProgressHooks | undefined
  /** The bound no progress moves (`Infinity`: none). */
  readonly hardDeadline: number
}

/** Where the table sends frames, and what it asks of the transport. */
export interface Outlet {
  /** Sends a request frame (apart from `send`, so that stdio's hot path builds no `Frame` object per call). */
  readonly request: (
    id: number,
    method: string,
    text: string,
    headers: Readonly<Record<string, string>> | undefined
  ) => void
  readonly send: (frame: Frame) => void
  readonly abandon: (id: number) => void
}

/** The pending table of one connection. */
export interface PendingTable {
  /** Sends a request and waits for its answer, its deadline or a failure. */
  readonly request: (method: string, params: unknown, options: RequestOptions) => Effect.Effect<unknown, RequestError>
  /** The entry for `id`, if it still waits. */
  readonly get: (id: JsonRpc.Id) => Entry | undefined
  /** Removes the entry for `id` and resumes it with `exit`; `false` when nothing waited for `id`. */
  readonly settle: (id: JsonRpc.Id, exit: Exit.Exit<unknown, RequestError>) => boolean
  /**
   * Hands a `notifications/progress` report to the request whose token is `token`; `false` when no waiting request
   * asked for progress under that token (unknown, or already answered).
   */
  readonly progress: (token: string | number, report: Progress) => boolean
  /** Request `id` waits for something that is not the server (authorization): no deadline but its hard bound. */
  readonly hold: (id: number) => void
  /**
   * Request `id` has just gone on the wire (after an authorization it waited for): its deadline is `timeoutMs` from
   * now again (never past its hard bound); nothing when it no longer waits or has no deadline.
   */
  readonly restart: (id: number) => void
  /** Fails every waiting request with `error(entry)` (no cancellation is sent: the peer is gone or forgot them). */
  readonly failAll: (error: (entry: Entry) => RequestError) => void
  readonly size: () => number
  /** Requests sent so far, by method. */
  readonly counts: Record<string, number>
  /** The deadline fiber's body, forked by the owner. */
  readonly runDeadlines: Effect.Effect<never>
}

/** `params` with `_meta.progressToken` set to `token` (other `_meta` keys kept). */
const withProgressToken = (params: unknown, token: number): unknown => {
  const base: object = typeof params === "object" && params !== null && !Array.isArray(params) ? params : {}
  const meta = "_meta" in base && typeof base._meta === "object" && base._meta !== null ? base._meta : {}
  return { ...base, _meta: { ...meta, progressToken: token } }
}

/** Builds an empty table. Nothing runs until the owner forks `runDeadlines`. */
export const make = (config: {
  readonly server: string
  readonly maxInFlight: number
  readonly clock: Clock.Clock
  readonly outlet: Outlet
  /** The error every new request fails with at once, or `undefined` while requests may be sent. */
  readonly refusal: () => RequestError | undefined
}): PendingTable => {
  const { clock, outlet, server } = config
  const pending = new Map<number, Entry>()
  const counts: Record<string, number> = {}
  let nextId = 1

  let wake = Deferred.makeUnsafe<void>()
  let scheduledAt = Infinity
  const schedule = (deadline: number) => {
    if (deadline < scheduledAt) {
      scheduledAt = deadline
      Deferred.doneUnsafe(wake, Exit.void)
    }
  }

  const cancel = (entry: Entry, reason: string) => {
    outlet.abandon(entry.id)
    if (entry.cancellable && config.refusal() === undefined) {
      outlet.send({
        _tag: "Notification",
        method: "notifications/cancelled",
        text: JsonRpc.notificationFrame("notifications/cancelled", { requestId: entry.id, reason })
      })
    }
  }

  const expire = (entry: Entry) => {
    pending.delete(entry.id)
    // Which bound ran out: the hard one (`maxTotalTimeout`), or the per-request one (reset by progress, maybe).
    const timeoutMs = entry.deadline === entry.hardDeadline && entry.progress !== undefined
      ? entry.progress.maxTotalTimeoutMs
      : entry.timeoutMs
    entry.resume(Exit.fail(new RequestTimeout({ server, method: entry.method, timeoutMs })))
    cancel(entry, `no answer within ${timeoutMs} ms`)
  }

  const runDeadlines: Effect.Effect<never> = Effect.suspend(() => {
    const now = clock.currentTimeMillisUnsafe()
    let next = Infinity
    for (const entry of pending.values()) {
      if (entry.deadline <= now) expire(entry)
      else if (entry.deadline < next) next = entry.deadline
    }
    const current = Deferred.makeUnsafe<void>()
    wake = current
    scheduledAt = next
    return next === Infinity
      ? Deferred.await(current)
      : Effect.raceFirst(Effect.sleep(next - now), Deferred.await(current))
  }).pipe(Effect.forever)

  const request = (method: string, params: unknown, options: RequestOptions): Effect.Effect<unknown, RequestError> =>
    Effect.callback<unknown, RequestError>((resume) => {
      const refused = config.refusal()
      if (refused !== undefined) return resume(Exit.fail(refused))
      if (pending.size >= config.maxInFlight) {
        return resume(Exit.fail(new TooManyInFlight({ server, limit: config.maxInFlight })))
      }
      const id = nextId++
      counts[method] = (counts[method] ?? 0) + 1
      if (options.onId !== undefined) options.onId(id)
      const progress = options.progress
      const text = JsonRpc.encodeRequest(id, method, progress === undefined ? params : withProgressToken(params, id))
      if (typeof text !== "string") return resume(Exit.fail(new InvalidParams({ server, method, detail: text.error })))
      const now = options.timeoutMs === Infinity && progress === undefined ? 0 : clock.currentTimeMillisUnsafe()
      const hardDeadline = progress === undefined ? Infinity : now + progress.maxTotalTimeoutMs
      const deadline = Math.min(options.timeoutMs === Infinity ? Infinity : now + options.timeoutMs, hardDeadline)
      const entry: Entry = {
        id,
        method,
        resume,
        deadline,
        timeoutMs: options.timeoutMs,
        cancellable: options.cancellable,
        progress,
        hardDeadline
      }
      pending.set(id, entry)
      if (deadline !== Infinity) schedule(deadline)
      outlet.request(id, method, text, options.headers)
      // Runs only if the caller is interrupted while waiting.
      return Effect.sync(() => {
        if (pending.get(id) === entry) {
          pending.delete(id)
          cancel(entry, "the caller stopped waiting")
        }
      })
    })

  const get = (id: JsonRpc.Id) => (typeof id === "number" ? pending.get(id) : undefined)

  return {
    request,
    get,
    settle: (id, exit) => {
      const entry = get(id)
      if (entry === undefined) return false
      pending.delete(entry.id)
      entry.resume(exit)
      return true
    },
    progress: (token, report) => {
      const entry = typeof token === "number" ? pending.get(token) : undefined
      const hooks = entry?.progress
      if (entry === undefined || hooks === undefined) return false
      hooks.onProgress(report)
      if (hooks.resetTimeoutOnProgress && entry.timeoutMs !== Infinity) {
        // Later only: the deadline fiber wakes at the earlier time it already sleeps until, and re-reads it.
        entry.deadline = Math.min(clock.currentTimeMillisUnsafe() + entry.timeoutMs, entry.hardDeadline)
      }
      return true
    },
    hold: (id) => {
      const entry = pending.get(id)
      // The deadline fiber wakes at the time it sleeps until, finds nothing due, and sleeps until the next one.
      if (entry !== undefined) entry.deadline = entry.hardDeadline
    },
    restart: (id) => {
      const entry = pending.get(id)
      if (entry === undefined || entry.timeoutMs === Infinity) return
      entry.deadline = Math.min(clock.currentTimeMillisUnsafe() + entry.timeoutMs, entry.hardDeadline)
      // A held entry's deadline may now be earlier than the one the deadline fiber sleeps until.
      if (entry.deadline !== Infinity) schedule(entry.deadline)
    },
    failAll: (error) => {
      const entries = [...pending.values()]
      pending.clear()
      for (const entry of entries) {
        outlet.abandon(entry.id)
        entry.resume(Exit.fail(error(entry)))
      }
    },
    size: () => pending.size,
    counts,
    runDeadlines
  }
}
