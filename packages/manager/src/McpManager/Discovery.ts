/**
 * Discovery of one client, as a value: `initialize`, then `tools/list` (every page), each bounded, ending in
 * an `Outcome` that the supervisor turns into a ledger event. Nothing here writes state.
 *
 * @internal
 */
import type { McpClient } from "@mcp-fleet/transport"
import { ErrorKind } from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as ServerTransition from "../ServerTransition.ts"

/** What discovery concluded. */
export type Outcome =
  | Extract<ServerTransition.Event, { readonly _tag: "Listed" | "ListFailed" | "InitializeFailed" }>
  /** The server needs the user to authorize (`reason` has no secrets); nothing is retried until then. */
  | { readonly _tag: "AuthorizationRequired"; readonly reason: string }
  /** The process is gone. */
  | { readonly _tag: "Gone" }
  /** A reconnection attempt got no answer to `initialize` within `readyTimeout`; it is abandoned. */
  | { readonly _tag: "NoAnswer"; readonly reason: string }

/**
 * Listings sent again when they failed with `SessionExpired` (the HTTP server forgot the session; the client
 * renews it by itself, and the listing waits for that). More than the client's renewals before it gives up
 * (`SessionsForgotten` after 5 sessions by default), so that a server that forgets every session ends its client
 * before its listing runs out of tries.
 */
const SESSION_RETRIES = 8

/**
 * One `tools/list` (all pages), bounded by `startupTimeoutMs`. A listing that met a session loss is sent again (at
 * most `SESSION_RETRIES` times): a server whose sessions cannot be kept ends its client (`SessionsForgotten`), which
 * is `Gone` here, so the server goes offline with that advice rather than `degraded`.
 */
export const list = Effect.fnUntraced(function*(
  client: McpClient.McpClient,
  startupTimeoutMs: number
): Effect.fn.Return<Outcome> {
  const listed = yield* client.listTools().pipe(
    Effect.retry({ while: (error) => error._tag === "SessionExpired", times: SESSION_RETRIES }),
    Effect.timeoutOption(startupTimeoutMs),
    Effect.result
  )
  const unauthorized = listed._tag === "Failure" ? ErrorKind.userAction(listed.failure) : undefined
  if (unauthorized !== undefined) return { _tag: "AuthorizationRequired", reason: unauthorized }
  if (!client.isAlive()) return { _tag: "Gone" }
  if (listed._tag === "Failure") {
    return { _tag: "ListFailed", reason: `tools/list failed: ${listed.failure.message}` }
  }
  if (Option.isNone(listed.success)) {
    return { _tag: "ListFailed", reason: `tools/list did not finish within ${startupTimeoutMs} ms` }
  }
  const { instructions, skipped, tools } = listed.success.value
  const note = skipped.length > 0
    ? `${skipped.length} listed tools were left out, as invalid or as a repeated name (${
      skipped.map((s) => s.name ?? `#${s.index}`).join(", ")
    })`
    : undefined
  return { _tag: "Listed", tools, instructions, note }
})

/**
 * `initialize`, then the first listing. On a first start (`patient`) a slow `initialize` is only noted (through
 * `onSlow`) and waited for without limit: a slow start is not death. On a reconnection attempt the wait is
 * bounded by `readyTimeoutMs`.
 */
export const discover = Effect.fnUntraced(function*(
  client: McpClient.McpClient,
  timeouts: { readonly readyTimeoutMs: number; readonly startupTimeoutMs: number },
  patient: boolean,
  onSlow: (note: string) => Effect.Effect<void>
): Effect.fn.Return<Outcome> {
  const first = yield* client.awaitReady.pipe(Effect.timeoutOption(timeouts.readyTimeoutMs), Effect.result)
  let ready = first
  if (first._tag === "Success" && Option.isNone(first.success)) {
    if (!patient) {
      const reason = `no answer to initialize within ${timeouts.readyTimeoutMs} ms; the attempt was abandoned`
      return { _tag: "NoAnswer", reason }
    }
    yield* onSlow(`no answer to initialize after ${timeouts.readyTimeoutMs} ms; still waiting`)
    ready = yield* client.awaitReady.pipe(Effect.map(Option.some), Effect.result)
  }
  if (ready._tag === "Failure") {
    const error = ready.failure
    const unauthorized = ErrorKind.userAction(error)
    if (unauthorized !== undefined) return { _tag: "AuthorizationRequired", reason: unauthorized }
    if (!client.isAlive()) return { _tag: "Gone" }
    return { _tag: "InitializeFailed", error: error.message }
  }
  return yield* list(client, timeouts.startupTimeoutMs)
})
