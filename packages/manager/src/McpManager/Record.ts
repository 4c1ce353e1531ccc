/**
 * One server's record in the ledger, and the flat `ServerHealth` view derived from it.
 *
 * @internal
 */
import type { Tool } from "@mcp-fleet/transport"
import { McpClient } from "@mcp-fleet/transport"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { ServerConfig } from "../ManagerOptions.ts"
import type { ServerHealth } from "../ServerHealth.ts"
import * as ServerState from "../ServerState.ts"

/** A running process: its client and the scope that owns the client and its fibers. */
export interface Conn {
  readonly client: McpClient.McpClient
  readonly scope: Scope.Closeable
}

/** Everything about one server; only `Ledger.transition` writes it. */
export interface ServerRecord {
  readonly name: string
  readonly config: ServerConfig
  readonly state: ServerState.State
  /** The current process, if one exists (kept while offline so its exit can still be read). */
  readonly conn: Conn | undefined
  /** Bumped whenever `conn` is replaced or cleared. */
  readonly generation: number
  /** The fingerprint of the last listing, for `onToolsChanged`. */
  readonly listed: string | undefined
  readonly stderrTail: ReadonlyArray<string>
  /** When the server entered its current kind of state (Clock ms). */
  readonly since: number
}

const curatedOf = (config: ServerConfig, tools: ReadonlyArray<Tool.DiscoveredTool>) => {
  const names = new Set(tools.map((t) => t.name))
  const curated = config.curated ?? []
  return {
    curatedCount: curated.filter((n) => names.has(n)).length,
    curatedMissing: curated.filter((n) => !names.has(n))
  }
}

const lastErrorOf = (state: ServerState.State): string | undefined => {
  switch (state._tag) {
    case "Starting":
    case "Offline":
      return state.lastError
    case "Ready":
      return state.note
    case "Degraded":
      return state.reason
    case "GaveUp":
      return `${state.reason}. ${state.lastError ?? ""}`.trim()
    case "NeedsAuthorization":
      return `needs authorization: ${state.advice}; ${state.reason}`
    case "Disabled":
    case "Removed":
      return undefined
  }
}

/** What a server that is not ready wrote on stdout that is not JSON (its client's counters), if anything. */
const stdoutNotJsonOf = (record: ServerRecord): ServerHealth["stdoutNotJson"] => {
  if (record.state._tag === "Ready" || record.state._tag === "Disabled" || record.conn === undefined) return undefined
  const stats = record.conn.client.stats()
  return stats.notJson === 0 ? undefined : { lines: stats.notJson, messages: stats.messages }
}

/** The flat, JSON-friendly snapshot of a record at Clock time `now`. */
export const toHealth = (record: ServerRecord, maxAttempts: number | undefined, now: number): ServerHealth => {
  const state = record.state
  const stdoutNotJson = stdoutNotJsonOf(record)
  const tools = state._tag === "Ready" ? state.tools : []
  const nextRetryAt = state._tag === "Offline" ? state.nextRetryAt : undefined
  const client = record.conn?.client
  const session = client === undefined ? undefined : Option.getOrUndefined(client.session())
  const serverStream = client?.serverStream()
  return {
    name: record.name,
    state: ServerState.kindOf(state),
    // The connection knows best (after auto-detection: the transport found); before one exists, the config.
    transport: client?.transport ?? (record.config.url === undefined ? "stdio" : record.config.transport === "sse"
      ? "sse"
      : "http"),
    url: client?.url ?? (record.config.url === undefined ? undefined : McpClient.redactUrl(record.config.url)),
    ...(serverStream === undefined ? {} : { serverStream }),
    ...(session === undefined ? {} : { protocol: { era: session.era ?? "legacy", version: session.protocolVersion } }),
    tools,
    curated: record.config.curated ?? [],
    ...(state._tag === "Ready" ? curatedOf(record.config, tools) : { curatedCount: 0, curatedMissing: [] }),
    instructions: state._tag === "Ready" || state._tag === "Degraded" ? state.instructions : undefined,
    lastError: lastErrorOf(state),
    attempt: state._tag === "Starting" || state._tag === "Offline"
      ? state.attempt
      : state._tag === "GaveUp"
      ? state.attempts
      : 0,
    maxAttempts,
    gaveUp: state._tag === "GaveUp",
    listChangedPending: state._tag === "Starting" && state.listChangedPending,
    pid: ServerState.isLive(state) ? state.pid : undefined,
    nextRetryAt,
    nextRetryInMs: nextRetryAt === undefined ? undefined : Math.max(0, nextRetryAt - now),
    stderrTail: record.stderrTail,
    since: record.since,
    ...(stdoutNotJson === undefined ? {} : { stdoutNotJson })
  }
}
