/**
 * The cold cells (issue 19): each client in a **fresh process** per cell and round (`src/cold/coldWorker.ts`):
 * spawn the echo server, initialize, 1,000 warm-up calls, then a fixed number of timed calls, the way a CLI, a
 * test or an agent turn runs. Ratios are to raw in the same round, as for the warm cells. A client column
 * added to `src/clients/registry.ts` gets these cells with no change here.
 *
 * @since 0.0.0
 */
import type { Cell, CellContext, Measurement, MetricSpec } from "../Cell.ts"
import type { ClientAdapter } from "../ClientAdapter.ts"
import type { ColdJob } from "../cold/ColdJob.ts"
import { runNode } from "../NodeChild.ts"

/** Warm-up calls before the timed part (the harness: 1,000). */
export const COLD_WARMUP_CALLS = 1_000

const workerPath = new URL("../cold/coldWorker.ts", import.meta.url).pathname

/**
 * Runs one cold job in a fresh `node` process and returns what it measured.
 *
 * @since 0.0.0
 */
export const runCold = async (job: ColdJob): Promise<Measurement> => {
  const { code, stderr, stdout } = await runNode(["--expose-gc", workerPath, JSON.stringify(job)])
  const last = stdout.trim().split("\n").at(-1) ?? ""
  if (code !== 0 || !last.startsWith("{")) {
    throw new Error(`cold ${job.kind} for ${job.client} failed (exit ${code}): ${stderr.slice(-500)}`)
  }
  const parsed: unknown = JSON.parse(last)
  if (typeof parsed !== "object" || parsed === null) throw new Error(`cold worker printed ${last}`)
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === "number"))
}

const callMetrics: ReadonlyArray<MetricSpec> = [
  { key: "callsPerSec", label: "calls/s", digits: 0, ratio: true },
  { key: "p50Us", label: "p50 latency µs", digits: 0, ratio: true },
  { key: "cpuUsPerCall", label: "client CPU µs/call", digits: 1, ratio: true }
]

interface ColdSpec {
  readonly id: string
  readonly title: string
  readonly metrics: ReadonlyArray<MetricSpec>
  readonly job: Omit<ColdJob, "client" | "count" | "warmupCalls">
  /** Timed calls (or scans) in the full preset; scaled by `coldScale`. */
  readonly count: number
  readonly warmupCalls?: number
}

const specs: ReadonlyArray<ColdSpec> = [
  {
    id: "cold-c64-64B",
    title: "cold: tools/call, concurrency 64, 64B payload (fresh process, 1,000 warm-up calls)",
    metrics: callMetrics,
    job: { kind: "call", concurrency: 64, payloadBytes: 64, tools: 0, pageSize: 0 },
    count: 20_000
  },
  {
    id: "cold-c1-64B",
    title: "cold: tools/call, concurrency 1, 64B payload (fresh process, 1,000 warm-up calls)",
    metrics: callMetrics,
    job: { kind: "call", concurrency: 1, payloadBytes: 64, tools: 0, pageSize: 0 },
    count: 3_000
  },
  {
    id: "cold-c64-64KiB",
    title: "cold: tools/call, concurrency 64, 64KiB payload (fresh process, 1,000 warm-up calls)",
    metrics: callMetrics,
    job: { kind: "call", concurrency: 64, payloadBytes: 64 * 1024, tools: 0, pageSize: 0 },
    count: 1_000
  },
  {
    id: "cold-list-2000",
    title: "cold: tools/list, 2,000 tools over 20 pages (fresh process, 50 warm-up scans)",
    metrics: [
      { key: "scansPerSec", label: "scans/s", digits: 1, ratio: true },
      { key: "msPerScan", label: "ms per scan (median)", digits: 2, ratio: true },
      { key: "cpuMsPerScan", label: "client CPU ms/scan", digits: 2, ratio: true }
    ],
    job: { kind: "list", concurrency: 1, payloadBytes: 0, tools: 2_000, pageSize: 100 },
    count: 20
  },
  {
    id: "cold-lifecycle",
    title: "cold: startup (spawn → initialized) and shutdown (close → pid gone), first session of a fresh process",
    metrics: [
      { key: "startupMs", label: "startup ms", digits: 1, ratio: true },
      { key: "shutdownMs", label: "shutdown ms", digits: 1, ratio: true },
      { key: "loadMs", label: "client module load ms (in process)", digits: 1, ratio: false }
    ],
    job: { kind: "call", concurrency: 1, payloadBytes: 64, tools: 0, pageSize: 0 },
    count: 1,
    warmupCalls: 0
  }
]

const makeColdCell = (spec: ColdSpec): Cell => ({
  id: spec.id,
  title: spec.title,
  once: false,
  metrics: spec.metrics,
  run: (adapter: ClientAdapter, context: CellContext) =>
    runCold({
      ...spec.job,
      client: adapter.id,
      warmupCalls: spec.warmupCalls ?? COLD_WARMUP_CALLS,
      count: Math.max(1, Math.round(spec.count * context.config.coldScale))
    })
})

/**
 * Every cold cell, in report order.
 *
 * @since 0.0.0
 */
export const coldCells: ReadonlyArray<Cell> = specs.map(makeColdCell)
