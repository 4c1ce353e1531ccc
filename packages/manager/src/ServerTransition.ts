/**
 * The rules of a server's life in one pure function: `next(state, event)` returns the new state, or `undefined`
 * when the event does not apply in that state (it is refused, and nothing changes). No fiber, no clock, no
 * process: whoever observed the event passes in what it saw (a pid, an error text, a time).
 *
 * @since 0.2.0
 */
import type { Tool } from "@mcp-fleet/transport"
import type { Starting, State } from "./ServerState.ts"

/**
 * Something that happened to a server.
 *
 * @since 0.2.0
 * @category models
 */
export type Event =
  /** A process was started for the server. */
  /** A client exists: its process id, or `undefined` for a remote server (which has no process). */
  | { readonly _tag: "Spawned"; readonly pid: number | undefined }
  /** `initialize` has not been answered within `readyTimeout` (first start: the server keeps waiting). */
  | { readonly _tag: "InitializeSlow"; readonly note: string }
  /** `initialize` failed while the process lives. */
  | { readonly _tag: "InitializeFailed"; readonly error: string }
  /** A `tools/list_changed` notification arrived. */
  | { readonly _tag: "ListChangedSeen" }
  /** A `tools/list` finished. */
  | {
    readonly _tag: "Listed"
    readonly tools: ReadonlyArray<Tool.DiscoveredTool>
    readonly instructions: string | undefined
    readonly note: string | undefined
  }
  /** A `tools/list` failed or timed out while the process lives. */
  | { readonly _tag: "ListFailed"; readonly reason: string }
  /** The server needs the user to authorize (OAuth could not be completed unattended). */
  | { readonly _tag: "AuthorizationRequired"; readonly reason: string; readonly advice: string }
  /** The process is gone (or an attempt was abandoned). */
  | { readonly _tag: "Exited"; readonly lastError: string }
  /** A process could not be started at all. */
  | { readonly _tag: "SpawnFailed"; readonly lastError: string }
  /** The reconnection policy scheduled attempt `attempt` for Clock time `at`. */
  | { readonly _tag: "RetryScheduled"; readonly attempt: number; readonly at: number }
  /** Reconnection stops (the policy is spent, or the failure repeats identically). */
  | { readonly _tag: "GaveUp"; readonly reason: string }
  /** An explicit restart (or a replacement after a config change): start afresh, attempts reset. */
  | { readonly _tag: "Restarted" }
  /** The configuration changed in a way that needs no new process (the state stays as it is). */
  | { readonly _tag: "Reconfigured" }
  /** The configuration turned the server off. */
  | { readonly _tag: "Disabled" }
  /** The configuration turned a disabled server on. */
  | { readonly _tag: "Enabled" }
  /** The server left the fleet. */
  | { readonly _tag: "Removed" }

const starting = (attempt: number, lastError: string | undefined): Starting => ({
  _tag: "Starting",
  attempt,
  pid: undefined,
  listChangedPending: false,
  lastError
})

/**
 * The one transition function.
 *
 * @since 0.2.0
 * @category transitions
 */
export const next = (state: State, event: Event): State | undefined => {
  if (state._tag === "Removed") return undefined
  switch (event._tag) {
    case "Spawned":
      switch (state._tag) {
        case "Starting":
          return state.pid === undefined ? { ...state, pid: event.pid } : undefined
        case "Offline":
          return { ...starting(state.attempt, state.lastError), pid: event.pid }
        default:
          return undefined
      }
    case "InitializeSlow":
      return state._tag === "Starting" ? { ...state, lastError: event.note } : undefined
    case "InitializeFailed":
      return state._tag === "Starting"
        ? { _tag: "Degraded", pid: state.pid, reason: event.error, instructions: undefined, initializeFailed: true }
        : undefined
    case "ListChangedSeen":
      return state._tag === "Starting" && !state.listChangedPending ? { ...state, listChangedPending: true } : undefined
    case "Listed": {
      if (state._tag !== "Starting" && state._tag !== "Ready" && state._tag !== "Degraded") return undefined
      if (event.tools.length === 0) {
        return {
          _tag: "Degraded",
          pid: state.pid,
          reason: event.note ?? "the server lists no tools",
          instructions: event.instructions,
          initializeFailed: false
        }
      }
      return { _tag: "Ready", pid: state.pid, tools: event.tools, instructions: event.instructions, note: event.note }
    }
    case "ListFailed":
      return state._tag === "Starting" || state._tag === "Ready" || state._tag === "Degraded"
        ? {
          _tag: "Degraded",
          pid: state.pid,
          reason: event.reason,
          instructions: state._tag === "Starting" ? undefined : state.instructions,
          initializeFailed: false
        }
        : undefined
    case "AuthorizationRequired":
      return state._tag === "Starting" || state._tag === "Ready" || state._tag === "Degraded" ||
          state._tag === "Offline"
        ? { _tag: "NeedsAuthorization", reason: event.reason, advice: event.advice }
        : undefined
    case "Exited":
      return state._tag === "Starting" || state._tag === "Ready" || state._tag === "Degraded"
        ? {
          _tag: "Offline",
          lastError: event.lastError,
          attempt: state._tag === "Starting" ? state.attempt : 0,
          nextRetryAt: undefined
        }
        : undefined
    case "SpawnFailed":
      return state._tag === "Starting" && state.pid === undefined
        ? { _tag: "Offline", lastError: event.lastError, attempt: state.attempt, nextRetryAt: undefined }
        : state._tag === "Offline"
        ? { ...state, lastError: event.lastError, nextRetryAt: undefined }
        : undefined
    case "RetryScheduled":
      return state._tag === "Offline" ? { ...state, attempt: event.attempt, nextRetryAt: event.at } : undefined
    case "GaveUp":
      return state._tag === "Offline"
        ? { _tag: "GaveUp", lastError: state.lastError, attempts: state.attempt, reason: event.reason }
        : undefined
    case "Restarted":
      return state._tag === "Disabled" ? undefined : starting(0, undefined)
    case "Reconfigured":
      return state
    case "Disabled":
      return state._tag === "Disabled" ? undefined : { _tag: "Disabled" }
    case "Enabled":
      return state._tag === "Disabled" ? starting(0, undefined) : undefined
    case "Removed":
      return { _tag: "Removed" }
  }
}
