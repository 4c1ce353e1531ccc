/**
 * Where a client's session is, as one value moved by one pure function: `next(state, event)` returns the new state,
 * or `undefined` when the event does not apply (nothing changes), as the manager's `ServerTransition` does. No
 * fiber and no clock: whoever observed the event passes in what it saw (the session, the error, a fresh `Deferred`
 * for a renewal).
 *
 * The end of a session is part of the value, not flags beside it: `Failed` (the handshake failed; the session is
 * ending) carries what new requests are refused with once the end is signalled, and `Failed` and `Closed` say when
 * every fiber of the client has been joined (`joined`).
 *
 * `make` holds one session's value: `move` is the one place it changes (it completes a waiting `awaitReady` and
 * publishes the change), read synchronously on every call's path.
 *
 * @since 0.4.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import type { ClientClosed, InitializeError, ProcessExited } from "../McpError.ts"
import type { ServerSession } from "../Protocol.ts"

/**
 * Why a client takes no request any more: it was closed, or its process is gone.
 *
 * @since 0.4.0
 * @category models
 */
export type End = ClientClosed | ProcessExited

/**
 * Where the session is. `Renewing`: the server forgot the session and the handshake runs again (a reconnection,
 * not a crash). `Failed` and `Closed` are final: `Failed` keeps why the handshake failed.
 *
 * @since 0.4.0
 * @category models
 */
export type Readiness =
  | { readonly _tag: "Starting"; readonly done: Deferred.Deferred<ServerSession, InitializeError> }
  | { readonly _tag: "Ready"; readonly session: ServerSession }
  | {
    readonly _tag: "Renewing"
    readonly session: ServerSession
    readonly done: Deferred.Deferred<ServerSession, InitializeError>
  }
  | {
    readonly _tag: "Failed"
    readonly error: InitializeError
    /** What new requests fail with once the end is signalled; before that, nothing is refused yet. */
    readonly refused: End | undefined
    /** Every fiber of the client has been joined. */
    readonly joined: boolean
  }
  | { readonly _tag: "Closed"; readonly error: End; readonly joined: boolean }

/**
 * Something that happened to the session.
 *
 * @since 0.4.0
 * @category models
 */
export type Event =
  /** The handshake (first or renewed) succeeded. */
  | { readonly _tag: "Initialized"; readonly session: ServerSession }
  /** The handshake (first or renewed) failed: the session ends. */
  | { readonly _tag: "InitializeFailed"; readonly error: InitializeError }
  /** The server forgot the session (HTTP): the handshake runs again; `done` settles with its outcome. */
  | { readonly _tag: "SessionLost"; readonly done: Deferred.Deferred<ServerSession, InitializeError> }
  /** The end is signalled (close, or the transport ended by itself): new requests fail with `error`. */
  | { readonly _tag: "Refused"; readonly error: End }
  /** Every fiber of the client has been joined. */
  | { readonly _tag: "Joined" }

/**
 * The one transition function.
 *
 * @since 0.4.0
 * @category transitions
 */
export const next = (state: Readiness, event: Event): Readiness | undefined => {
  switch (event._tag) {
    case "Initialized":
      return state._tag === "Starting" || state._tag === "Renewing"
        ? { _tag: "Ready", session: event.session }
        : undefined
    case "InitializeFailed":
      return state._tag === "Starting" || state._tag === "Renewing"
        ? { _tag: "Failed", error: event.error, refused: undefined, joined: false }
        : undefined
    case "SessionLost":
      return state._tag === "Ready" ? { _tag: "Renewing", session: state.session, done: event.done } : undefined
    case "Refused":
      if (state._tag === "Closed") return undefined
      if (state._tag === "Failed") return state.refused === undefined ? { ...state, refused: event.error } : undefined
      return { _tag: "Closed", error: event.error, joined: false }
    case "Joined":
      return (state._tag === "Failed" && state.refused !== undefined || state._tag === "Closed") && !state.joined
        ? { ...state, joined: true }
        : undefined
  }
}

/**
 * What a move settles: the outcome a waiting `done` (of `Starting` or `Renewing`) completes with, or `undefined`.
 *
 * @since 0.4.0
 * @category transitions
 */
export const settles = (
  previous: Readiness,
  state: Readiness
): Exit.Exit<ServerSession, InitializeError> | undefined => {
  if (previous._tag !== "Starting" && previous._tag !== "Renewing") return undefined
  switch (state._tag) {
    case "Ready":
      return Exit.succeed(state.session)
    case "Failed":
    case "Closed":
      return Exit.fail(state.error)
    default:
      return undefined
  }
}

/**
 * The server's session while there is one (also while it is renewed).
 *
 * @since 0.4.0
 * @category getters
 */
export const session = (state: Readiness): ServerSession | undefined =>
  state._tag === "Ready" || state._tag === "Renewing" ? state.session : undefined

/**
 * Whether the session still takes calls (not failed, not closed).
 *
 * @since 0.4.0
 * @category getters
 */
export const isAlive = (state: Readiness): boolean => state._tag !== "Failed" && state._tag !== "Closed"

/**
 * What every new request fails with, once the end is signalled.
 *
 * @since 0.4.0
 * @category getters
 */
export const refusal = (state: Readiness): End | undefined =>
  state._tag === "Closed" ? state.error : state._tag === "Failed" ? state.refused : undefined

/**
 * Whether every fiber of the client has been joined.
 *
 * @since 0.4.0
 * @category getters
 */
export const isJoined = (state: Readiness): boolean =>
  (state._tag === "Failed" || state._tag === "Closed") && state.joined

/**
 * Why the client is not usable, once it is not: its handshake's failure, or its end.
 *
 * @since 0.4.0
 * @category getters
 */
export const lastError = (state: Readiness): string | undefined =>
  state._tag === "Failed" || state._tag === "Closed" ? state.error.message : undefined

/**
 * One session's readiness: the value, the one place it moves, its changes and the wait for the handshake.
 *
 * @since 0.4.0
 * @category models
 */
export interface Cell {
  readonly get: () => Readiness
  /** Moves by `next`; a waiting `done` completes with the outcome and a change of state is published. `false`: the event did not apply. */
  readonly move: (event: Event) => boolean
  /** The latest value, then every change of state. */
  readonly changes: Stream.Stream<Readiness>
  /** The handshake's outcome: the session once ready, the error once failed or closed. */
  readonly awaitReady: Effect.Effect<ServerSession, InitializeError>
}

const cell = (changes: PubSub.PubSub<Readiness>): Cell => {
  let state: Readiness = { _tag: "Starting", done: Deferred.makeUnsafe() }
  PubSub.publishUnsafe(changes, state)
  return {
    get: () => state,
    move: (event) => {
      const previous = state
      const moved = next(previous, event)
      if (moved === undefined) return false
      state = moved
      if (moved._tag !== previous._tag) PubSub.publishUnsafe(changes, moved)
      const outcome = settles(previous, moved)
      if (outcome !== undefined && (previous._tag === "Starting" || previous._tag === "Renewing")) {
        Deferred.doneUnsafe(previous.done, outcome)
      }
      return true
    },
    changes: Stream.fromPubSub(changes),
    awaitReady: Effect.suspend(() => {
      switch (state._tag) {
        case "Ready":
          return Effect.succeed(state.session)
        case "Starting":
        case "Renewing":
          return Deferred.await(state.done)
        case "Failed":
        case "Closed":
          return Effect.fail(state.error)
      }
    })
  }
}

/**
 * A cell in `Starting`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make: Effect.Effect<Cell> = Effect.map(PubSub.sliding<Readiness>({ capacity: 16, replay: 1 }), cell)
