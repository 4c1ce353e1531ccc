/**
 * `mcp-fleet status --watch`: the status ledger, live, until interrupted (Ctrl-C).
 *
 * - On a terminal that can animate, the whole ledger is redrawn in place (checked ten times a second, drawn when
 *   it changed), with a spinner while any server has not settled and a check mark once all have.
 * - Otherwise (a pipe, a file, a dumb terminal) the ledger is printed once, then one plain line per change:
 *   the server's new ledger line, then the new summary line when it changed, each stamped with the time since
 *   the watch started.
 *
 * Both render through the manager's one renderer (`StatusText`), so every line is a ledger line.
 *
 * @since 0.1.0
 */
import type { McpManager, ServerHealth } from "@mcp-fleet/manager"
import { StatusText } from "@mcp-fleet/manager"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as Terminal from "effect/Terminal"
import { isSettled } from "./Settle.ts"

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const

const stamp = (startedAt: number, now: number): string => `[+${((now - startedAt) / 1_000).toFixed(2)}s]`

/**
 * Plain appended lines: the ledger, then every changed server line and summary line.
 *
 * @since 0.1.0
 * @category watching
 */
export const plain = (manager: McpManager.McpManager["Service"]): Effect.Effect<void> =>
  Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const previous = new Map<string, string>()
    let previousSummary: string | undefined
    yield* manager.snapshots.pipe(
      Stream.runForEach((healths: ReadonlyArray<ServerHealth.ServerHealth>) =>
        Effect.gen(function*() {
          const summary = StatusText.formatSummary(StatusText.summarize(healths))
          if (previousSummary === undefined) {
            yield* Console.log(StatusText.renderStatusLines(healths, 0))
          } else {
            const now = yield* Clock.currentTimeMillis
            const sorted = [...healths].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
            for (const h of sorted) {
              const line = StatusText.formatServerLine(h)
              if (previous.get(h.name) !== line) yield* Console.log(`${stamp(startedAt, now)} ${line}`)
            }
            if (summary !== previousSummary) yield* Console.log(`${stamp(startedAt, now)} ${summary}`)
          }
          previousSummary = summary
          for (const h of healths) previous.set(h.name, StatusText.formatServerLine(h))
        })
      )
    )
  })

const fit = (line: string, columns: number): string =>
  columns > 1 && line.length > columns - 1 ? `${line.slice(0, columns - 2)}…` : line

/**
 * The ledger redrawn in place with a spinner, on a terminal.
 *
 * @since 0.1.0
 * @category watching
 */
export const live = (manager: McpManager.McpManager["Service"]): Effect.Effect<void, never, Terminal.Terminal> =>
  Effect.gen(function*() {
    const terminal = yield* Terminal.Terminal
    let drawn = 0
    let frame = 0
    let shown = ""
    const draw = Effect.gen(function*() {
      const healths = manager.health()
      const columns = yield* terminal.columns
      const mark = healths.every(isSettled) ? "✓" : SPINNER[frame++ % SPINNER.length]!
      const lines = StatusText.renderStatusLines(healths, 0).split("\n").map((line, i) =>
        fit(i === 0 ? `${mark} ${line}` : `  ${line}`, columns)
      )
      lines.push(fit("  (Ctrl-C stops the servers and exits)", columns))
      const text = lines.join("\n")
      if (text === shown) return
      const up = drawn > 0 ? `\x1b[${drawn}A` : ""
      yield* terminal.display(`${up}\r\x1b[J${text}\n`)
      drawn = lines.length
      shown = text
    }).pipe(Effect.orDie)
    yield* Effect.acquireUseRelease(
      terminal.display("\x1b[?25l").pipe(Effect.ignore),
      () => draw.pipe(Effect.repeat(Schedule.spaced("100 millis")), Effect.asVoid),
      () => terminal.display("\x1b[?25h").pipe(Effect.ignore)
    )
  })

/**
 * Watches until interrupted: {@link live} when the terminal can animate, {@link plain} otherwise.
 *
 * @since 0.1.0
 * @category watching
 */
export const run = (manager: McpManager.McpManager["Service"]): Effect.Effect<void, never, Terminal.Terminal> =>
  Effect.flatMap(
    TerminalCapabilities.TerminalCapabilities,
    (capabilities) => (capabilities.canAnimate ? live(manager) : plain(manager))
  )
