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
 * Cells: `c1` / `c64` (64 B calls), `c1k` / `c64k` (64 KiB calls), `list` (the 2,000-tool scan). Prints, per
 * client, the median same-round ratio to raw (min–max) and the median client CPU per call or per scan.
 * `lifecycle`: per round, 10 cycles of start → one call → close → server pid gone; prints startup (spawn →
 * initialized) and shutdown (close → pid gone) as same-round time ratios to raw (below 1 = faster than raw), with
 * the client CPU of each phase (a warm process: the cold first session is `pnpm bench`'s `cold-lifecycle`).
 *
 * @since 0.0.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import type * as Transport from "@mcp-fleet/transport"
import { Effect, Exit, ManagedRuntime, Scope } from "effect"
import { isAbsolute, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { callLoop } from "./cells/callCell.ts"
import type { ClientAdapter, ClientSession } from "./ClientAdapter.ts"
import { findClient } from "./clients/registry.ts"
import { echoLaunch } from "./EchoServer.ts"
import { median } from "./Stats.ts"
import { waitUntilGone } from "./Timing.ts"

const runtime = ManagedRuntime.make(NodeServices.layer)

/** An adapter over the transport copy in `dir` (the same shape as `clients/fleet.ts`). */
const transportAt = async (dir: string): Promise<ClientAdapter> => {
  const transport: typeof Transport = await import(pathToFileURL(resolve(dir, "src/index.ts")).href)
  return {
    id: dir,
    label: `@mcp-fleet/transport from ${dir}`,
    modules: [],
    start: async (server): Promise<ClientSession> => {
      const scope = await Effect.runPromise(Scope.make())
      const client = await runtime.runPromise(
        Effect.gen(function*() {
          const made = yield* transport.McpClient.make({ command: server.command, args: server.args, name: "ab" })
          yield* made.awaitReady
          return made
        }).pipe(Scope.provide(scope))
      )
      return {
        pid: client.pid,
        call: (payload) =>
          Effect.runPromise(
            client.callTool("echo", { payload }).pipe(Effect.map((result) => {
              const block = result.content[0]
              return block !== undefined && typeof block["text"] === "string" ? block["text"] : ""
            }))
          ),
        listAll: () => Effect.runPromise(client.listTools().pipe(Effect.map((list) => list.tools.length))),
        close: () => Effect.runPromise(Scope.close(scope, Exit.void))
      }
    }
  }
}

const arg = (name: string, fallback: string): string => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`))
  return found === undefined ? fallback : found.slice(name.length + 3)
}

const measure = async (adapter: ClientAdapter, cell: string, ms: number): Promise<{ rate: number; cpu: number }> => {
  if (cell === "list") {
    const session = await adapter.start(echoLaunch({ tools: 2_000, pageSize: 100 }))
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
  const session = await adapter.start(echoLaunch({}))
  try {
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

const main = async () => {
  const cell = arg("cell", "c64")
  const rounds = Number(arg("rounds", "6"))
  const ms = Number(arg("ms", "1000"))
  if (!["c1", "c64", "c1k", "c64k", "list", "lifecycle"].includes(cell)) throw new Error(`unknown --cell=${cell}`)
  const names = ["raw", ...process.argv.slice(2).filter((a) => !a.startsWith("--") && a !== "raw")]
  const adapters: Array<ClientAdapter> = []
  for (const name of names) {
    const entry = findClient(name)
    if (entry !== undefined) adapters.push(await entry.load())
    else if (isAbsolute(name) || name.startsWith(".") || name.includes("/")) adapters.push(await transportAt(name))
    else throw new Error(`${name} is neither a registered client nor a directory`)
  }
  if (cell === "lifecycle") return compareLifecycle(adapters, rounds)
  const ratios = adapters.map((): Array<number> => [])
  const cpus = adapters.map((): Array<number> => [])
  for (let round = 0; round < rounds; round++) {
    const results = new Map<number, { rate: number; cpu: number }>()
    for (let k = 0; k < adapters.length; k++) {
      const index = (k + round) % adapters.length
      results.set(index, await measure(adapters[index]!, cell, ms))
    }
    const raw = results.get(0)!
    results.forEach((result, index) => {
      ratios[index]!.push(result.rate / raw.rate)
      cpus[index]!.push(result.cpu)
    })
  }
  const unit = cell === "list" ? "µs/scan" : "µs/call"
  adapters.forEach((adapter, i) => {
    const r = ratios[i]!
    process.stdout.write(
      `${cell} ${adapter.id.padEnd(32)} ${median(r).toFixed(2)}× raw (${Math.min(...r).toFixed(2)}–${
        Math.max(...r).toFixed(2)
      }), client CPU ${median(cpus[i]!).toFixed(1)} ${unit}\n`
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
