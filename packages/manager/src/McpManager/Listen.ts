/**
 * The `subscriptions/listen` stream of one modern server process (2026-07-28: list changes arrive only on it).
 * Once the server is ready and speaks the modern era, one listen is kept open for tools, prompts and resources
 * list changes, and for the resource subscriptions the host holds on the client (`subscribeResource`: the session
 * adds them to the listen's `resourceSubscriptions` and renews the open listen when they change). Its notifications arrive on the client's `notifications` stream, where the connection's reader
 * treats them as it treats legacy ones (coalesced refresh, pending replay before the server settles).
 *
 * Each acknowledgement is the start: what changed while no stream was open was not seen, so every ack signals one
 * change (a re-list that fires `onToolsChanged` only if the tool set really differs). A stream that ends or drops
 * is re-opened after the manager's reconnect backoff (reset by every ack); a refusal, or a server that speaks the
 * legacy era, ends the loop. A new process (a restart) gets its own loop. Closing the process's scope cancels the
 * listen (stdio: `notifications/cancelled`; HTTP: the stream is closed).
 *
 * @internal
 */
import type { McpClient } from "@mcp-fleet/transport"
import { Subscriptions } from "@mcp-fleet/transport"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"

/** What one attempt came to. */
type Attempt = "acknowledged" | "failed" | "stop"

/**
 * Keeps the listen of `client` open while `current()` holds (it is the server's process and alive). `changed`
 * is what a list_changed does.
 */
export const keep = Effect.fnUntraced(function*(
  name: string,
  client: McpClient.McpClient,
  reconnect: Schedule.Schedule<unknown, string>,
  ackTimeoutMs: number,
  current: () => boolean,
  changed: Effect.Effect<void>
) {
  const ready = yield* Effect.result(client.awaitReady)
  if (ready._tag === "Failure") return
  const attempt: Effect.Effect<Attempt> = Effect.scoped(Effect.gen(function*() {
    const opened = yield* Effect.result(client.listen(Subscriptions.allLists, { timeout: ackTimeoutMs }))
    if (opened._tag === "Failure") {
      const error = opened.failure
      if (error._tag === "ListenFailed" && (error.reason === "legacy" || error.reason === "refused")) {
        if (error.reason === "refused") {
          yield* Effect.logWarning(`MCP server "${name}": ${error.message}; its list changes will not be seen`)
        }
        return "stop" as const
      }
      yield* Effect.logWarning(`MCP server "${name}": ${error.message}; trying again`)
      return "failed" as const
    }
    const { honoured } = opened.success
    if (honoured.toolsListChanged !== true) {
      yield* Effect.logWarning(`MCP server "${name}" does not send tools list changes on subscriptions/listen`)
    }
    yield* changed
    const end = yield* opened.success.ended
    yield* Effect.logDebug(
      `MCP server "${name}": subscriptions/listen ${
        end._tag === "Ended" ? "was ended by the server" : `dropped (${end.error.message})`
      }; re-opening it`
    )
    return "acknowledged" as const
  }))
  let step = yield* Schedule.toStep(reconnect)
  while (current()) {
    const outcome = yield* attempt
    if (outcome === "stop" || !current()) return
    if (outcome === "acknowledged") step = yield* Schedule.toStep(reconnect)
    const next = yield* Effect.exit(step(yield* Clock.currentTimeMillis, "listen"))
    if (Exit.isFailure(next)) {
      return yield* Effect.logWarning(
        `MCP server "${name}": subscriptions/listen could not be kept open; its list changes will not be seen`
      )
    }
    yield* Effect.sleep(next.value[1])
  }
})
