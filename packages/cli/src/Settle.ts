/**
 * Waiting for a fleet to settle: every server `ready` (with every list it declares discovered), `degraded`,
 * `disabled`, `unauthorized`, or `offline` with reconnection given up. A server that is `starting`, `ready` while its
 * prompts or resources are still being listed, or `offline` and still reconnecting, has not settled yet.
 *
 * @since 0.1.0
 */
import type { McpManager, ServerHealth } from "@mcp-fleet/manager"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/**
 * Whether a server is in a state it will keep without outside help, whatever is still being listed besides its
 * tools: enough for a command that only calls it or lists its tools (`call`, `read`, `prompt`, `tools`).
 *
 * @since 0.4.0
 * @category predicates
 */
export const isStateSettled = (h: ServerHealth.ServerHealth): boolean =>
  h.state === "ready" || h.state === "degraded" || h.state === "disabled" || h.state === "unauthorized" ||
  (h.state === "offline" && h.gaveUp)

/**
 * Whether a server has reached a state it will keep without outside help (a ready server: once the lists it
 * declares besides tools have been listed too, so that no count is shown before it is known).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isSettled = (h: ServerHealth.ServerHealth): boolean =>
  isStateSettled(h) && (h.state !== "ready" || h.listing === undefined || h.listing.length === 0)

/**
 * Waits until every server has settled (by `settled`, default {@link isSettled}) or `wait` has passed, whichever
 * comes first (it never fails), and returns the servers that had not settled by then (empty when all did).
 *
 * @since 0.1.0
 * @category waiting
 */
export const awaitSettled = (
  manager: McpManager.McpManager["Service"],
  wait: Duration.Duration,
  settled: (h: ServerHealth.ServerHealth) => boolean = isSettled
): Effect.Effect<ReadonlyArray<ServerHealth.ServerHealth>> =>
  manager.snapshots.pipe(
    Stream.filter((healths) => healths.every(settled)),
    Stream.runHead,
    Effect.timeoutOption(wait),
    Effect.map(() => manager.health().filter((h) => !settled(h)))
  )

/**
 * Waits until one server's snapshot satisfies `predicate` (checked on its current state first), or `wait`
 * has passed; returns the matching snapshot, or `undefined` on timeout.
 *
 * @since 0.1.0
 * @category waiting
 */
export const awaitServer = (
  manager: McpManager.McpManager["Service"],
  name: string,
  predicate: (h: ServerHealth.ServerHealth) => boolean,
  wait: Duration.Input
): Effect.Effect<ServerHealth.ServerHealth | undefined> =>
  manager.snapshots.pipe(
    Stream.map((healths) => healths.find((h) => h.name === name)),
    Stream.filter((h): h is ServerHealth.ServerHealth => h !== undefined && predicate(h)),
    Stream.runHead,
    Effect.timeoutOption(wait),
    Effect.map((found) => Option.getOrUndefined(Option.flatten(found)))
  )
