/**
 * The client side of `subscriptions/listen`: one listen at a time per session. `open` sends the request (with no
 * deadline: it is meant to stay open), waits for `notifications/subscriptions/acknowledged` — which `observe` sees
 * first, as the session's dispatcher hands it every notification — and returns the honoured filter. The request
 * runs in the caller's scope, so closing that scope interrupts it, which is the cancellation (stdio:
 * `notifications/cancelled`; HTTP: the request's stream is closed).
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { RequestError } from "../McpError.ts"
import type { ServerNotification } from "../Protocol.ts"
import { type End, type Filter, ListenFailed, type Listening } from "../Subscriptions.ts"

/** What the session gives a listener. */
export interface Config {
  readonly server: string
  /** Sends `subscriptions/listen` with `params` and waits, without a deadline, for its answer. */
  readonly send: (params: unknown) => Effect.Effect<unknown, RequestError>
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

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
}

/** A listener over `config`. */
export const make = (config: Config): Listener => {
  // The acknowledgement the open listen waits for (one listen at a time: a new open replaces the wait).
  let waiting: Deferred.Deferred<Filter> | undefined
  const observe = (notification: ServerNotification) => {
    if (notification.method !== "notifications/subscriptions/acknowledged" || waiting === undefined) return
    Deferred.doneUnsafe(waiting, Exit.succeed(honouredOf(notification.params)))
    waiting = undefined
  }
  const open = (filter: Filter, ackTimeoutMs: number) =>
    Effect.gen(function*() {
      const ack = Deferred.makeUnsafe<Filter>()
      const end = Deferred.makeUnsafe<End>()
      waiting = ack
      yield* config.send({ notifications: filter }).pipe(
        Effect.matchEffect({
          onSuccess: () => Deferred.succeed(end, { _tag: "Ended" }),
          onFailure: (error) => Deferred.succeed(end, { _tag: "Dropped", error })
        }),
        Effect.forkScoped
      )
      const first = yield* Effect.raceFirst(
        Effect.map(Deferred.await(ack), (honoured) => ({ _tag: "Ack" as const, honoured })),
        Effect.map(Deferred.await(end), (ended) => ({ _tag: "End" as const, ended }))
      ).pipe(Effect.timeoutOption(ackTimeoutMs))
      if (waiting === ack) waiting = undefined
      const fail = (reason: ListenFailed["reason"], detail: string) =>
        Effect.fail(new ListenFailed({ server: config.server, reason, detail }))
      if (Option.isNone(first)) {
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
      return { honoured: first.value.honoured, ended: Deferred.await(end) } satisfies Listening
    })
  return { observe, open }
}
