/**
 * What the status page is sent: plain JSON built field by field from the manager's health snapshot, the gateway's
 * hosts and the call window. Nothing is copied wholesale, so what a server's config holds (env values, headers,
 * tokens) and what a host must keep (its session id) cannot reach the page: a field is on the page only if it is
 * named here. The texts are the manager's, already redacted (`lastError`, `url`, the status lines).
 *
 * @internal
 */
import type { ServerHealth } from "@mcp-fleet/manager"
import { StatusText } from "@mcp-fleet/manager"
import type * as CallWindow from "../CallWindow.ts"
import type { Host } from "../server/Host.ts"

/** One server's row. */
export interface ServerRow {
  readonly name: string
  readonly state: string
  /** The manager's own line for this server (`memory: offline · reconnecting, attempt 1/5, next in 2 s · …`). */
  readonly line: string
  readonly era: "legacy" | "modern" | undefined
  readonly version: string | undefined
  readonly transport: "stdio" | "http" | "sse"
  /** A remote server's URL, credentials already replaced by `***`. */
  readonly url: string | undefined
  /** Counts while ready (`undefined` otherwise, or when the server declares no such list). */
  readonly tools: number | undefined
  readonly resources: number | undefined
  readonly prompts: number | undefined
  /** Why the server is not ready, or the last failure seen (with the manager's advice). */
  readonly lastError: string | undefined
  readonly attempt: number
  readonly maxAttempts: number | undefined
  readonly gaveUp: boolean
  /** While reconnecting: when the next attempt starts (Clock milliseconds). */
  readonly nextRetryAt: number | undefined
  /** When the server entered its state (Clock milliseconds). */
  readonly since: number
  readonly pid: number | undefined
}

/** The `state` event: the fleet. */
export interface StateEvent {
  /** The gateway's Clock when this was built (milliseconds): the page measures `since` and `nextRetryAt` from it. */
  readonly now: number
  /** The summary line of the manager's status text, exactly. */
  readonly summary: string
  /** The whole status text, as `statusLines()` renders it (unlimited): the summary, then a line per server. */
  readonly text: string
  readonly servers: ReadonlyArray<ServerRow>
}

/** One connected host. */
export interface HostRow {
  readonly name: string | undefined
  readonly version: string | undefined
  readonly profile: string | undefined
  readonly era: "legacy" | "modern"
  readonly transport: "stdio" | "http"
  readonly protocolVersion: string
  /** Its requests being served now. */
  readonly inFlight: number
}

/** The `metrics` event: hosts and calls. */
export interface MetricsEvent {
  readonly now: number
  readonly windowMs: number
  readonly bucketMs: number
  readonly gateway: {
    readonly hosts: number
    readonly sessions: number
    readonly listeners: number
    readonly calls: number
  }
  readonly hosts: ReadonlyArray<HostRow>
  readonly tools: ReadonlyArray<CallWindow.ToolStats>
  /** Per server, its buckets with calls in the window, oldest first. */
  readonly series: Readonly<Record<string, ReadonlyArray<CallWindow.Bucket>>>
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const hostKey = (host: HostRow) => `${host.name ?? ""}\u0000${host.profile ?? ""}\u0000${host.protocolVersion}`

/** Sorted by name, as the status text sorts them. */
const byName = (healths: ReadonlyArray<ServerHealth.ServerHealth>) =>
  [...healths].sort((a, b) => compare(a.name, b.name))

/** One server's row, field by field. */
export const serverRow = (h: ServerHealth.ServerHealth): ServerRow => {
  const ready = h.state === "ready"
  return {
    name: h.name,
    state: h.state,
    line: StatusText.formatServerLine(h),
    era: h.protocol?.era,
    version: h.protocol?.version,
    transport: h.transport,
    url: h.url,
    tools: ready ? h.tools.length : undefined,
    resources: ready ? h.resources : undefined,
    prompts: ready ? h.prompts : undefined,
    lastError: h.lastError,
    attempt: h.attempt,
    maxAttempts: h.maxAttempts,
    gaveUp: h.gaveUp,
    nextRetryAt: h.state === "offline" && !h.gaveUp ? h.nextRetryAt : undefined,
    since: h.since,
    pid: h.pid
  }
}

/** The fleet at `now`: the status text is `renderStatusLines` of the same snapshot, unlimited. */
export const state = (healths: ReadonlyArray<ServerHealth.ServerHealth>, now: number): StateEvent => {
  const sorted = byName(healths)
  const text = StatusText.renderStatusLines(sorted, 0)
  return { now, summary: text.split("\n")[0]!, text, servers: sorted.map(serverRow) }
}

/** One host, field by field (its id, which is a 2025-era session id, stays out). */
export const hostRow = (host: Host): HostRow => ({
  name: host.clientInfo?.name,
  version: host.clientInfo?.version,
  profile: host.profile,
  era: host.era,
  transport: host.transport,
  protocolVersion: host.protocolVersion,
  inFlight: host.inFlight.size
})

/** Hosts and calls at `now`. */
export const metrics = (
  input: {
    readonly hosts: ReadonlyArray<Host>
    readonly gateway: MetricsEvent["gateway"]
    readonly calls: CallWindow.CallWindow
  },
  now: number
): MetricsEvent => ({
  now,
  windowMs: input.calls.options.windowMs,
  bucketMs: input.calls.options.bucketMs,
  gateway: {
    hosts: input.gateway.hosts,
    sessions: input.gateway.sessions,
    listeners: input.gateway.listeners,
    calls: input.gateway.calls
  },
  hosts: input.hosts.map(hostRow).sort((a, b) => compare(hostKey(a), hostKey(b))),
  tools: input.calls.tools(now),
  series: Object.fromEntries(input.calls.series(now))
})
