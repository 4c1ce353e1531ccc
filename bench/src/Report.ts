/**
 * Turns a run into Markdown: a header (machine, Node, settings) and one table of medians and same-round ratios.
 *
 * @since 0.0.0
 */
import type { Cell, MetricSpec } from "./Cell.ts"
import { formatMachine, type MachineInfo } from "./Machine.ts"
import type { RunConfig } from "./Options.ts"
import type { RunResult } from "./Runner.ts"
import { median } from "./Stats.ts"

const BASELINE = "raw"

const format = (value: number, digits: number): string =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "n/a"

const formatRatio = (ratios: ReadonlyArray<number>): string => {
  if (ratios.length === 0) return ""
  const mid = `${median(ratios).toFixed(2)}×`
  if (ratios.length < 3) return ` (${mid})`
  return ` (${mid}, ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
}

/** The per-round values of one metric for one client, and its per-round ratios to the baseline. */
const series = (result: RunResult, cellId: string, metric: MetricSpec, client: string) => {
  const values: Array<number> = []
  const ratios: Array<number> = []
  for (const round of result.rounds) {
    const outcome = round.cells[cellId]?.[client]
    if (outcome?._tag !== "Measured") continue
    const value = outcome.value[metric.key]
    if (value === undefined) continue
    values.push(value)
    const base = round.cells[cellId]?.[BASELINE]
    const baseValue = base?._tag === "Measured" ? base.value[metric.key] : undefined
    if (metric.ratio && client !== BASELINE && baseValue !== undefined && baseValue !== 0) {
      ratios.push(value / baseValue)
    }
  }
  return { values, ratios }
}

/**
 * Renders the report. `clients` are the columns that ran; `unwired` are registered clients shown as "—".
 *
 * @since 0.0.0
 */
export const renderReport = (input: {
  readonly config: RunConfig
  readonly machine: MachineInfo
  readonly cells: ReadonlyArray<Cell>
  readonly clients: ReadonlyArray<string>
  readonly unwired: ReadonlyArray<string>
  /** The cells each client is limited to (`ClientAdapter.cells`), by client id; absent: every cell. */
  readonly clientCells?: Readonly<Record<string, ReadonlyArray<string> | undefined>> | undefined
  readonly result: RunResult
  readonly command: string
  /** 1-minute load average before and after the run. */
  readonly load: { readonly before: number; readonly after: number }
}): string => {
  const { config, result } = input
  const columns = [...input.clients, ...input.unwired]
  const lines: Array<string> = []
  lines.push(`Command: \`${input.command}\``)
  lines.push("")
  lines.push(`Machine: ${formatMachine(input.machine)}`)
  lines.push("")
  lines.push(
    `Load average (1 min): ${input.load.before.toFixed(2)} before the run, ${input.load.after.toFixed(2)} after ` +
      "(other work competing for the cores moves absolute numbers; same-round ratios much less)."
  )
  lines.push("")
  lines.push(
    `Settings: ${config.preset} preset, ${config.rounds} rounds (client order rotated each round), ` +
      `${config.warmupMs} ms warm-up + ${config.callMs} ms per tools/call window, ${config.listMs} ms per scan ` +
      `window, ${config.lifecycleRepeats} start/close cycles and ${config.importRepeats} import runs per round, ` +
      `${config.heapCalls} heap calls (once per run). Run took ${(result.durationMs / 1000).toFixed(0)} s.`
  )
  lines.push("")
  lines.push(
    "Each value is the median over rounds; `(r×)` is the median of the same-round ratios client ÷ raw " +
      "(above 1 = more throughput or more time), with their min–max when there are 3 rounds or more."
  )
  lines.push("")
  lines.push(`| cell | metric | ${columns.join(" | ")} |`)
  lines.push(`| --- | --- | ${columns.map(() => "---:").join(" | ")} |`)
  const failures: Array<string> = []
  for (const cell of input.cells) {
    if (!config.cells.includes(cell.id)) continue
    cell.metrics.forEach((metric, index) => {
      const row = [index === 0 ? `**${cell.id}**` : "", metric.label]
      for (const client of columns) {
        if (input.unwired.includes(client)) {
          row.push("—")
          continue
        }
        const limited = input.clientCells?.[client]
        if (
          (cell.clients !== undefined && !cell.clients.includes(client)) ||
          (limited !== undefined && !limited.includes(cell.id))
        ) {
          row.push("n/a")
          continue
        }
        const { ratios, values } = series(result, cell.id, metric, client)
        row.push(values.length === 0 ? "failed" : format(median(values), metric.digits) + formatRatio(ratios))
      }
      lines.push(`| ${row.join(" | ")} |`)
    })
    for (const round of result.rounds) {
      for (const [client, outcome] of Object.entries(round.cells[cell.id] ?? {})) {
        if (outcome._tag === "Failed") {
          failures.push(`${cell.id} / ${client} / round ${round.round + 1}: ${outcome.error}`)
        }
      }
    }
  }
  lines.push("")
  lines.push(
    "Client CPU is `process.cpuUsage()` of the harness process over the measured window ÷ calls. Server CPU is " +
      "the echo server's own CPU since its first call ÷ calls (warm-up included); its busy % is that CPU ÷ the " +
      "wall time from its first to its last call: well under 100 % means the server was not the bottleneck."
  )
  lines.push("")
  for (const id of input.unwired) lines.push(`- \`${id}\`: not wired yet (see bench/src/clients/${id}.ts).`)
  for (const failure of failures) lines.push(`- failed: ${failure}`)
  for (const note of result.notes) lines.push(`- ${note}`)
  return lines.join("\n") + "\n"
}
