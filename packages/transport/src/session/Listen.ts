/**
 * The client side of `subscriptions/listen`: one listen at a time per session. `open` sends the request (with no
 * deadline: it is meant to stay open), waits for its `notifications/subscriptions/acknowledged` — which `observe`
 * sees first, as the session's dispatcher hands it every notification — and returns the honoured filter. An
 * acknowledgement belongs to the listen whose request id its `_meta` names (`io.modelcontextprotocol/subscriptionId`):
 * a late one of a listen given up, or one more from the listen a renewal replaces, settles nothing else. The request
 * runs in the caller's scope, so closing that scope interrupts it, which is the cancellation (stdio:
 * `notifications/cancelled`; HTTP: the request's stream is closed).
 *
 * Resource subscriptions (2026-07-28 has no `resources/subscribe`): the URIs the session subscribed to are added to
 * every listen's `resourceSubscriptions`. A listen's filter is fixed when it is sent, so `subscription` renews an
 * open listen: a new one is sent with the new set, and once it is acknowledged the old one is cancelled (the open
 * listen's `ended` stays pending across a renewal). With no listen open the set waits for the next one.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { ProtocolError, type RequestError } from "../McpError.ts"
import type { ServerNotification } from "../Protocol.ts"
import { type End, type Filter, ListenFailed, type Listening } from "../Subscriptions.ts"

/** What the session gives a listener. */
export interface Config {
  readonly server: string
  /**
   * Sends `subscriptions/listen` with `params` and waits, without a deadline, for its answer; `onId` is told the
   * request's id before it is sent (its acknowledgement carries it as the subscription id).
   */
  readonly send: (params: unknown, onId: (id: number) => void) => Effect.Effect<unknown, RequestError>
}

/** The `_meta` key that ties a notification of a listen stream to the listen's request id. */
export const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The subscription id a notification's `_meta` names, as text (servers echo the request id, a number). */
export const subscriptionIdOf = (params: unknown): string | undefined => {
  const meta = isRecord(params) && isRecord(params._meta) ? params._meta : undefined
  const id = meta?.[SUBSCRIPTION_ID]
  return typeof id === "number" || typeof id === "string" ? String(id) : undefined
}

/** The filter an acknowledgement names (unknown keys and wrong types are dropped). */
export const honouredOf = (params: unknown): Filter => {
  const notifications = isRecord(params) && isRecord(params.notifications) ? params.notifications : {}
  const out: { -readonly [K in keyof Filter]: Filter[K] } = {}
  for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const) {
    if (notifications[key] === true) out[key] = true
  }
  const uris = notifications.resourceSubscriptions
  if (Array.isArray(uris)) out.resourceSubscriptions = uris.filter((u): u is string => typeof u === "string")
  return out
}

/** A session's listener. */
export interface Listener {
  /** Sees every notification of the session (before it is published). */
  readonly observe: (notification: ServerNotification) => void
  /** Opens a listen in the current scope; fails if it is not acknowledged within `ackTimeoutMs`. */
  readonly open: (filter: Filter, ackTimeoutMs: number) => Effect.Effect<Listening, ListenFailed, Scope.Scope>
  /**
   * Adds (`on`) or removes a resource subscription, renewing the open listen if there is one: a `ProtocolError`
   * of `subscriptions/listen` if the renewed listen is not acknowledged, or does not honour an added URI (the
   * subscription is not kept then).
   */
  readonly subscription: (uri: string, on: boolean) => Effect.Effect<void, ProtocolError>
  /** The URIs subscribed to, in the order they were added. */
  readonly subscribed: () => ReadonlyArray<string>
}

/** One `subscriptions/listen` request. */
interface Sent {
  readonly fiber: Fiber.Fiber<void>
  readonly end: Deferred.Deferred<End>
  readonly honoured: Filter
}

/** The open listen: its scope and filter, the request that carries it now, and its end across renewals. */
interface Open {
  readonly scope: Scope.Scope
  readonly filter: Filter
  readonly ackTimeoutMs: number
  readonly ended: Deferred.Deferred<End>
  sent: Sent | undefined
}

/** A listener over `config`. */
export const make = (config: Config): Listener => {
  // The acknowledgements the listens being sent wait for, by request id (`renewing` keeps opens and renewals apart,
  // so one at a time; keyed all the same, so that no acknowledgement settles a listen it does not name).
  const waiting = new Map<string, Deferred.Deferred<Filter>>()
  let current: Open | undefined
  const subscriptions = new Set<string>()
  const renewing = Semaphore.makeUnsafe(1)
  const observe = (notification: ServerNotification) => {
    if (notification.method !== "notifications/subscriptions/acknowledged" || waiting.size === 0) return
    const id = subscriptionIdOf(notification.params)
    const ack = id === undefined ? undefined : waiting.get(id)
    if (id === undefined || ack === undefined) return
    waiting.delete(id)
    Deferred.doneUnsafe(ack, Exit.succeed(honouredOf(notification.params)))
  }
  const withSubscriptions = (filter: Filter): Filter =>
    subscriptions.size === 0
      ? filter
      : { ...filter, resourceSubscriptions: [...new Set([...(filter.resourceSubscriptions ?? []), ...subscriptions])] }

  /**
   * Sends one listen of `listening` and waits for its acknowledgement. Only the request that carries the listen
   * ends it: a renewed one is cancelled, never ended.
   */
  const send = Effect.fnUntraced(function*(listening: Open) {
    const { ackTimeoutMs } = listening
    const ack = Deferred.makeUnsafe<Filter>()
    const end = Deferred.makeUnsafe<End>()
    const ended = (outcome: End) =>
      Effect.sync(() => {
        Deferred.doneUnsafe(end, Exit.succeed(outcome))
        if (listening.sent?.end === end) Deferred.doneUnsafe(listening.ended, Exit.succeed(outcome))
      })
    let id: string | undefined
    const fiber = yield* config.send({ notifications: withSubscriptions(listening.filter) }, (sent) => {
      id = String(sent)
      waiting.set(id, ack)
    }).pipe(
      Effect.matchEffect({
        onSuccess: () => ended({ _tag: "Ended" }),
        onFailure: (error) => ended({ _tag: "Dropped", error })
      }),
      Effect.forkIn(listening.scope)
    )
    const first = yield* Effect.raceFirst(
      Effect.map(Deferred.await(ack), (honoured) => ({ _tag: "Ack" as const, honoured })),
      Effect.map(Deferred.await(end), (ended) => ({ _tag: "End" as const, ended }))
    ).pipe(Effect.timeoutOption(ackTimeoutMs))
    if (id !== undefined && waiting.get(id) === ack) waiting.delete(id)
    const fail = (reason: ListenFailed["reason"], detail: string) =>
      Effect.fail(new ListenFailed({ server: config.server, reason, detail }))
    if (Option.isNone(first)) {
      // Cancelled at once: a renewal's scope outlives it.
      yield* Fiber.interrupt(fiber)
      return yield* fail("no-ack", `no notifications/subscriptions/acknowledged within ${ackTimeoutMs} ms`)
    }
    if (first.value._tag === "End") {
      const ended = first.value.ended
      if (ended._tag === "Ended") return yield* fail("ended", "the server answered it before acknowledging it")
      return yield* fail(
        ended.error._tag === "RemoteError" ? "refused" : "ended",
        ended.error.message
      )
    }
    return { fiber, end, honoured: first.value.honoured } satisfies Sent
  })

  /** `sent` carries `listening` from now on (if it ended between its acknowledgement and now, so does the listen). */
  const carry = (listening: Open, sent: Sent) => {
    listening.sent = sent
    if (Deferred.isDoneUnsafe(sent.end)) Deferred.doneUnsafe(listening.ended, Deferred.await(sent.end))
  }

  const open = Effect.fnUntraced(function*(filter: Filter, ackTimeoutMs: number) {
    const ended = Deferred.makeUnsafe<End>()
    const listening: Open = { scope: yield* Effect.scope, filter, ackTimeoutMs, ended, sent: undefined }
    const sent = yield* send(listening)
    carry(listening, sent)
    current = listening
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (current === listening) current = undefined
      })
    )
    return { honoured: sent.honoured, ended: Deferred.await(ended) } satisfies Listening
  }, renewing.withPermit)

  /** Sends the open listen again with the current subscriptions; once acknowledged, the old request is cancelled. */
  const renew = Effect.fnUntraced(function*(listening: Open) {
    const old = listening.sent
    const sent = yield* send(listening)
    carry(listening, sent)
    if (old !== undefined) yield* Fiber.interrupt(old.fiber)
    return sent.honoured
  })

  const subscription = (uri: string, on: boolean): Effect.Effect<void, ProtocolError> =>
    renewing.withPermit(Effect.suspend(() => {
      if (subscriptions.has(uri) === on) return Effect.void
      const toggle = (add: boolean) => add ? subscriptions.add(uri) : subscriptions.delete(uri)
      toggle(on)
      const listening = current
      if (listening === undefined) return Effect.void
      return renew(listening).pipe(
        Effect.mapError((error) =>
          new ProtocolError({ server: config.server, method: "subscriptions/listen", detail: error.detail })
        ),
        Effect.flatMap((honoured) =>
          on && honoured.resourceSubscriptions?.includes(uri) !== true
            ? Effect.fail(
              new ProtocolError({
                server: config.server,
                method: "subscriptions/listen",
                detail: `the server does not honour a subscription to ${JSON.stringify(uri)}`
              })
            )
            : Effect.void
        ),
        Effect.tapError(() => Effect.sync(() => toggle(!on)))
      )
    }))

  return { observe, open, subscription, subscribed: () => [...subscriptions] }
}
