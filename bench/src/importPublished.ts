/**
 * Import cost as published, without a registry: the built packages laid out as installed (`PublishedLayout.ts`),
 * each module set below timed in `--runs` fresh `node` processes: wall time inside the process and CPU time (user +
 * system, `process.cpuUsage`), median and minimum. `pnpm bench:published` measures the real installed packages
 * (a local registry); this is the quick version of its import rows.
 *
 *   pnpm typecheck   # tsc -b: the dist/ it copies
 *   node bench/src/importPublished.ts [--runs=11] [set …]
 *
 * @since 0.0.0
 */
import { loadavg } from "node:os"
import { runNode } from "./NodeChild.ts"
import { layout } from "./PublishedLayout.ts"
import { median } from "./Stats.ts"

/**
 * The module sets, by name: what a user of each entry point imports.
 *
 * @since 0.0.0
 */
export const sets: Record<string, ReadonlyArray<string>> = {
  "@mcp-fleet/transport + NodeChildProcessSpawner": [
    "@mcp-fleet/transport",
    "@effect/platform-node/NodeChildProcessSpawner"
  ],
  "@mcp-fleet/transport/McpClient + NodeChildProcessSpawner": [
    "@mcp-fleet/transport/McpClient",
    "@effect/platform-node/NodeChildProcessSpawner"
  ],
  "@mcp-fleet/transport": ["@mcp-fleet/transport"],
  "@mcp-fleet/transport + NodeServices": ["@mcp-fleet/transport", "@effect/platform-node/NodeServices"],
  "@mcp-fleet/manager + NodeServices": ["@mcp-fleet/manager", "@effect/platform-node/NodeServices"],
  "effect (barrel)": ["effect"],
  "effect/Effect": ["effect/Effect"],
  "effect/Schema": ["effect/Schema"],
  "@effect/platform-node (barrel)": ["@effect/platform-node"],
  "@effect/platform-node/NodeChildProcessSpawner": ["@effect/platform-node/NodeChildProcessSpawner"],
  "@effect/platform-node/NodeServices": ["@effect/platform-node/NodeServices"]
}

const SCRIPT = "const c0 = process.cpuUsage(); const t = performance.now();" +
  " for (const m of JSON.parse(process.env.BENCH_MODULES)) await import(m);" +
  " const wall = performance.now() - t; const c = process.cpuUsage(c0);" +
  " process.stdout.write(JSON.stringify({ wall, cpu: (c.user + c.system) / 1000 }))"

const timeSet = async (dir: string, modules: ReadonlyArray<string>, runs: number) => {
  const walls: Array<number> = []
  const cpus: Array<number> = []
  for (let i = 0; i <= runs; i++) {
    const { code, stderr, stdout } = await runNode(["--input-type=module", "-e", SCRIPT], {
      BENCH_MODULES: JSON.stringify(modules)
    }, dir)
    if (code !== 0) throw new Error(`importing ${modules.join(", ")} failed: ${stderr.slice(-400)}`)
    const { cpu, wall } = JSON.parse(stdout) as { wall: number; cpu: number }
    if (i === 0) continue // warm-up: the file system cache
    walls.push(wall)
    cpus.push(cpu)
  }
  return { wallMedian: median(walls), wallMin: Math.min(...walls), cpuMedian: median(cpus), cpuMin: Math.min(...cpus) }
}

const main = async () => {
  const args = process.argv.slice(2)
  const runs = Number(args.find((a) => a.startsWith("--runs="))?.slice(7) ?? 11)
  const names = args.filter((a) => !a.startsWith("--"))
  const chosen = names.length === 0 ? Object.keys(sets) : names
  const { dir, dispose } = layout()
  try {
    const out = (line: string) => process.stdout.write(line + "\n")
    out(
      `| import (fresh process; ${runs} runs after one warm-up; load ${
        loadavg().map((l) => l.toFixed(2)).join(" ")
      }) | wall median ms | wall min ms | CPU median ms | CPU min ms |`
    )
    out("| --- | ---: | ---: | ---: | ---: |")
    for (const name of chosen) {
      const modules = sets[name]
      if (modules === undefined) throw new Error(`unknown set ${name} (known: ${Object.keys(sets).join(", ")})`)
      const r = await timeSet(dir, modules, runs)
      const f = (n: number) => n.toFixed(1)
      out(`| ${name} | ${f(r.wallMedian)} | ${f(r.wallMin)} | ${f(r.cpuMedian)} | ${f(r.cpuMin)} |`)
    }
    out(`\nload after: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  } finally {
    dispose()
  }
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  })
}
