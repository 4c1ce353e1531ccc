/**
 * `mcp.client.session.duration`: one observation when a traced session's scope closes, with `error.type` when the
 * session ended because its handshake failed.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Telemetry from "../Telemetry.ts"
import type { Kind } from "../wire/Transport.ts"

/** What the observation needs, read when the session ends. */
export interface Ending {
  readonly transport: Kind
  readonly protocolVersion: string | undefined
  /** The tag of the error the session ended with, if it ended in one. */
  readonly errorType: string | undefined
}

/** The finalizer that records the session's duration since `startedMillis`. */
export const record = (
  clock: Clock.Clock,
  startedMillis: number,
  ending: () => Ending
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const seconds = (clock.currentTimeMillisUnsafe() - startedMillis) / 1000
    const end = ending()
    const labels: Record<string, string> = { "network.transport": end.transport === "stdio" ? "pipe" : "tcp" }
    if (end.protocolVersion !== undefined) labels["mcp.protocol.version"] = end.protocolVersion
    if (end.errorType !== undefined) labels["error.type"] = end.errorType
    return Metric.update(Metric.withAttributes(Telemetry.sessionDuration, labels), seconds)
  })
