/**
 * Input rounds for a 2026-07-28 host whose call reaches an upstream that asks through server requests (a 2025-era
 * upstream's `elicitation/create`, `sampling/createMessage`, `roots/list`): the bridge from server requests to
 * `input_required`.
 *
 * The upstream call runs on its own fiber. Each request the upstream sends becomes an input request the host is
 * shown (`resultType: "input_required"`, with a `requestState` that names this call); the host's retry carries the
 * answers, which go back to the upstream as its requests' results, and the host waits again, for more input or for
 * the result. The call's state lives here, keyed by an unguessable `requestState`, for at most the round timeout.
 *
 * (A 2026-07-28 upstream's own `input_required` needs none of this: it is relayed as it came, its `requestState`
 * included, and the retry goes to it unchanged.)
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import type * as Rpc from "./Rpc.ts"

/** The prefix of the `requestState` values minted here (anything else is an upstream's own state). */
export const STATE_PREFIX = "mcp-fleet-round."

/** What a call waiting for input tells the host's request. */
export type Event =
  | { readonly _tag: "Input" }
  | { readonly _tag: "Done"; readonly exit: Exit.Exit<unknown, Rpc.RpcError> }

/** One input the upstream asked for, not yet answered. */
interface Pending {
  readonly method: string
  readonly params: unknown
  readonly answer: Deferred.Deferred<unknown, Rpc.RpcError>
}

/** The rounds of one call. */
export interface Rounds {
  /** The upstream asks for input (the router calls this): resolves with the host's answer. */
  readonly ask: (method: string, params: unknown) => Effect.Effect<unknown, Rpc.RpcError>
  /** The call ended (the fiber's exit). */
  readonly done: (exit: Exit.Exit<unknown, Rpc.RpcError>) => void
  /** Waits for the next thing the host must hear: input asked, or the end. */
  readonly next: Effect.Effect<Event>
  /** The inputs asked and not yet answered, by key. */
  readonly pending: () => ReadonlyMap<string, Pending>
  /** Gives the host's answers to the inputs they name; the others stay pending. */
  readonly answer: (responses: Readonly<Record<string, unknown>>) => void
}

/** New rounds for one call. */
export const make: Effect.Effect<Rounds> = Effect.map(Queue.sliding<Event>(64), (events): Rounds => {
  const pending = new Map<string, Pending>()
  let nextKey = 1
  return {
    ask: (method, params) =>
      Effect.suspend(() => {
        const key = `input_${nextKey++}`
        const answer = Deferred.makeUnsafe<unknown, Rpc.RpcError>()
        pending.set(key, { method, params, answer })
        Queue.offerUnsafe(events, { _tag: "Input" })
        return Deferred.await(answer).pipe(Effect.ensuring(Effect.sync(() => pending.delete(key))))
      }),
    done: (exit) => {
      Queue.offerUnsafe(events, { _tag: "Done", exit })
    },
    next: Queue.take(events),
    pending: () => pending,
    answer: (responses) => {
      for (const [key, input] of pending) {
        if (Object.hasOwn(responses, key)) {
          pending.delete(key)
          Deferred.doneUnsafe(input.answer, Exit.succeed(responses[key]))
        }
      }
    }
  }
})

/** The `inputRequests` of what is pending. */
export const inputRequests = (rounds: Rounds): Record<string, unknown> => {
  const requests: Record<string, unknown> = {}
  for (const [key, input] of rounds.pending()) {
    requests[key] = input.params === undefined
      ? { method: input.method }
      : { method: input.method, params: input.params }
  }
  return requests
}

/** A call suspended between two requests of its host. */
export interface Suspended {
  readonly rounds: Rounds
  readonly fiber: Fiber.Fiber<unknown, unknown>
  /** The method and name (tool, prompt) or URI the call was made with: the retry must name the same. */
  readonly method: string
  readonly target: string | undefined
  /** When the host's time to answer runs out (Clock milliseconds). */
  readonly expiresAt: number
}
