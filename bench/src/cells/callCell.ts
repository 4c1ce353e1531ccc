/**
 * tools/call cells: a closed loop of `concurrency` workers calling `echo` with a fixed payload.
 *
 * @since 0.0.0
 */
import type { Cell, CellContext, Measurement } from "../Cell.ts"
import type { ClientAdapter, ClientSession } from "../ClientAdapter.ts"
import { echoLaunch, readEchoStats } from "../EchoServer.ts"
import { percentile } from "../Stats.ts"

const gc: () => void = typeof globalThis.gc === "function" ? globalThis.gc : () => {}

/**
 * Runs `concurrency` workers, each calling back-to-back until `until` (a `performance.now()` time);
 * returns the latency of every call in ms. Every reply is checked against the payload.
 *
 * @since 0.0.0
 */
export const callLoop = async (
  session: ClientSession,
  payload: string,
  concurrency: number,
  until: number
): Promise<Array<number>> => {
  if (session.callLoop !== undefined) return session.callLoop(payload, concurrency, until)
  const latencies: Array<number> = []
  const worker = async () => {
    while (performance.now() < until) {
      const start = performance.now()
      const text = await session.call(payload)
      latencies.push(performance.now() - start)
      if (text.length !== payload.length) {
        throw new Error(`echo returned ${text.length} characters for a ${payload.length}-character payload`)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return latencies
}

/**
 * Builds the cell for one concurrency and payload size. Metrics: calls/s, p50 and p99 latency (µs), client
 * CPU µs per call (`process.cpuUsage` delta over the window), and the echo server's own CPU per call and
 * busy share (from its stats at exit) to show it is not the bottleneck.
 *
 * @since 0.0.0
 */
export const makeCallCell = (options: {
  readonly concurrency: number
  readonly payloadBytes: number
  readonly payloadLabel: string
}): Cell => ({
  id: `call-c${options.concurrency}-${options.payloadLabel}`,
  title: `tools/call, concurrency ${options.concurrency}, ${options.payloadLabel} payload`,
  once: false,
  metrics: [
    { key: "callsPerSec", label: "calls/s", digits: 0, ratio: true },
    { key: "p50Us", label: "p50 latency µs", digits: 0, ratio: true },
    { key: "p99Us", label: "p99 latency µs", digits: 0, ratio: true },
    { key: "cpuUsPerCall", label: "client CPU µs/call", digits: 1, ratio: true },
    { key: "serverCpuUsPerCall", label: "server CPU µs/call", digits: 1, ratio: false },
    { key: "serverBusyPct", label: "server busy % of one core", digits: 0, ratio: false }
  ],
  run: async (adapter: ClientAdapter, context: CellContext): Promise<Measurement> => {
    const { config } = context
    const payload = "x".repeat(options.payloadBytes)
    const statsFile = context.statsFile()
    const session = await adapter.start(echoLaunch({ statsFile }))
    let latencies: Array<number>
    let elapsedMs: number
    let cpuMicros: number
    try {
      const first = await session.call(payload)
      if (first !== payload) throw new Error(`${adapter.id}: echo did not return the payload unchanged`)
      await callLoop(session, payload, options.concurrency, performance.now() + config.warmupMs)
      gc()
      const cpuStart = process.cpuUsage()
      const start = performance.now()
      latencies = await callLoop(session, payload, options.concurrency, start + config.callMs)
      elapsedMs = performance.now() - start
      const cpu = process.cpuUsage(cpuStart)
      cpuMicros = cpu.user + cpu.system
    } finally {
      await session.close()
    }
    const server = readEchoStats(statsFile)
    return {
      callsPerSec: latencies.length / (elapsedMs / 1000),
      p50Us: percentile(latencies, 50) * 1000,
      p99Us: percentile(latencies, 99) * 1000,
      cpuUsPerCall: cpuMicros / latencies.length,
      serverCpuUsPerCall: server.cpuMicrosSinceFirstCall / server.calls,
      serverBusyPct: server.wallMillisFirstToLastCall > 0
        ? (server.cpuMicrosSinceFirstCall / 1000 / server.wallMillisFirstToLastCall) * 100
        : Number.NaN
    }
  }
})
