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
import type { Frame } from "../transport/Transport.ts"
import * as JsonRpc from "./JsonRpc.ts"

/** What a request can fail with over any transport. */
export type { RequestError }

/** Per-request options. */
export interface RequestOptions {
  /** Milliseconds until the request expires; `Infinity` for none. */
  readonly timeoutMs: number
  /** Whether expiry or interruption sends `notifications/cancelled` (never for `initialize`). */
  readonly cancellable: boolean
  /** HTTP headers of this request (the modern era's `Mcp-Method`…); ignored off HTTP. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** One waiting request. */
export interface Entry {
  readonly id: number
  readonly method: string
  /** Resumes the suspended caller; called exactly once, by whoever removes the entry. */
  readonly resume: (outcome: Exit.Exit<unknown, RequestError>) => void
  readonly deadline: number
  readonly timeoutMs: number
  readonly cancellable: boolean
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
  /** Fails every waiting request with `error(entry)` (no cancellation is sent: the peer is gone or forgot them). */
  readonly failAll: (error: (entry: Entry) => RequestError) => void
  readonly size: () => number
  /** Requests sent so far, by method. */
  readonly counts: Record<string, number>
  /** The deadline fiber's body, forked by the owner. */
  readonly runDeadlines: Effect.Effect<never>
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
    entry.resume(Exit.fail(new RequestTimeout({ server, method: entry.method, timeoutMs: entry.timeoutMs })))
    cancel(entry, `no answer within ${entry.timeoutMs} ms`)
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
      const text = JsonRpc.encodeRequest(id, method, params)
      if (typeof text !== "string") return resume(Exit.fail(new InvalidParams({ server, method, detail: text.error })))
      const deadline = options.timeoutMs === Infinity ? Infinity : clock.currentTimeMillisUnsafe() + options.timeoutMs
      const entry: Entry = {
        id,
        method,
        resume,
        deadline,
        timeoutMs: options.timeoutMs,
        cancellable: options.cancellable
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
