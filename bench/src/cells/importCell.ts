/**
 * The import-time cell: a fresh `node` process imports the client's library modules, timed inside it.
 *
 * @since 0.0.0
 */
import type { Cell, CellContext, Measurement } from "../Cell.ts"
import type { ClientAdapter } from "../ClientAdapter.ts"
import { runNode } from "../NodeChild.ts"
import { median } from "../Stats.ts"

/** Imports the modules named in `BENCH_MODULES` in order (bare specifiers resolve from the bench package). */
const SCRIPT = "const t = performance.now();" +
  " for (const m of JSON.parse(process.env.BENCH_MODULES)) await import(m);" +
  " process.stdout.write(String(performance.now() - t))"

/**
 * Runs one fresh `node --input-type=module -e` that imports `modules` in order; resolves with the in-process
 * import time and the whole process's wall time (spawn → exit), both in ms.
 *
 * @since 0.0.0
 */
export const timeImport = async (
  modules: ReadonlyArray<string>
): Promise<{ importMs: number; processMs: number }> => {
  const { code, stderr, stdout, wallMs } = await runNode(["--input-type=module", "-e", SCRIPT], {
    BENCH_MODULES: JSON.stringify(modules)
  })
  const importMs = Number(stdout)
  if (code !== 0 || !Number.isFinite(importMs)) {
    throw new Error(`importing ${modules.join(", ")} failed (exit ${code}): ${stderr.slice(-500)}`)
  }
  return { importMs, processMs: wallMs }
}

/**
 * `importRepeats` fresh processes per client per round; medians of import ms and process ms.
 *
 * @since 0.0.0
 */
export const importCell: Cell = {
  id: "import",
  title: "import time (fresh node process)",
  once: false,
  metrics: [
    { key: "importMs", label: "import ms (in process)", digits: 1, ratio: false },
    { key: "importSourceMs", label: "import ms from workspace .ts sources", digits: 1, ratio: false },
    { key: "processMs", label: "node -e wall ms (spawn → exit)", digits: 1, ratio: false }
  ],
  run: async (adapter: ClientAdapter, context: CellContext): Promise<Measurement> => {
    const imports: Array<number> = []
    const sources: Array<number> = []
    const processes: Array<number> = []
    for (let i = 0; i < context.config.importRepeats; i++) {
      const timing = await timeImport(adapter.modules)
      imports.push(timing.importMs)
      processes.push(timing.processMs)
      if (adapter.sourceModules !== undefined) sources.push((await timeImport(adapter.sourceModules)).importMs)
    }
    return {
      importMs: median(imports),
      // Only a workspace library has sources apart from what it publishes; the others show "n/a".
      importSourceMs: sources.length === 0 ? Number.NaN : median(sources),
      processMs: median(processes)
    }
  }
}
