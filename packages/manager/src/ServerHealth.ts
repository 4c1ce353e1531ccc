/**
 * An immutable snapshot of one managed server: what `health()` returns and what the status text renders.
 *
 * @since 0.1.0
 */
import type { Tool } from "@mcp-fleet/transport"
import type { ServerState } from "./ServerState.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface ServerHealth {
  readonly name: string
  readonly state: ServerState
  /** How the server is reached: `stdio` (a child process), `http` (Streamable HTTP) or `sse` (legacy HTTP+SSE). */
  readonly transport: "stdio" | "http" | "sse"
  /** A remote server's URL with any credentials in it replaced by `***`; `undefined` for stdio. */
  readonly url: string | undefined
  /**
   * Why a remote server's own stream (Streamable HTTP's GET) is not open, once its client stopped opening it: the
   * server offers none (405), refused it (a 404 from an app that routes only POST), or it kept closing without a
   * message. What the server sends unprompted (list changes, its requests) does not arrive then; calls still work.
   * Absent while the stream is open, and for stdio.
   */
  readonly serverStream?: string | undefined
  /**
   * The protocol the server speaks once its handshake is done: its era (`legacy`: `initialize`; `modern`:
   * `server/discover`, 2026-07-28) and version. Absent before.
   */
  readonly protocol?: { readonly era: "legacy" | "modern"; readonly version: string } | undefined
  /** The server's tools while `ready`; empty otherwise (see `countsTools`). */
  readonly tools: ReadonlyArray<Tool.DiscoveredTool>
  /** Tool names the host bridges by hand (configuration), as given. */
  readonly curated: ReadonlyArray<string>
  /** How many of this server's listed tools are curated. */
  readonly curatedCount: number
  /** Curated names this server does not actually offer (a stale hand-written bridge list). */
  readonly curatedMissing: ReadonlyArray<string>
  /** The server's `instructions` from `initialize`, if it sent any. */
  readonly instructions: string | undefined
  /** Why the server is not ready, or the last failure seen. */
  readonly lastError: string | undefined
  /** Reconnection attempts made since the last success (0 when none). */
  readonly attempt: number
  /** The reconnection policy's limit, for display (`attempt/maxAttempts`); `undefined` for an unlimited policy. */
  readonly maxAttempts: number | undefined
  /** Whether reconnection has given up (offline until an explicit restart). */
  readonly gaveUp: boolean
  /** A `tools/list_changed` arrived before the server settled: it will be replayed once. */
  readonly listChangedPending: boolean
  /** The child's pid while a process exists. */
  readonly pid: number | undefined
  /** While offline and reconnecting: when the next attempt starts (Clock milliseconds). */
  readonly nextRetryAt?: number | undefined
  /** The same, as milliseconds from the moment this snapshot was taken. */
  readonly nextRetryInMs?: number | undefined
  /** The last lines the server wrote to stderr. */
  readonly stderrTail: ReadonlyArray<string>
  /** When the server entered this state (Clock milliseconds). */
  readonly since: number
  /** How many prompts a ready server offers; absent when it declares no `prompts` (or their listing failed). */
  readonly prompts?: number | undefined
  /** How many resources a ready server offers; absent when it declares no `resources` (or their listing failed). */
  readonly resources?: number | undefined
}
