/**
 * `mcp-fleet status --json`: the ledger as one JSON document on stdout. The shape is stable: fields are only
 * ever added.
 *
 * ```json
 * {
 *   "settled": true,
 *   "summary": { "servers": 2, "ready": 1, "starting": 0, "degraded": 0, "offline": 1, "disabled": 0,
 *                "unauthorized": 0, "tools": 9, "curated": 0, "external": 9 },
 *   "servers": [
 *     { "name": "alpha", "state": "ready", "settled": true, "tools": 9, "curated": [], "curatedCount": 0,
 *       "curatedMissing": [], "attempt": 0, "maxAttempts": 2, "gaveUp": false, "pid": 4242,
 *       "transport": "stdio", "url": null, "protocol": { "era": "legacy", "version": "2025-11-25" },
 *       "lastError": null, "explanation": null, "stderr": [], "prompts": null, "resources": null, "listing": [] }
 *   ]
 * }
 * ```
 *
 * @since 0.1.0
 */
import type { ServerHealth } from "@mcp-fleet/manager"
import { StatusText } from "@mcp-fleet/manager"
import { isSettled } from "./Settle.ts"

/**
 * One server in `status --json`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerJson {
  readonly name: string
  /** `starting`, `ready`, `degraded`, `offline`, `disabled` or `unauthorized`. */
  readonly state: string
  /** Whether the server reached a state it keeps without outside help (see `Settle.isSettled`). */
  readonly settled: boolean
  /** How many tools it lists (0 unless ready). */
  readonly tools: number
  readonly curated: ReadonlyArray<string>
  readonly curatedCount: number
  readonly curatedMissing: ReadonlyArray<string>
  readonly attempt: number
  /** The reconnection schedule's number of attempts (`null` when the schedule does not say). */
  readonly maxAttempts: number | null
  readonly gaveUp: boolean
  readonly pid: number | null
  /** `stdio`, `http` or `sse`. */
  readonly transport: string
  /** A remote server's URL, credentials redacted (`null` for stdio). */
  readonly url: string | null
  /**
   * The era (`legacy`: `initialize`; `modern`: 2026-07-28, `server/discover`) and version its handshake settled on
   * (`null` until a handshake has succeeded).
   */
  readonly protocol: { readonly era: "legacy" | "modern"; readonly version: string } | null
  readonly lastError: string | null
  /** What the CLI would say about a server that is not ready (`null` when it is ready). */
  readonly explanation: string | null
  /** Its last stderr lines, oldest first. */
  readonly stderr: ReadonlyArray<string>
  /** How many prompts a ready server offers (`null`: not ready, none declared, not listed yet, or listing failed). */
  readonly prompts: number | null
  /** How many resources a ready server offers (`null` as for `prompts`). */
  readonly resources: number | null
  /** The declared lists whose first listing has not finished yet (`prompts`, `resources`). */
  readonly listing: ReadonlyArray<string>
}

/**
 * The `status --json` document.
 *
 * @since 0.1.0
 * @category models
 */
export interface StatusJson {
  readonly settled: boolean
  readonly summary: {
    readonly servers: number
    readonly ready: number
    readonly starting: number
    readonly degraded: number
    readonly offline: number
    readonly disabled: number
    /** Remote servers waiting for the user to authorize (`mcp-fleet auth login <server>`). */
    readonly unauthorized: number
    readonly tools: number
    readonly curated: number
    readonly external: number
  }
  readonly servers: ReadonlyArray<ServerJson>
}

/**
 * Builds the document; `explain` and `stderrOf` give the CLI's explanation and stderr lines of a server.
 *
 * @since 0.1.0
 * @category rendering
 */
export const toJson = (
  healths: ReadonlyArray<ServerHealth.ServerHealth>,
  explain: (h: ServerHealth.ServerHealth) => string,
  stderrOf: (name: string) => ReadonlyArray<string>
): StatusJson => {
  const summary = StatusText.summarize(healths)
  return {
    settled: healths.every(isSettled),
    summary: {
      servers: summary.servers,
      ...summary.byState,
      tools: summary.tools,
      curated: summary.curated,
      external: summary.external
    },
    servers: healths.map((h) => {
      const stderr = stderrOf(h.name)
      return {
        name: h.name,
        state: h.state,
        settled: isSettled(h),
        tools: h.state === "ready" ? h.tools.length : 0,
        curated: h.curated,
        curatedCount: h.curatedCount,
        curatedMissing: h.curatedMissing,
        attempt: h.attempt,
        maxAttempts: h.maxAttempts ?? null,
        gaveUp: h.gaveUp,
        pid: h.pid ?? null,
        transport: h.transport,
        url: h.url ?? null,
        protocol: h.protocol === undefined ? null : { era: h.protocol.era, version: h.protocol.version },
        lastError: h.lastError ?? null,
        explanation: h.state === "ready" ? null : explain(h),
        stderr: stderr.length > 0 ? stderr : h.stderrTail,
        prompts: h.prompts ?? null,
        resources: h.resources ?? null,
        listing: h.listing ?? []
      }
    })
  }
}
