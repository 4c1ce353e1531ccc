/**
 * The host calls forwarded upstream and not yet answered, by server, and which of them an upstream's request
 * (elicitation, sampling, roots; its log entries too) belongs to.
 *
 * An upstream's request is attributed to the call whose fiber made it when the transport runs the handler on that
 * fiber (a 2026-07-28 upstream's input rounds: `CurrentCall`), else to the oldest call in flight on that server (a
 * 2025-era upstream's request arrives on the connection's reader, with nothing naming the call; over stdio nothing
 * can). With one call in flight on a server the attribution is exact; with several, it is the oldest: documented in
 * the README, and the reason a host that did not make the call may be asked.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { Exchange } from "./Host.ts"
import type { Rounds } from "./Rounds.ts"

/** One host call on its way to an upstream server. */
export interface Call {
  readonly exchange: Exchange
  readonly server: string
  /** Set when the host speaks 2026-07-28: an upstream's server request becomes an input round for it. */
  readonly rounds: Rounds | undefined
}

/** The call the current fiber is making, when it is making one. */
export const CurrentCall = Context.Reference<Call | undefined>("@mcp-fleet/gateway/CurrentCall", {
  defaultValue: () => undefined
})

/** The calls in flight. */
export interface InFlight {
  /** Runs `effect` as `call`: registered while it runs, and its fiber's `CurrentCall`. */
  readonly run: <A, E, R>(call: Call, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The calls in flight on `server`, oldest first. */
  readonly on: (server: string) => ReadonlyArray<Call>
  /** The call a request from `server` belongs to (see the module's note); `undefined`: none is in flight. */
  readonly attribute: (server: string | undefined) => Effect.Effect<Call | undefined>
  /** How many calls are in flight, on every server. */
  readonly size: () => number
  /** Completes once no call is in flight (at once when none is). */
  readonly idle: Effect.Effect<void>
}

/** An empty table. */
export const make = (): InFlight => {
  const byServer = new Map<string, Set<Call>>()
  let size = 0
  let idle = Deferred.makeUnsafe<void>()
  Deferred.doneUnsafe(idle, Exit.void)
  const add = (call: Call) => {
    const calls = byServer.get(call.server)
    if (calls === undefined) byServer.set(call.server, new Set([call]))
    else calls.add(call)
    if (size++ === 0) idle = Deferred.makeUnsafe<void>()
  }
  const remove = (call: Call) => {
    const calls = byServer.get(call.server)
    if (calls?.delete(call) === true && --size === 0) Deferred.doneUnsafe(idle, Exit.void)
    if (calls?.size === 0) byServer.delete(call.server)
  }
  const on = (server: string): ReadonlyArray<Call> => [...(byServer.get(server) ?? [])]
  return {
    run: (call, effect) =>
      Effect.acquireUseRelease(
        Effect.sync(() => add(call)),
        () => Effect.provideService(effect, CurrentCall, call),
        () => Effect.sync(() => remove(call))
      ),
    on,
    attribute: (server) =>
      Effect.gen(function*() {
        const current = yield* CurrentCall
        if (current !== undefined) return current
        if (server !== undefined) return on(server)[0]
        // Roots are asked without the server's name: the oldest call anywhere.
        let oldest: Call | undefined
        for (const calls of byServer.values()) {
          const first = calls.values().next()
          if (first.done !== true) oldest ??= first.value
        }
        return oldest
      }),
    size: () => size,
    idle: Effect.suspend(() => Deferred.await(idle))
  }
}
