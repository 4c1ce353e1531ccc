/**
 * Records the manager's metrics (see `FleetMetrics.ts`) from the ledger's transitions, which are synchronous: the
 * metrics are updated with the context the manager was built in.
 *
 * @internal
 */
import type * as Context from "effect/Context"
import * as FleetMetrics from "../FleetMetrics.ts"
import * as ServerState from "../ServerState.ts"
import type * as ServerTransition from "../ServerTransition.ts"
import type { ServerRecord } from "./Record.ts"

/** What the ledger tells the metrics. */
export interface Observer {
  /** After a transition of `old` into `record` (the records map already updated). */
  readonly transition: (
    old: ServerRecord,
    record: ServerRecord,
    event: ServerTransition.Event,
    records: ReadonlyMap<string, ServerRecord>
  ) => void
  /** Sets the servers-by-state gauge from `records`. */
  readonly count: (records: ReadonlyMap<string, ServerRecord>) => void
  /** A notification was dropped from a full queue. */
  readonly dropped: () => void
}

const STATES: ReadonlyArray<ServerState.ServerState> = ["starting", "ready", "degraded", "offline", "disabled"]

/** An observer writing into `context`'s metric registry. */
export const make = (context: Context.Context<never>): Observer => {
  const count = (records: ReadonlyMap<string, ServerRecord>) => {
    const counts = new Map<ServerState.ServerState, number>(STATES.map((s) => [s, 0]))
    for (const record of records.values()) {
      const kind = ServerState.kindOf(record.state)
      counts.set(kind, counts.get(kind)! + 1)
    }
    for (const [state, n] of counts) FleetMetrics.serversIn(state).updateUnsafe(n, context)
  }
  return {
    count,
    transition: (old, record, event, records) => {
      count(records)
      const server = record.name
      if (event._tag === "RetryScheduled") {
        FleetMetrics.forServer(FleetMetrics.reconnectAttempts, server).updateUnsafe(1, context)
      } else if (event._tag === "GaveUp" && record.state._tag === "GaveUp" && old.state._tag !== "GaveUp") {
        FleetMetrics.forServer(FleetMetrics.giveUps, server).updateUnsafe(1, context)
      } else if (event._tag === "Listed" && old.listed !== undefined) {
        FleetMetrics.forServer(FleetMetrics.listRefreshes, server).updateUnsafe(1, context)
      }
    },
    dropped: () => FleetMetrics.droppedNotifications.updateUnsafe(1, context)
  }
}
