/**
 * The soak's verdict and its printed report.
 *
 * @since 0.0.0
 */
import * as Heap from "./Heap.ts"
import type { LogTally } from "./LogTally.ts"
import type { SoakResult } from "./Soak.ts"
import { defaults } from "./SoakOptions.ts"
import * as Tallies from "./Tally.ts"

/**
 * Why a run failed; empty when it passed.
 *
 * A run fails when a call or a restart did not settle, a process was left, the heap grew beyond the bound, a
 * close hung, a call crashed or got a wrong answer (an error the chaos does not explain), a server did not come
 * back after the chaos stopped, a checkpoint found more processes than servers, or `ps` could not be read.
 *
 * @since 0.0.0
 * @category verdict
 */
export const failures = (result: SoakResult): ReadonlyArray<string> => {
  const out: Array<string> = []
  const totals = Tallies.totals(result.tally)
  if (totals.unsettled > 0) out.push(`${totals.unsettled} calls did not settle within their deadline + grace`)
  if (result.tally.restartsUnsettled > 0) out.push(`${result.tally.restartsUnsettled} restarts did not return`)
  if (result.stragglers > 0) out.push(`${result.stragglers} calls/restarts were still running at the end`)
  if (totals.unexpected > 0) out.push(`${totals.unexpected} calls failed in a way the chaos does not explain`)
  if (result.processesLeft.length > 0) out.push(`${result.processesLeft.length} server processes left after close`)
  const growth = heapGrowth(result)
  if (growth !== undefined && growth > result.options.heapBoundBytes) {
    out.push(`heap grew by ${Heap.mib(growth)} (bound ${Heap.mib(result.options.heapBoundBytes)})`)
  }
  if (result.closeWork._tag === "Hung") {
    out.push(`the soak's own fibers did not close within ${result.closeWork.boundMs} ms`)
  }
  if (result.closeLayer._tag === "Hung") {
    out.push(`the manager's layer did not close within ${result.closeLayer.boundMs} ms`)
  }
  for (const point of result.checkpoints) {
    if (point.notSettled.length > 0) out.push(`${point.label}: not back in time: ${point.notSettled.join("; ")}`)
    if (point.gaveUp.length > 0) out.push(`${point.label}: reconnection gave up: ${point.gaveUp.join(", ")}`)
    if (point.processes !== undefined && point.processes > point.serversWithPid) {
      out.push(`${point.label}: ${point.processes} processes alive for ${point.serversWithPid} servers`)
    }
  }
  if (result.scanErrors.length > 0) out.push(`ps failed: ${result.scanErrors.join("; ")}`)
  return out
}

/**
 * Heap growth from the first checkpoint to the last, bytes.
 *
 * @since 0.0.0
 * @category verdict
 */
export const heapGrowth = (result: SoakResult): number | undefined => {
  const first = result.checkpoints[0]
  const last = result.checkpoints[result.checkpoints.length - 1]
  return first === undefined || last === undefined ? undefined : last.heap.heapUsed - first.heap.heapUsed
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

const pad = (label: string) => label.padEnd(14)

const sorted = (counts: ReadonlyMap<string, number>) =>
  [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))

/**
 * The report, as plain text (it is also what RELIABILITY.md records).
 *
 * @since 0.0.0
 * @category rendering
 */
export const render = (result: SoakResult, logs: LogTally): string => {
  const { options, tally } = result
  const totals = Tallies.totals(result.tally)
  const lines: Array<string> = []
  const roles = new Map<string, number>()
  for (const s of result.fleet) roles.set(s.role, (roles.get(s.role) ?? 0) + 1)
  lines.push(
    `${pad("command")}pnpm soak --duration ${
      options.durationMs % 1000 === 0 ? `${options.durationMs / 1000}s` : `${options.durationMs}ms`
    } --servers ${options.servers} ` +
      `--concurrency ${options.concurrency} --seed ${options.seed}` +
      (options.restartPercent !== defaults.restartPercent ? ` --restarts ${options.restartPercent}` : "")
  )
  lines.push(`${pad("fleet")}${result.fleet.length} servers: ${[...roles].map(([r, n]) => `${n} ${r}`).join(", ")}`)
  lines.push(
    `${pad("time")}${seconds(result.activeMs)} of calls (${seconds(result.warmupMs)} warm-up, then ${
      result.checkpoints.length - 1
    } segments), ${seconds(result.wallMs)} wall clock`
  )
  lines.push(`${pad("calls made")}${totals.calls}`)
  lines.push(`${pad("succeeded")}${totals.succeeded}`)
  lines.push(`${pad("failed")}${totals.calls - totals.succeeded - totals.unsettled}`)
  for (const [tag, n] of sorted(totals.failed)) lines.push(`${pad("")}  ${tag.padEnd(18)} ${n}`)
  for (const op of Tallies.ops) {
    const s = tally.ops[op]
    const failed = sorted(s.failed).map(([tag, n]) => `${tag} ${n}`).join(", ")
    lines.push(
      `${pad("")}  ${op}: ${s.calls} calls, ${s.succeeded} ok${failed !== "" ? `, ${failed}` : ""}, ` +
        `${s.unsettled} unsettled, slowest settled in ${s.slowestMs} ms`
    )
  }
  lines.push(
    `${pad("unsettled")}${totals.unsettled} (deadline = the call's own timeout, ${options.callTimeoutMs} ms, ` +
      `${options.hangTimeoutMs} ms for calls to hanging servers, + ${options.graceMs} ms grace)`
  )
  lines.push(
    `${pad("chaos")}${tally.kills} SIGKILLs (${tally.killsMissed} found the process already gone, ` +
      `${tally.killsSkipped} skipped: no process at that moment), ${tally.restarts} restarts ` +
      `(${tally.restartsUnsettled} unsettled)`
  )
  const r = result.reconnections
  lines.push(
    `${pad("reconnections")}${r.reconnected} (offline→starting→ready), plus ${r.reconnectedDegraded} ` +
      `offline→starting→degraded (hanging servers); ${r.wentOffline} transitions to offline, ${r.transitions} in all`
  )
  const first = result.checkpoints[0]
  const last = result.checkpoints[result.checkpoints.length - 1]
  const growth = heapGrowth(result)
  if (first !== undefined && last !== undefined && growth !== undefined) {
    const gc = first.heap.forcedGc ? "after forced GC" : "WITHOUT forced GC (run node with --expose-gc)"
    const heaps = result.checkpoints.map((c) => c.heap.heapUsed)
    const rising = heaps.length > 2 && heaps.every((h, i) => i === 0 || h >= heaps[i - 1]!) && growth > 1024 * 1024
    const flat = growth > options.heapBoundBytes
      ? "NOT flat (over the bound)"
      : rising
      ? "within the bound, but NOT flat: it rose at every checkpoint"
      : "flat"
    lines.push(
      `${pad("heap used")}start ${Heap.mib(first.heap.heapUsed)}, end ${Heap.mib(last.heap.heapUsed)} ${gc} ` +
        `(${growth >= 0 ? "+" : "−"}${Heap.mib(Math.abs(growth))}; bound +${Heap.mib(options.heapBoundBytes)}): ${flat}`
    )
    lines.push(
      `${pad("")}  at each checkpoint: ${result.checkpoints.map((c) => Heap.mib(c.heap.heapUsed)).join(", ")}`
    )
  }
  lines.push(
    `${pad("processes")}at checkpoints ${
      result.checkpoints.map((c) => `${c.processes ?? "?"}/${c.serversWithPid}`).join(", ")
    } (alive per ps / servers with a pid); left after close: ${result.processesLeft.length}`
  )
  const lastStrays = last?.strays ?? []
  if (lastStrays.length > 0) {
    const shown = lastStrays.slice(0, 8).join(", ")
    const more = lastStrays.length > 8 ? `, and ${lastStrays.length - 8} more` : ""
    lines.push(`${pad("")}  at the end, ${lastStrays.length} belong to no server: ${shown}${more}`)
  }
  for (const p of result.processesLeft.slice(0, 10)) lines.push(`${pad("")}  pid ${p.pid}: ${p.args}`)
  const closing = (c: SoakResult["closeLayer"]) => (c._tag === "Closed" ? `${c.ms} ms` : `HUNG (> ${c.boundMs} ms)`)
  lines.push(`${pad("close")}layer ${closing(result.closeLayer)}; soak fibers ${closing(result.closeWork)}`)
  const levels = [...logs.byLevel].map(([level, n]) => `${level} ${n}`).join(", ")
  lines.push(`${pad("log lines")}${levels === "" ? "none" : levels}`)
  for (const [level, seen] of logs.examples) {
    for (const [message, n] of seen) lines.push(`${pad("")}  ${level} ×${n}: ${message}`)
  }
  if (tally.examples.length > 0) {
    lines.push(`${pad("examples")}${tally.examples.length} kept:`)
    for (const example of tally.examples) lines.push(`${pad("")}  ${example}`)
  }
  const why = failures(result)
  lines.push(`${pad("verdict")}${why.length === 0 ? "PASS" : "FAIL"}`)
  for (const reason of why) lines.push(`${pad("")}  - ${reason}`)
  return lines.join("\n")
}
