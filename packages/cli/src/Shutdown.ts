/**
 * What Ctrl-C looks like while servers shut down. The manager closes every server gracefully: stdin closed, then
 * SIGTERM after {@link SHUTDOWN_GRACE}, then SIGKILL after {@link KILL_GRACE}. A server that ignores all that keeps
 * the command waiting for both; so, {@link NOTICE_AFTER} into the shutdown, one line names the servers still running
 * and when they will be killed, and a second Ctrl-C (or SIGTERM) kills them at once.
 *
 * @since 0.4.0
 */
import type { McpManager } from "@mcp-fleet/manager"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { CliEnvironment } from "./CliEnvironment.ts"
import * as ProcessProbe from "./internal/ProcessProbe.ts"

/**
 * After stdin is closed, how long a server may take to exit before SIGTERM (the CLI's servers' `shutdownGrace`).
 *
 * @since 0.4.0
 * @category constants
 */
export const SHUTDOWN_GRACE: Duration.Duration = Duration.seconds(2)

/**
 * After SIGTERM, how long before SIGKILL (the CLI's servers' `killGrace`).
 *
 * @since 0.4.0
 * @category constants
 */
export const KILL_GRACE: Duration.Duration = Duration.seconds(2)

/**
 * How long into a shutdown the servers still running are named (a server that exits when its stdin closes is long
 * gone by then).
 *
 * @since 0.4.0
 * @category constants
 */
export const NOTICE_AFTER: Duration.Duration = Duration.millis(500)

const names = (list: ReadonlyArray<string>): string =>
  list.length <= 1 ? list.join("") : `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`

/** The servers whose process is still running. */
const running = (manager: McpManager.McpManager["Service"]) =>
  Effect.filter(
    manager.health().flatMap((h) => (h.pid === undefined ? [] : [{ name: h.name, pid: h.pid }])),
    (server) => ProcessProbe.isRunning(server.pid)
  )

/**
 * The one line of {@link notice}: `waiting for stubborn to exit; killing it in 4 s (Ctrl-C again kills it now)`.
 *
 * @since 0.4.0
 * @category rendering
 */
export const line = (servers: ReadonlyArray<string>, remainingMs: number): string => {
  const them = servers.length === 1 ? "it" : "them"
  return `waiting for ${names(servers)} to exit; killing ${them} in ${
    Math.max(1, Math.ceil(remainingMs / 1000))
  } s (Ctrl-C again kills ${them} now)`
}

/**
 * The shutdown's notices, run while the manager's layer closes (fork it into a scope that outlives the layer's):
 * after {@link NOTICE_AFTER}, the line naming the servers still running; on the next Ctrl-C or SIGTERM
 * (`CliEnvironment.onSignal`), `manager.forceClose` at once. Ends only by interruption.
 *
 * @since 0.4.0
 * @category shutdown
 */
export const notice = (manager: McpManager.McpManager["Service"]): Effect.Effect<void, never, CliEnvironment> =>
  Effect.gen(function*() {
    const { onSignal } = yield* CliEnvironment
    const started = yield* Clock.currentTimeMillis
    const deadline = started + Duration.toMillis(Duration.sum(SHUTDOWN_GRACE, KILL_GRACE))
    const told = Effect.gen(function*() {
      yield* Effect.sleep(NOTICE_AFTER)
      const left = yield* running(manager)
      if (left.length === 0) return
      const now = yield* Clock.currentTimeMillis
      yield* Console.error(`mcp-fleet: ${line(left.map((s) => s.name), deadline - now)}`)
    })
    const again = onSignal === undefined
      ? Effect.never
      : Effect.callback<void>((resume) => {
        const off = onSignal(() => resume(Effect.void))
        return Effect.sync(off)
      })
    const kill = Effect.gen(function*() {
      yield* again
      const left = yield* running(manager)
      if (left.length > 0) yield* Console.error(`mcp-fleet: killing ${names(left.map((s) => s.name))} now`)
      yield* manager.forceClose
    })
    yield* Effect.all([told, kill, Effect.never], { concurrency: "unbounded", discard: true })
  })

/**
 * Runs `use` with `manager`; if it is interrupted (Ctrl-C, SIGTERM, SIGHUP), {@link notice} runs in the current
 * scope while the caller's manager layer closes. The current scope must outlive that layer.
 *
 * @since 0.4.0
 * @category shutdown
 */
export const noticeOnInterrupt = <A, E, R>(
  manager: McpManager.McpManager["Service"],
  use: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | CliEnvironment | Scope.Scope> =>
  Effect.flatMap(
    Effect.scope,
    (scope) => use.pipe(Effect.onInterrupt(() => Effect.asVoid(Effect.forkIn(notice(manager), scope))))
  )

/**
 * The client options every server of the CLI gets: the grace periods {@link notice} counts on.
 *
 * @since 0.4.0
 * @category constants
 */
export const clientOptions = { shutdownGrace: SHUTDOWN_GRACE, killGrace: KILL_GRACE } as const
