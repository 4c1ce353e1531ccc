/**
 * A session's telemetry, read once when it opens (`McpTelemetry`). Off (the default), every hook is the identity:
 * requests go to the pending table directly and no byte is counted. On: each request gets its client span
 * (`RequestSpan`), the bytes each way are counted (`ByteCounter`), and the session's duration is recorded when its
 * scope closes (`SessionMetric`), with the error it ended in.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { Outlet, PendingTable } from "../internal/PendingTable.ts"
import { McpTelemetry } from "../Telemetry.ts"
import * as ByteCounter from "./ByteCounter.ts"
import type { Link } from "./Link.ts"
import type * as Readiness from "./Readiness.ts"
import * as RequestSpan from "./RequestSpan.ts"
import * as SessionMetric from "./SessionMetric.ts"

/** The hooks of one session. */
export interface Tracing {
  /** The pending table's outlet, counting the bytes sent. */
  readonly outlet: (outlet: Outlet) => Outlet
  /** The receiver's message handler, counting the bytes received. */
  readonly receiving: (message: (text: string) => void) => (text: string) => void
  /** The session's request path: the pending table's, in a client span per request. */
  readonly request: (pending: PendingTable) => PendingTable["request"]
  /** Records the session's duration (and how it ended) when `scope` closes. */
  readonly record: (scope: Scope.Scope, readiness: Readiness.Cell) => Effect.Effect<void>
}

/** The telemetry of a session over `link`. */
export const make = Effect.fnUntraced(function*(options: {
  readonly server: string
  readonly url: string | undefined
  readonly link: Link
  readonly clock: Clock.Clock
}) {
  const telemetry = yield* McpTelemetry
  if (!telemetry.enabled) {
    return {
      outlet: (outlet) => outlet,
      receiving: (message) => message,
      request: (pending) => pending.request,
      record: () => Effect.void
    } satisfies Tracing
  }
  const { clock, link, server } = options
  const bytes = ByteCounter.make(server, yield* Effect.context<never>())
  return {
    outlet: (outlet) => ByteCounter.outlet(bytes, outlet),
    receiving: (message) => ByteCounter.receiving(bytes, message),
    request: (pending) =>
      RequestSpan.traced(pending.request, {
        server,
        transport: link.kind,
        protocolVersion: link.protocolVersion,
        sessionId: link.sessionId,
        url: options.url,
        settings: telemetry,
        clock
      }),
    record: (scope, readiness) =>
      Scope.addFinalizer(
        scope,
        SessionMetric.record(clock, clock.currentTimeMillisUnsafe(), () => {
          const state = readiness.get()
          return {
            transport: link.kind(),
            protocolVersion: link.protocolVersion(),
            // Ended in an error: a failed handshake, or the process gone (`ProcessExited`); not a close.
            errorType: state._tag === "Failed" || state._tag === "Closed" && state.error._tag !== "ClientClosed"
              ? state.error._tag
              : undefined
          }
        })
      )
  } satisfies Tracing
})
