/**
 * The manager's options with its defaults applied (transport options are left alone). Internal: `make` calls it.
 *
 * @internal
 */
import type { ClientHandlers } from "@mcp-fleet/transport"
import { Duration, Effect, Exit, Pull, Schedule } from "effect"
import type { ManagerOptions, StateChange, ToolsChange } from "../ManagerOptions.ts"
import { backoff, defaultReconnect } from "../ManagerOptions.ts"

/** @internal */
export interface Resolved {
  readonly readyTimeoutMs: number
  readonly startupTimeoutMs: number
  readonly reconnect: Schedule.Schedule<unknown, string>
  /** How many attempts the policy allows, for display; `undefined` when it has no limit we could find. */
  readonly maxAttempts: number | undefined
  readonly maxStatusLines: number
  readonly eventCapacity: number
  readonly onStateChange: ((change: StateChange) => Effect.Effect<void>) | undefined
  readonly onToolsChanged: ((change: ToolsChange) => Effect.Effect<void>) | undefined
  /** The fleet-wide handlers (a server's own `client.handlers` override them one by one). */
  readonly handlers: ClientHandlers.ClientHandlers
}

const millis = (input: Duration.Input | undefined, fallback: number): number => {
  if (input === undefined) return fallback
  const ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  return ms > 0 ? ms : fallback
}

/** Steps are counted this far; a schedule that is still going is taken as unlimited. */
const probeLimit = 10_000

/**
 * Counts the attempts a schedule allows by stepping it without sleeping (time moves by each delay). Display
 * only: the supervisor steps its own copy of the schedule.
 */
const countAttempts = Effect.fnUntraced(function*(schedule: Schedule.Schedule<unknown, string>) {
  const step = yield* Schedule.toStep(schedule)
  let now = 0
  for (let n = 0; n < probeLimit; n++) {
    const exit = yield* Effect.exit(step(now, "probe"))
    if (Exit.isFailure(exit)) return Pull.isDoneCause(exit.cause) ? n : undefined
    now += Duration.toMillis(exit.value[1])
  }
  return undefined
})

/** @internal */
export const resolve = Effect.fnUntraced(function*(options: ManagerOptions) {
  const reconnect = options.reconnect === undefined
    ? defaultReconnect
    : Schedule.isSchedule(options.reconnect)
    ? options.reconnect
    : backoff(options.reconnect)
  const resolved: Resolved = {
    readyTimeoutMs: millis(options.readyTimeout, 15 * 60_000),
    startupTimeoutMs: millis(options.startupTimeout, 60_000),
    reconnect,
    maxAttempts: yield* countAttempts(reconnect),
    maxStatusLines: options.maxStatusLines ?? 0,
    eventCapacity: options.eventCapacity !== undefined && options.eventCapacity >= 1
      ? Math.floor(options.eventCapacity)
      : 1024,
    onStateChange: options.onStateChange,
    onToolsChanged: options.onToolsChanged,
    handlers: options.handlers ?? {}
  }
  return resolved
})
