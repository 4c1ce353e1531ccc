/**
 * What a one-shot command (`status`, `tools`, `call`) writes on stderr while it waits, so that it always says
 * what is happening:
 *
 * - every server's stderr, live, is kept (its last {@link KEPT_LINES} lines) and, with `--verbose`, echoed as
 *   `[server] line`;
 * - on a terminal, one progress line redrawn in place: which servers are still starting and for how long, which
 *   are reconnecting (`attempt/max`); nothing of it on a pipe;
 * - a server still `starting` after {@link STUCK_AFTER_MS} gets one note with its last stderr lines (on a pipe
 *   too: it explains a wait).
 *
 * Every line goes through {@link Diagnostics.line}, which clears the progress line first.
 *
 * @since 0.1.0
 */
import type { McpManager, ServerHealth } from "@mcp-fleet/manager"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"

/**
 * How many of each server's last stderr lines are kept for explanations.
 *
 * @since 0.1.0
 * @category constants
 */
export const KEPT_LINES = 12

/**
 * After how long a server still starting gets a note with its last stderr lines.
 *
 * @since 0.1.0
 * @category constants
 */
export const STUCK_AFTER_MS = 5_000

/**
 * The diagnostics of one command run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Diagnostics {
  /** Receives one stderr line of `server` (pass it to the transport's `onStderrLine`). */
  readonly onStderrLine: (server: string) => (line: string) => Effect.Effect<void>
  /** The last stderr lines of `server`, oldest first. */
  readonly stderrOf: (server: string) => ReadonlyArray<string>
  /** Writes one line (or block) on stderr, above the progress line. */
  readonly line: (text: string) => Effect.Effect<void>
  /** Draws the progress line and the stuck-server notes until the scope closes (then clears the line). */
  readonly watch: (manager: McpManager.McpManager["Service"]) => Effect.Effect<void, never, Scope.Scope>
  /** Stops drawing and clears the progress line (before the command prints its result). */
  readonly stop: Effect.Effect<void>
}

/**
 * `lines` as an indented block, each prefixed `[server]`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const quote = (server: string, lines: ReadonlyArray<string>): string =>
  lines.map((line) => `  [${server}] ${line}`).join("\n")

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`

/**
 * The progress line for the servers not settled yet (`undefined` when there are none).
 *
 * @since 0.1.0
 * @category rendering
 */
export const progressLine = (
  healths: ReadonlyArray<ServerHealth.ServerHealth>,
  now: number
): string | undefined => {
  const waiting = healths.flatMap((h) => {
    if (h.state === "starting") return [`${h.name} starting ${seconds(now - h.since)}`]
    if (h.state === "offline" && !h.gaveUp) {
      const of = h.maxAttempts === undefined ? "" : `/${h.maxAttempts}`
      return [`${h.name} reconnecting${h.attempt > 0 ? ` ${h.attempt}${of}` : ""}`]
    }
    if (h.state === "ready" && h.listing !== undefined && h.listing.length > 0) {
      return [`${h.name} listing ${h.listing.join(" and ")}`]
    }
    return []
  })
  return waiting.length === 0 ? undefined : `mcp-fleet: waiting for ${waiting.join(", ")}…`
}

/**
 * Makes the diagnostics of one run. `verbose` echoes every stderr line. `progress`, when given, writes raw text
 * on a terminal's stderr (no newline added) and enables the progress line; without it lines go through
 * `Console.error`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly verbose: boolean
  readonly progress?: ((text: string) => Effect.Effect<void>) | undefined
}): Diagnostics => {
  const kept = new Map<string, Array<string>>()
  const noted = new Set<string>()
  const write = options.progress
  let shown = false
  let stopped = false
  const clear = Effect.suspend(() => {
    if (!shown || write === undefined) return Effect.void
    shown = false
    return write("\r\x1b[K")
  })
  const line = (text: string): Effect.Effect<void> =>
    write === undefined ? Console.error(text) : Effect.andThen(clear, write(`${text}\n`))
  const onStderrLine = (server: string) => (text: string) =>
    Effect.suspend(() => {
      const lines = kept.get(server) ?? []
      lines.push(text)
      if (lines.length > KEPT_LINES) lines.shift()
      kept.set(server, lines)
      return options.verbose ? line(`[${server}] ${text}`) : Effect.void
    })
  const stderrOf = (server: string): ReadonlyArray<string> => kept.get(server) ?? []
  const stop = Effect.suspend(() => {
    stopped = true
    return clear
  })
  const tick = (manager: McpManager.McpManager["Service"]) =>
    Effect.gen(function*() {
      if (stopped) return
      const now = yield* Clock.currentTimeMillis
      const healths = manager.health()
      for (const h of healths) {
        if (h.state !== "starting" || now - h.since < STUCK_AFTER_MS || noted.has(h.name)) continue
        noted.add(h.name)
        const lines = stderrOf(h.name)
        const said = lines.length === 0
          ? "it has written nothing on stderr"
          : `its last stderr lines:\n${quote(h.name, lines.slice(-5))}`
        yield* line(`mcp-fleet: ${h.name} is still starting after ${seconds(now - h.since)}; ${said}`)
      }
      if (write === undefined) return
      const progress = progressLine(healths, now)
      if (progress === undefined) return yield* clear
      yield* write(`\r\x1b[K${progress}`)
      shown = true
    })
  const watch = (manager: McpManager.McpManager["Service"]): Effect.Effect<void, never, Scope.Scope> =>
    Effect.gen(function*() {
      yield* Effect.addFinalizer(() => stop)
      yield* tick(manager).pipe(Effect.repeat(Schedule.spaced("250 millis")), Effect.forkScoped)
    })
  return { onStderrLine, stderrOf, line, watch, stop }
}
