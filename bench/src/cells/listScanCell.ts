/**
 * The tools/list scan cell: follow pagination over 2,000 tools (each with an `outputSchema`) in 20 pages, again and
 * again.
 *
 * @since 0.0.0
 */
import type { Cell, CellContext, Measurement } from "../Cell.ts"
import type { ClientAdapter, ClientSession } from "../ClientAdapter.ts"
import { echoLaunch } from "../EchoServer.ts"
import { median } from "../Stats.ts"

const TOOLS = 2_000
const PAGE_SIZE = 100

const gc: () => void = typeof globalThis.gc === "function" ? globalThis.gc : () => {}

const scanUntil = async (session: ClientSession, until: number): Promise<Array<number>> => {
  const times: Array<number> = []
  do {
    const start = performance.now()
    const count = await session.listAll()
    times.push(performance.now() - start)
    if (count !== TOOLS) throw new Error(`tools/list scan found ${count} tools, expected ${TOOLS}`)
  } while (performance.now() < until)
  return times
}

/**
 * Sequential full scans for the configured window. Metrics: scans/s, median ms per scan, client CPU ms per scan.
 *
 * @since 0.0.0
 */
export const listScanCell: Cell = {
  id: "list-2000",
  title: `tools/list full scan, ${TOOLS} tools (each with an outputSchema) over ${TOOLS / PAGE_SIZE} pages`,
  once: false,
  metrics: [
    { key: "scansPerSec", label: "scans/s", digits: 1, ratio: true },
    { key: "msPerScan", label: "ms per scan (median)", digits: 2, ratio: true },
    { key: "cpuMsPerScan", label: "client CPU ms/scan", digits: 2, ratio: true }
  ],
  run: async (adapter: ClientAdapter, context: CellContext): Promise<Measurement> => {
    const { config } = context
    // Each tool declares an outputSchema, as typed tools do: what a client does with them at listing time (the SDK
    // compiles a validator per tool; mcp-fleet compiles on a tool's first call) is part of the scan's cost.
    const session = await adapter.start(echoLaunch({ tools: TOOLS, pageSize: PAGE_SIZE, outputSchemas: true }))
    let times: Array<number>
    let elapsedMs: number
    let cpuMicros: number
    try {
      await scanUntil(session, performance.now() + config.warmupMs)
      gc()
      const cpuStart = process.cpuUsage()
      const start = performance.now()
      times = await scanUntil(session, start + config.listMs)
      elapsedMs = performance.now() - start
      const cpu = process.cpuUsage(cpuStart)
      cpuMicros = cpu.user + cpu.system
    } finally {
      await session.close()
    }
    return {
      scansPerSec: times.length / (elapsedMs / 1000),
      msPerScan: median(times),
      cpuMsPerScan: cpuMicros / 1000 / times.length
    }
  }
}
