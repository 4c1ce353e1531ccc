/**
 * The one renderer of the status text. `McpManager.statusLines()` is exactly
 * `renderStatusLines(health(), maxLines)`.
 *
 * @since 0.1.0
 */
import type { ServerHealth } from "./ServerHealth.ts"
import * as ServerState from "./ServerState.ts"

/**
 * Totals over a set of servers: tools of ready servers, split into curated and external.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly servers: number
  readonly byState: Readonly<Record<ServerState.ServerState, number>>
  readonly tools: number
  readonly curated: number
  /** `tools - curated`. */
  readonly external: number
}

/**
 * Counts servers by state and the tools of the servers whose state `countsTools`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const summarize = (healths: ReadonlyArray<ServerHealth>): Summary => {
  const byState: Record<ServerState.ServerState, number> = {
    ready: 0,
    starting: 0,
    degraded: 0,
    offline: 0,
    disabled: 0,
    unauthorized: 0
  }
  let tools = 0
  let curated = 0
  for (const h of healths) {
    byState[h.state]++
    if (ServerState.countsTools(h.state)) {
      tools += h.tools.length
      curated += h.curatedCount
    }
  }
  return { servers: healths.length, byState, tools, curated, external: tools - curated }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/**
 * The summary line: servers by state, then tools (curated, external).
 *
 * @since 0.1.0
 * @category rendering
 */
export const formatSummary = (summary: Summary): string => {
  const states = ServerState.all.filter((s) => summary.byState[s] > 0).map((s) => `${summary.byState[s]} ${s}`)
  return `MCP: ${plural(summary.servers, "server")}${states.length > 0 ? ` (${states.join(", ")})` : ""}, ${
    plural(summary.tools, "tool")
  } (${summary.curated} curated, ${summary.external} external)`
}

const oneLine = (text: string, max = 160): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/**
 * What the status text says of a server whose stdout is mostly not JSON.
 *
 * @since 0.4.0
 * @category rendering
 */
export const STDOUT_NOT_JSON_RPC = "stdout is not JSON-RPC (is the server printing logs to stdout?)"

/**
 * Whether a server has written more lines that are not JSON on stdout than JSON-RPC messages (see
 * `ServerHealth.stdoutNotJson`).
 *
 * @since 0.4.0
 * @category rendering
 */
export const stdoutIsNotJsonRpc = (h: ServerHealth): boolean =>
  h.stdoutNotJson !== undefined && h.stdoutNotJson.lines > h.stdoutNotJson.messages

const attemptOf = (h: ServerHealth) => `attempt ${h.attempt}${h.maxAttempts !== undefined ? `/${h.maxAttempts}` : ""}`

/**
 * A wait as the status text shows it: whole seconds (rounded up) from one second on, milliseconds below.
 *
 * @since 0.2.0
 * @category rendering
 */
export const formatWait = (ms: number): string => (ms >= 1000 ? `${Math.ceil(ms / 1000)} s` : `${Math.ceil(ms)} ms`)

/**
 * One server's line. A `starting` server shows no tool count (it has none yet, which is not zero); a ready server
 * whose prompts or resources are still being listed says so (`prompts: listing…`) rather than show no count, and
 * one whose listing failed says `prompts: not listed`. An offline
 * server that is reconnecting shows its attempt and when the next one starts:
 * `offline · reconnecting, attempt 3/5, next in 4 s`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const formatServerLine = (h: ServerHealth): string => {
  const parts: Array<string> = [`${h.name}: ${h.state}`]
  switch (h.state) {
    case "ready": {
      parts.push(
        `${plural(h.tools.length, "tool")} (${h.curatedCount} curated, ${h.tools.length - h.curatedCount} external)`
      )
      for (const kind of ["prompts", "resources"] as const) {
        const count = h[kind]
        if (count !== undefined) parts.push(plural(count, kind.slice(0, -1)))
        else if (h.listing?.includes(kind) === true) parts.push(`${kind}: listing…`)
        else if (h.listErrors?.[kind] !== undefined) parts.push(`${kind}: not listed`)
      }
      if (h.curatedMissing.length > 0) parts.push(`curated but not offered: ${h.curatedMissing.join(", ")}`)
      break
    }
    case "starting":
      parts.push(h.attempt > 0 ? `reconnecting, ${attemptOf(h)}` : "tools not listed yet")
      break
    case "offline":
      if (h.gaveUp && h.attempt > 0) parts.push(`gave up after ${plural(h.attempt, "attempt")}`)
      // Given up at its first start (the reason says why, and may say "not retried" itself).
      else if (h.gaveUp && h.lastError?.startsWith("not retried") !== true) parts.push("not retried")
      else if (h.attempt > 0) {
        const next = h.nextRetryInMs !== undefined ? `, next in ${formatWait(h.nextRetryInMs)}` : ""
        parts.push(`reconnecting, ${attemptOf(h)}${next}`)
      }
      break
    case "degraded":
    case "disabled":
    case "unauthorized":
      break
  }
  if (h.state !== "ready" && stdoutIsNotJsonRpc(h)) parts.push(STDOUT_NOT_JSON_RPC)
  if (h.lastError !== undefined && h.state !== "ready" && h.state !== "disabled") {
    parts.push(oneLine(h.lastError))
  }
  // A remote server says how it is reached (its URL is already redacted).
  if (h.transport !== "stdio" && h.url !== undefined) parts.push(`${h.transport} ${h.url}`)
  // The modern era is said (a server without the mark speaks the legacy one, `health().protocol` has both).
  if (h.protocol?.era === "modern") parts.push(`modern ${h.protocol.version}`)
  return parts.join(" · ")
}

/**
 * The whole status text: the summary line, then one line per server (sorted by name). With `maxLines > 0`,
 * at most that many server lines are shown and the text ends with `+1 more server` or `+N more servers`;
 * `maxLines <= 0` means unlimited.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderStatusLines = (healths: ReadonlyArray<ServerHealth>, maxLines: number): string => {
  const sorted = [...healths].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const lines = [formatSummary(summarize(sorted))]
  const shown = maxLines > 0 && sorted.length > maxLines ? sorted.slice(0, maxLines) : sorted
  for (const h of shown) lines.push(formatServerLine(h))
  const hidden = sorted.length - shown.length
  if (hidden > 0) lines.push(`+${hidden} more ${hidden === 1 ? "server" : "servers"}`)
  return lines.join("\n")
}
