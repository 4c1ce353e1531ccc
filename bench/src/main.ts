/**
 * Entry point of the benchmark harness: `pnpm bench [-- --quick --clients=a,b --cells=x,y ...]`.
 *
 * Run with `node --expose-gc bench/src/main.ts` (Node 22 strips the types). Prints progress on stderr and the
 * Markdown report on stdout.
 *
 * @since 0.0.0
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { cells } from "./cellRegistry.ts"
import type { ClientAdapter } from "./ClientAdapter.ts"
import { clientEntries, defaultClientIds, findClient } from "./clients/registry.ts"
import { loadAverage, machineInfo } from "./Machine.ts"
import { OptionsError, parseOptions, usage } from "./Options.ts"
import { renderReport } from "./Report.ts"
import { runBenchmarks } from "./Runner.ts"

const main = async (): Promise<number> => {
  const argv = process.argv.slice(2)
  let config
  try {
    config = parseOptions(argv, {
      clients: clientEntries.map((e) => e.id),
      defaultClients: defaultClientIds,
      cells: cells.map((c) => c.id)
    })
  } catch (error) {
    if (!(error instanceof OptionsError)) throw error
    process.stderr.write(`bench: ${error.message}\n\n${usage}\n`)
    return 2
  }
  if (config === undefined) {
    process.stdout.write(usage + "\n")
    return 0
  }
  if (typeof globalThis.gc !== "function") {
    process.stderr.write("bench: note: run with node --expose-gc for a forced GC before each measured window\n")
  }
  const adapters: Array<ClientAdapter> = []
  for (const id of config.clients) {
    const entry = findClient(id)
    if (entry !== undefined) adapters.push(await entry.load())
  }
  const unwired = clientEntries.filter((e) => !e.wired && !config.clients.includes(e.id)).map((e) => e.id)
  const log = (line: string) => process.stderr.write(`bench: ${line}\n`)
  log(`clients ${config.clients.join(", ")}; cells ${config.cells.join(", ")}; ${config.rounds} rounds`)
  const selected = cells.filter((c) => config.cells.includes(c.id))
  const loadBefore = loadAverage()
  const result = await runBenchmarks(config, adapters, selected, log)
  const load = { before: loadBefore, after: loadAverage() }
  if (config.jsonOut !== undefined) {
    mkdirSync(dirname(config.jsonOut), { recursive: true })
    writeFileSync(config.jsonOut, JSON.stringify({ config, machine: machineInfo(), result }, null, 2) + "\n")
    log(`wrote ${config.jsonOut}`)
  }
  process.stdout.write(
    renderReport({
      config,
      machine: machineInfo(),
      cells: selected,
      clients: config.clients,
      unwired,
      clientCells: Object.fromEntries(adapters.map((adapter) => [adapter.id, adapter.cells])),
      result,
      load,
      command: `pnpm bench${argv.length > 0 ? ` -- ${argv.filter((a) => a !== "--").join(" ")}` : ""}`
    })
  )
  return 0
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  }
)
