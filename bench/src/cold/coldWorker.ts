/**
 * One cold measurement in a fresh process, run by the cold cells (`src/cells/coldCells.ts`):
 * `node --expose-gc src/cold/coldWorker.ts <json ColdJob>`. It loads only the one client adapter named in the
 * job (through the client registry, so a new column gets cold cells for free), spawns the echo server,
 * initializes (startup: spawn → ready), makes the warm-up calls, then the timed ones (client CPU from
 * `process.cpuUsage`), closes (shutdown: close → server pid gone) and prints one JSON `Measurement` line.
 *
 * @since 0.0.0
 */
import type { Measurement } from "../Cell.ts"
import type { ClientSession } from "../ClientAdapter.ts"
import { findClient } from "../clients/registry.ts"
import { transportAt } from "../clients/transportAt.ts"
import { echoLaunch } from "../EchoServer.ts"
import { median, percentile } from "../Stats.ts"
import { waitUntilGone } from "../Timing.ts"
import type { ColdJob } from "./ColdJob.ts"

const gc: () => void = typeof globalThis.gc === "function" ? globalThis.gc : () => {}

/** `total` echo calls by `concurrency` workers (a fixed count, not a window); each call's latency in ms. */
const callCount = async (session: ClientSession, payload: string, concurrency: number, total: number) => {
  const latencies: Array<number> = []
  let left = total
  const worker = async () => {
    while (left > 0) {
      left--
      const start = performance.now()
      const text = await session.call(payload)
      latencies.push(performance.now() - start)
      if (text.length !== payload.length) throw new Error(`echo returned ${text.length} of ${payload.length} chars`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker))
  return latencies
}

const scans = async (session: ClientSession, count: number, tools: number) => {
  const times: Array<number> = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    const seen = await session.listAll()
    times.push(performance.now() - start)
    if (seen !== tools) throw new Error(`tools/list scan found ${seen} tools, expected ${tools}`)
  }
  return times
}

const timed = async <A>(work: () => Promise<A>) => {
  gc()
  const cpuStart = process.cpuUsage()
  const threadStart = process.threadCpuUsage()
  const start = performance.now()
  const value = await work()
  const elapsedMs = performance.now() - start
  const cpu = process.cpuUsage(cpuStart)
  const thread = process.threadCpuUsage(threadStart)
  // The process's CPU includes V8's helper threads (parallel scavenges, concurrent marking, optimizing compiles).
  return { value, elapsedMs, cpuMicros: cpu.user + cpu.system, mainThreadMicros: thread.user + thread.system }
}

const run = async (job: ColdJob): Promise<Measurement> => {
  const t0 = performance.now()
  const entry = findClient(job.client)
  if (entry === undefined && job.transportDir === undefined) throw new Error(`unknown client ${job.client}`)
  const adapter = job.transportDir !== undefined ? await transportAt(job.transportDir) : await entry!.load()
  const loadMs = performance.now() - t0
  const launch = job.kind === "list" ? echoLaunch({ tools: job.tools, pageSize: job.pageSize }) : echoLaunch({})
  const t1 = performance.now()
  const session = await adapter.start(launch)
  const startupMs = performance.now() - t1
  const payload = "x".repeat(job.payloadBytes)
  let measured: Record<string, number>
  if (job.kind === "list") {
    await scans(session, Math.max(1, Math.ceil(job.warmupCalls / (job.tools / job.pageSize))), job.tools)
    const { cpuMicros, elapsedMs, value } = await timed(() => scans(session, job.count, job.tools))
    measured = {
      scansPerSec: value.length / (elapsedMs / 1000),
      msPerScan: median(value),
      cpuMsPerScan: cpuMicros / 1000 / value.length
    }
  } else {
    await callCount(session, payload, job.concurrency, job.warmupCalls)
    const { cpuMicros, elapsedMs, mainThreadMicros, value } = await timed(() =>
      callCount(session, payload, job.concurrency, job.count)
    )
    measured = {
      callsPerSec: value.length / (elapsedMs / 1000),
      p50Us: percentile(value, 50) * 1000,
      cpuUsPerCall: cpuMicros / value.length,
      mainThreadUsPerCall: mainThreadMicros / value.length
    }
  }
  const t2 = performance.now()
  await session.close()
  await waitUntilGone(session.pid, 15_000)
  const shutdownMs = performance.now() - t2
  return { ...measured, loadMs, startupMs, shutdownMs }
}

run(JSON.parse(process.argv[2] ?? "{}") as ColdJob).then(
  (measurement) => {
    process.stdout.write(JSON.stringify(measurement) + "\n")
    process.exit(0)
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  }
)
