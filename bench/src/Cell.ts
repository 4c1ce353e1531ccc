/**
 * What a benchmark cell is: a named measurement run once per client per round, producing named metrics.
 *
 * @since 0.0.0
 */
import type { ClientAdapter } from "./ClientAdapter.ts"
import type { RunConfig } from "./Options.ts"

/**
 * One number a cell reports, and how the report shows it.
 *
 * @since 0.0.0
 */
export interface MetricSpec {
  readonly key: string
  /** Row label in the report, e.g. "calls/s". */
  readonly label: string
  /** Decimal places in the report. */
  readonly digits: number
  /**
   * Whether the report adds the ratio to the raw baseline measured in the same round (client ÷ raw, so
   * above 1 is better for throughput and worse for times).
   */
  readonly ratio: boolean
}

/**
 * Services a cell may use: the run's configuration, a place for the echo server's stats files, a progress log.
 *
 * @since 0.0.0
 */
export interface CellContext {
  readonly config: RunConfig
  /** A fresh stats-file path for one server session. */
  readonly statsFile: () => string
  /** Progress line on stderr. */
  readonly log: (line: string) => void
  /** A line for the report's notes (e.g. the heap series), printed under the table. */
  readonly note: (line: string) => void
}

/**
 * One measured values map: metric key → number.
 *
 * @since 0.0.0
 */
export type Measurement = Readonly<Record<string, number>>

/**
 * A benchmark cell.
 *
 * @since 0.0.0
 */
export interface Cell {
  /** Id used by `--cells=`. */
  readonly id: string
  /** Heading in the report. */
  readonly title: string
  readonly metrics: ReadonlyArray<MetricSpec>
  /** `true` for a cell measured once per run (in the first round's order) rather than in every round. */
  readonly once: boolean
  /**
   * The clients this cell applies to (absent: all). Others are not run and show "n/a" (the manager cells
   * measure `@mcp-fleet/manager`, which only the `fleet` column has).
   */
  readonly clients?: ReadonlyArray<string> | undefined
  readonly run: (adapter: ClientAdapter, context: CellContext) => Promise<Measurement>
}
