/**
 * Auto-detection between the two HTTP wires, the spec's algorithm (2025-03-26, backwards compatibility): Streamable
 * HTTP first; when its `initialize` is refused with 400/404/405 and no modern JSON-RPC error, the legacy HTTP+SSE
 * wire is opened (`legacy`) and carries the refused `initialize` and everything after it. Neither wire knows of
 * the other: this one holds the fallback.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Scope from "effect/Scope"
import type { HttpStatusError } from "../HttpError.ts"
import * as StreamableHttp from "./StreamableHttp.ts"
import type { Receiver, Transport } from "./Transport.ts"

/**
 * @since 0.4.0
 * @category options
 */
export interface Options {
  /** The Streamable HTTP wire's options (its `fallback` is this module's). */
  readonly http: Omit<StreamableHttp.Options, "fallback">
  /**
   * Opens the legacy HTTP+SSE wire, once, when the first `initialize` is refused: `refused` is the modern refusal
   * (a failed fallback reports it first), `withinMs` what is left of that initialize's deadline.
   */
  readonly legacy: (
    receiver: Receiver,
    refused: HttpStatusError,
    withinMs: number | undefined
  ) => Effect.Effect<Transport, never, Scope.Scope | HttpClient.HttpClient>
}

/**
 * The auto-detecting wire: `http` (Streamable HTTP) until a refusal sends it to `sse` (legacy HTTP+SSE).
 *
 * @since 0.4.0
 * @category models
 */
export interface AutoDetect extends Transport {
  /** The Streamable HTTP session id while that wire carries the session; `undefined` after the fallback. */
  readonly sessionId: () => string | undefined
  /** Why the Streamable HTTP server's own stream is not open, once the wire stopped opening it. */
  readonly serverStream: () => string | undefined
  /** The authorization context of the Streamable HTTP wire (see `StreamableHttp.authorizationContext`). */
  readonly authorizationContext: Effect.Effect<number> | undefined
}

/**
 * Builds the wire. Nothing is sent until the session sends `initialize`. Needs `HttpClient` and a `Scope` (closing
 * it ends both wires).
 *
 * @since 0.4.0
 * @category constructors
 */
export const make: (
  options: Options,
  receiver: Receiver
) => Effect.Effect<AutoDetect, never, Scope.Scope | HttpClient.HttpClient> = Effect.fnUntraced(
  function*(options: Options, receiver: Receiver) {
    const scope = yield* Scope.Scope
    let legacy: Transport | undefined
    const modern = yield* StreamableHttp.make({
      ...options.http,
      fallback: Effect.fnUntraced(function*(frame, refused, withinMs) {
        legacy ??= yield* Scope.provide(options.legacy(receiver, refused, withinMs), scope)
        legacy.send(frame)
      })
    }, receiver)
    const current = () => legacy ?? modern
    return {
      get kind() {
        return current().kind
      },
      send: (frame) => current().send(frame),
      abandon: (id) => current().abandon(id),
      established: (version, conduct) => current().established(version, conduct),
      initialized: (frame) => Effect.suspend(() => current().initialized(frame)),
      ended: Effect.suspend(() => current().ended),
      close: Effect.suspend(() => legacy === undefined ? modern.close : Effect.andThen(modern.close, legacy.close)),
      sessionId: () => legacy === undefined ? modern.sessionId() : undefined,
      // The legacy wire has no stream apart from its own: nothing to report once it carries the session.
      serverStream: () => legacy === undefined ? modern.serverStream() : undefined,
      authorizationContext: modern.authorizationContext
    }
  }
)
