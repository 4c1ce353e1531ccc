/**
 * `subscriptions/listen` (2026-07-28): the one request through which a modern server sends list changes and
 * resource updates. The client sends it with a filter; the server answers first with
 * `notifications/subscriptions/acknowledged` (the subset it honours), then sends the matching notifications on the
 * same stream, each tagged `_meta["io.modelcontextprotocol/subscriptionId"]`. The stream stays open until the client
 * ends it (stdio: `notifications/cancelled`; HTTP: closing the stream) or the server answers the request (a graceful
 * end). The notifications themselves arrive on the client's `notifications` stream, as legacy ones do.
 *
 * @since 0.3.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ErrorKind from "./ErrorKind.ts"
import type { RequestError } from "./McpError.ts"

/**
 * What a listen asks for (or, acknowledged, what the server honours).
 *
 * @since 0.3.0
 * @category models
 */
export interface Filter {
  readonly toolsListChanged?: boolean | undefined
  readonly promptsListChanged?: boolean | undefined
  readonly resourcesListChanged?: boolean | undefined
  /** URIs whose `notifications/resources/updated` the client wants. */
  readonly resourceSubscriptions?: ReadonlyArray<string> | undefined
}

/**
 * Every list change: tools, prompts and resources.
 *
 * @since 0.3.0
 * @category constants
 */
export const allLists: Filter = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true }

/**
 * How an acknowledged listen ended: the server answered it (`Ended`), or the request failed (`Dropped`: the stream
 * broke, the process exited).
 *
 * @since 0.3.0
 * @category models
 */
export type End =
  | { readonly _tag: "Ended" }
  | { readonly _tag: "Dropped"; readonly error: RequestError }

/**
 * An acknowledged listen. It lasts as long as the scope it was opened in: closing that scope cancels it.
 *
 * @since 0.3.0
 * @category models
 */
export interface Listening {
  /** The subset of the filter the server said it honours. */
  readonly honoured: Filter
  /** Waits until the listen ends on its own (it never ends while its scope is open and the server keeps it). */
  readonly ended: Effect.Effect<End>
}

/**
 * A listen that did not start: the server speaks the legacy era (no `subscriptions/listen`; list changes arrive
 * unsolicited), refused it with an error, ended it before acknowledging, or sent no acknowledgement in time.
 *
 * @since 0.3.0
 * @category errors
 */
export class ListenFailed extends Schema.TaggedError<ListenFailed>()("ListenFailed", {
  server: Schema.String,
  reason: Schema.Literals(["legacy", "refused", "ended", "no-ack"]),
  detail: Schema.String
}) {
  /**
   * The server's for good when it speaks the legacy era or refused the listen; transient when it ended the listen
   * or did not acknowledge it in time (a new listen may work).
   */
  get kind(): ErrorKind.Transient | ErrorKind.ServerFault {
    return this.reason === "legacy" || this.reason === "refused" ? ErrorKind.serverFault : ErrorKind.transient
  }
  override get message(): string {
    return `MCP server "${this.server}" did not start subscriptions/listen: ${this.detail}`
  }
}
