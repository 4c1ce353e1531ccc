/**
 * Runs the selected cells for the selected clients over several rounds, rotating the client order each round.
 *
 * @since 0.0.0
 */
import type { Cell, Measurement } from "./Cell.ts"
import type { ClientAdapter } from "./ClientAdapter.ts"
import { makeStatsDir } from "./EchoServer.ts"
import type { RunConfig } from "./Options.ts"
import { withTimeout } from "./Timing.ts"

/**
 * One client's result in one cell of one round: its measurement, or why it failed.
 *
 * @since 0.0.0
 */
export type Outcome =
  | { readonly _tag: "Measured"; readonly value: Measurement }
  | { readonly _tag: "Failed"; readonly error: string }

/**
 * Everything measured in one round, by cell id then client id.
 *
 * @since 0.0.0
 */
export interface RoundResult {
  readonly round: number
  readonly order: ReadonlyArray<string>
  readonly cells: Record<string, Record<string, Outcome>>
}

/**
 * The whole run.
 *
 * @since 0.0.0
 */
export interface RunResult {
  readonly rounds: ReadonlyArray<RoundResult>
  readonly notes: ReadonlyArray<string>
  readonly durationMs: number
}

/**
 * The client order of round `round`: the list rotated left by `round` (A B C D, B C D A, ...).
 *
 * @since 0.0.0
 */
export const rotate = <A>(items: ReadonlyArray<A>, round: number): Array<A> => {
  const k = items.length === 0 ? 0 : round % items.length
  return [...items.slice(k), ...items.slice(0, k)]
}

const appliesTo = (cell: Cell, adapter: ClientAdapter): boolean =>
  (cell.clients === undefined || cell.clients.includes(adapter.id)) &&
  (adapter.cells === undefined || adapter.cells.includes(cell.id))

const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/**
 * Runs the benchmark. Per-round cells run every round with cells outermost and clients innermost, so each
 * client is measured right next to the raw baseline it is compared with; `once` cells run after the last round,
 * in the first round's order. A failing client is recorded and the run goes on.
 *
 * @since 0.0.0
 */
export const runBenchmarks = async (
  config: RunConfig,
  adapters: ReadonlyArray<ClientAdapter>,
  cells: ReadonlyArray<Cell>,
  log: (line: string) => void
): Promise<RunResult> => {
  const started = performance.now()
  const stats = makeStatsDir()
  const notes: Array<string> = []
  let sessions = 0
  const context = {
    config,
    statsFile: () => stats.file(`session-${sessions++}`),
    log,
    note: (line: string) => notes.push(line)
  }
  const measure = async (cell: Cell, adapter: ClientAdapter, round: number): Promise<Outcome> => {
    const t0 = performance.now()
    try {
      const value = await withTimeout(
        cell.run(adapter, context),
        config.cellTimeoutMs,
        `${cell.id} for ${adapter.id}`
      )
      log(`round ${round + 1} ${cell.id} ${adapter.id}: ${((performance.now() - t0) / 1000).toFixed(1)} s`)
      return { _tag: "Measured", value }
    } catch (error) {
      log(`round ${round + 1} ${cell.id} ${adapter.id}: FAILED ${messageOf(error)}`)
      return { _tag: "Failed", error: messageOf(error) }
    }
  }

  const rounds: Array<RoundResult> = []
  try {
    for (let round = 0; round < config.rounds; round++) {
      const order = rotate(adapters, round)
      const result: RoundResult = { round, order: order.map((a) => a.id), cells: {} }
      for (const cell of cells.filter((c) => !c.once)) {
        const byClient: Record<string, Outcome> = {}
        for (const adapter of order) {
          if (appliesTo(cell, adapter)) byClient[adapter.id] = await measure(cell, adapter, round)
        }
        result.cells[cell.id] = byClient
      }
      rounds.push(result)
    }
    const first = rounds[0]
    if (first !== undefined) {
      for (const cell of cells.filter((c) => c.once)) {
        const byClient: Record<string, Outcome> = {}
        for (const adapter of adapters) {
          if (appliesTo(cell, adapter)) byClient[adapter.id] = await measure(cell, adapter, 0)
        }
        first.cells[cell.id] = byClient
      }
    }
  } finally {
    stats.dispose()
  }
  return { rounds, notes, durationMs: performance.now() - started }
}
