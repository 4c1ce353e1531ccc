/**
 * A session's counters (`Session.stats`), read from the parts that keep them: the inbound side, the pending table,
 * the handshake, the list caches, and the process of a stdio wire, which counts what its reader refused itself.
 *
 * @internal
 */
import type * as Fiber from "effect/Fiber"
import type * as ListCache from "../internal/ListCache.ts"
import type { PendingTable } from "../internal/PendingTable.ts"
import type { StdioTransport } from "../wire/Stdio.ts"
import type { Handshake } from "./Handshake.ts"
import type { Inbound } from "./Inbound.ts"
import * as Readiness from "./Readiness.ts"
import type { Stats } from "./Session.ts"

/** Where the counters are. */
export interface Sources {
  readonly inbound: Inbound
  /** The stdio wire's process (its reader's own counters and fibers); absent for a remote server. */
  readonly process: StdioTransport | undefined
  /** Answers over the limit, as a remote wire reports them (stdio's process counts its own). */
  readonly oversize: () => number
  readonly pending: PendingTable
  readonly handshake: Handshake
  readonly lists: ListCache.Group
  readonly readiness: Readiness.Cell
  readonly deadlines: Fiber.Fiber<unknown>
}

/** The `stats` of a session. */
export const make = (sources: Sources) => (): Stats => {
  const { pending, readiness } = sources
  const counted = sources.inbound.counters()
  const own = sources.process?.counters()
  const joined = Readiness.isJoined(readiness.get())
  return {
    ...counted,
    oversize: own?.oversize ?? sources.oversize(),
    invalidUtf8: own?.invalidUtf8 ?? 0,
    serverRequests: counted.serverRequests + (own?.refusedRequests ?? 0),
    requests: { ...pending.counts },
    pending: pending.size(),
    stderrBytes: own?.stderrBytes ?? 0,
    sessionsLost: sources.handshake.sessionsLost(),
    listCache: sources.lists.stats(),
    fibersDone: {
      // A remote wire's fibers (exchanges, streams) live in the session's scope, joined when it closes.
      ...(own?.fibersDone ?? { reader: joined, writer: joined, stderr: joined, exit: joined }),
      initialize: sources.handshake.idle(),
      deadlines: sources.deadlines.pollUnsafe() !== undefined
    }
  }
}
