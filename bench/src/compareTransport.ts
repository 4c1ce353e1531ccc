/**
 * Same-run A/B of transport versions: raw plus two or more copies of `@mcp-fleet/transport`'s `src/`, interleaved
 * round by round (the order rotates) against the echo server, so a change is measured next to what it replaces.
 * Used for the per-change numbers in BENCHMARKS.md.
 *
 *   git archive <commit> packages/transport/src | tar -x -C /tmp/before --strip-components=2
 *   node bench/src/compareTransport.ts --cell=c64 --rounds=6 --ms=1000 /tmp/before packages/transport
 *
 * A directory argument is a folder holding a transport `src/` (its `effect` import must resolve to the same copy
 * as this package's); `raw`, `raw-detached`, `sdk`… name registered clients. `raw` is always the first column.
 * Cells: `c1` / `c64` (64 B calls), `c1k` / `c64k` (64 KiB calls), `c64s` (64 B calls at c=64 to an `echo` that
 * declares an `outputSchema` and answers `structuredContent`, after one listing: what checking it costs per call),
 * `list` (the 2,000-tool scan, each tool with an `outputSchema`, as the `list-2000` cell). Prints, per
 * client, the median same-round ratio to raw (min–max) and the median client CPU per call or per scan.
 * `lifecycle`: per round, 10 cycles of start → one call → close → server pid gone; prints startup (spawn →
 * initialized) and shutdown (close → pid gone) as same-round time ratios to raw (below 1 = faster than raw), with
 * the client CPU of each phase (a warm process: the cold first session is `pnpm bench`'s `cold-lifecycle`).
 * `cold`: the cold cell's shape (`cold-c64-64B`: a fresh process per client and round, 1,000 warm-up calls, then
 * 20,000 timed calls at concurrency 64), with the main thread's CPU beside the whole process's, and that first
 * session's module load, startup (cold) and shutdown (after the timed calls) as medians and same-round ratios.
 * The call cells print the median rate and the median client CPU with its min–max over the rounds.
 *
 * @since 0.0.0
 */
import { isAbsolute, resolve } from "node:path"
import type { Measurement } from "./Cell.ts"
import { callLoop } from "./cells/callCell.ts"
import { runCold } from "./cells/coldCells.ts"
import type { ClientAdapter } from "./ClientAdapter.ts"
import { findClient } from "./clients/registry.ts"
import { runtime, transportAt } from "./clients/transportAt.ts"
import { echoLaunch } from "./EchoServer.ts"
import { median } from "./Stats.ts"
import { waitUntilGone } from "./Timing.ts"

const arg = (name: string, fallback: string): string => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`))
  return found === undefined ? fallback : found.slice(name.length + 3)
}

const measure = async (adapter: ClientAdapter, cell: string, ms: number): Promise<{ rate: number; cpu: number }> => {
  if (cell === "list") {
    const session = await adapter.start(echoLaunch({ tools: 2_000, pageSize: 100, outputSchemas: true }))
    try {
      await session.listAll()
      let scans = 0
      const cpu0 = process.cpuUsage()
      const t0 = performance.now()
      while (performance.now() < t0 + ms) {
        if ((await session.listAll()) !== 2_000) throw new Error(`${adapter.id}: a scan did not see 2,000 tools`)
        scans++
      }
      const cpu = process.cpuUsage(cpu0)
      return { rate: scans / ((performance.now() - t0) / 1000), cpu: (cpu.user + cpu.system) / scans }
    } finally {
      await session.close()
    }
  }
  const concurrency = cell === "c1" || cell === "c1k" ? 1 : 64
  const payload = "x".repeat(cell.endsWith("k") ? 64 * 1024 : 64)
  const typed = cell === "c64s"
  const session = await adapter.start(echoLaunch(typed ? { outputSchemas: true } : {}))
  try {
    // A typed client checks results against the schemas of its latest listing: list once first.
    if (typed) await session.listAll()
    await callLoop(session, payload, concurrency, performance.now() + 200)
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const latencies = await callLoop(session, payload, concurrency, t0 + ms)
    const elapsed = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    return { rate: latencies.length / (elapsed / 1000), cpu: (cpu.user + cpu.system) / latencies.length }
  } finally {
    await session.close()
  }
}

/** Client CPU in ms since `from`. */
const cpuMsSince = (from: NodeJS.CpuUsage): number => {
  const cpu = process.cpuUsage(from)
  return (cpu.user + cpu.system) / 1000
}

type Phase = { readonly ms: number; readonly cpuMs: number }

/** Median startup and shutdown over `cycles` start → call → close → pid gone cycles. */
const lifecycle = async (adapter: ClientAdapter, cycles: number): Promise<{ start: Phase; stop: Phase }> => {
  const phases = { startMs: [] as Array<number>, startCpu: [] as Array<number>, stopMs: [] as Array<number> }
  const stopCpu: Array<number> = []
  for (let i = 0; i < cycles; i++) {
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const session = await adapter.start(echoLaunch({}))
    phases.startMs.push(performance.now() - t0)
    phases.startCpu.push(cpuMsSince(cpu0))
    if ((await session.call("ready?")) !== "ready?") throw new Error(`${adapter.id}: echo failed right after start`)
    const cpu1 = process.cpuUsage()
    const t1 = performance.now()
    await session.close()
    await waitUntilGone(session.pid, 15_000)
    phases.stopMs.push(performance.now() - t1)
    stopCpu.push(cpuMsSince(cpu1))
  }
  return {
    start: { ms: median(phases.startMs), cpuMs: median(phases.startCpu) },
    stop: { ms: median(phases.stopMs), cpuMs: median(stopCpu) }
  }
}

const compareLifecycle = async (adapters: ReadonlyArray<ClientAdapter>, rounds: number) => {
  const results = adapters.map(() => ({ start: [] as Array<Phase>, stop: [] as Array<Phase> }))
  const ratios = adapters.map(() => ({ start: [] as Array<number>, stop: [] as Array<number> }))
  for (let round = 0; round < rounds; round++) {
    const byIndex = new Map<number, { start: Phase; stop: Phase }>()
    for (let k = 0; k < adapters.length; k++) {
      const index = (k + round) % adapters.length
      byIndex.set(index, await lifecycle(adapters[index]!, 10))
    }
    const raw = byIndex.get(0)!
    byIndex.forEach((result, index) => {
      results[index]!.start.push(result.start)
      results[index]!.stop.push(result.stop)
      ratios[index]!.start.push(result.start.ms / raw.start.ms)
      ratios[index]!.stop.push(result.stop.ms / raw.stop.ms)
    })
  }
  const line = (label: string, r: Array<number>, phases: Array<Phase>) =>
    `${label} ${median(r).toFixed(2)}× raw (${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)}), ${
      median(phases.map((p) => p.ms)).toFixed(2)
    } ms, client CPU ${median(phases.map((p) => p.cpuMs)).toFixed(2)} ms`
  adapters.forEach((adapter, i) => {
    process.stdout.write(
      `lifecycle ${adapter.id.padEnd(32)} ${line("startup", ratios[i]!.start, results[i]!.start)}; ${
        line("shutdown", ratios[i]!.stop, results[i]!.stop)
      }\n`
    )
  })
}

const isDirectory = (name: string) => isAbsolute(name) || name.startsWith(".") || name.includes("/")

/** `--cell=cold`: each client in a fresh process per round (`cold/coldWorker.ts`), the order rotating. */
const compareCold = async (names: ReadonlyArray<string>, rounds: number) => {
  const runs = names.map((): Array<Measurement> => [])
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const index = (k + round) % names.length
      const name = names[index]!
      runs[index]!.push(
        await runCold({
          client: isDirectory(name) ? "fleet" : name,
          transportDir: isDirectory(name) ? resolve(name) : undefined,
          kind: "call",
          concurrency: 64,
          payloadBytes: 64,
          tools: 0,
          pageSize: 0,
          warmupCalls: 1_000,
          count: 20_000
        })
      )
    }
  }
  const raw = runs[0]!
  names.forEach((name, i) => {
    const of = (key: string) => runs[i]!.map((m) => m[key] ?? Number.NaN)
    const ratios = runs[i]!.map((m, round) => (m["callsPerSec"] ?? 0) / (raw[round]!["callsPerSec"] ?? 1))
    process.stdout.write(
      `cold ${name.padEnd(32)} ${median(ratios).toFixed(2)}× raw (${Math.min(...ratios).toFixed(2)}–${
        Math.max(...ratios).toFixed(2)
      }), ${Math.round(median(of("callsPerSec")))} calls/s, client CPU ${
        median(of("cpuUsPerCall")).toFixed(1)
      } µs/call (main thread ${median(of("mainThreadUsPerCall")).toFixed(1)}; each round: ${
        of("cpuUsPerCall").map((v) => v.toFixed(1)).join(" ")
      })\n`
    )
    // The worker's first session: module load, startup (spawn → initialized) and shutdown after the timed calls.
    const phase = (key: string) => {
      const r = runs[i]!.map((m, round) => (m[key] ?? Number.NaN) / (raw[round]![key] ?? Number.NaN))
      return `${median(of(key)).toFixed(1)} ms, ${median(r).toFixed(2)}× raw (${Math.min(...r).toFixed(2)}–${
        Math.max(...r).toFixed(2)
      })`
    }
    process.stdout.write(
      `cold ${name.padEnd(32)} load ${median(of("loadMs")).toFixed(1)} ms; startup ${phase("startupMs")}; shutdown ${
        phase("shutdownMs")
      }\n`
    )
  })
}

const main = async () => {
  const cell = arg("cell", "c64")
  const rounds = Number(arg("rounds", "6"))
  const ms = Number(arg("ms", "1000"))
  if (!["c1", "c64", "c1k", "c64k", "c64s", "list", "lifecycle", "cold"].includes(cell)) {
    throw new Error(`unknown --cell=${cell}`)
  }
  const names = ["raw", ...process.argv.slice(2).filter((a) => !a.startsWith("--") && a !== "raw")]
  if (cell === "cold") return compareCold(names, rounds)
  const adapters: Array<ClientAdapter> = []
  for (const name of names) {
    const entry = findClient(name)
    if (entry !== undefined) adapters.push(await entry.load())
    else if (isDirectory(name)) adapters.push(await transportAt(name))
    else throw new Error(`${name} is neither a registered client nor a directory`)
  }
  if (cell === "lifecycle") return compareLifecycle(adapters, rounds)
  const ratios = adapters.map((): Array<number> => [])
  const cpus = adapters.map((): Array<number> => [])
  const rates = adapters.map((): Array<number> => [])
  for (let round = 0; round < rounds; round++) {
    const results = new Map<number, { rate: number; cpu: number }>()
    for (let k = 0; k < adapters.length; k++) {
      const index = (k + round) % adapters.length
      results.set(index, await measure(adapters[index]!, cell, ms))
    }
    const raw = results.get(0)!
    results.forEach((result, index) => {
      ratios[index]!.push(result.rate / raw.rate)
      rates[index]!.push(result.rate)
      cpus[index]!.push(result.cpu)
    })
  }
  const unit = cell === "list" ? "µs/scan" : "µs/call"
  const rateUnit = cell === "list" ? "scans/s" : "calls/s"
  adapters.forEach((adapter, i) => {
    const r = ratios[i]!
    const c = cpus[i]!
    process.stdout.write(
      `${cell} ${adapter.id.padEnd(32)} ${median(r).toFixed(2)}× raw (${Math.min(...r).toFixed(2)}–${
        Math.max(...r).toFixed(2)
      }), ${Math.round(median(rates[i]!))} ${rateUnit}, client CPU ${median(c).toFixed(1)} ${unit} (${
        Math.min(...c).toFixed(1)
      }–${Math.max(...c).toFixed(1)})\n`
    )
  })
}

main().then(
  () => runtime.dispose().then(() => process.exit(0)),
  (error: unknown) => {
    process.stderr.write(`compareTransport: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  }
)
