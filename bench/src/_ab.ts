import { cpSync, rmSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { runNode } from "./NodeChild.ts"
import { layout } from "./PublishedLayout.ts"
import { median } from "./Stats.ts"
const SCRIPT = "const c0 = process.cpuUsage(); const t = performance.now();" +
  " for (const m of JSON.parse(process.env.BENCH_MODULES)) await import(m);" +
  " const wall = performance.now() - t; const c = process.cpuUsage(c0);" +
  " process.stdout.write(JSON.stringify({ wall, cpu: (c.user + c.system) / 1000, rss: process.memoryUsage().rss / 1048576 }))"
const after = layout(), before = layout()
const t = join(before.dir, "node_modules", "@mcp-fleet", "transport", "dist")
rmSync(t, { recursive: true })
cpSync("/tmp/h12/before-dist", t, { recursive: true })
const sets: Record<string, string[]> = {
  "transport + spawner": ["@mcp-fleet/transport", "@effect/platform-node/NodeChildProcessSpawner"],
  "transport/McpClient + spawner": ["@mcp-fleet/transport/McpClient", "@effect/platform-node/NodeChildProcessSpawner"]
}
const runs = Number(process.argv[2] ?? 9)
console.log("load", loadavg().map((l) => l.toFixed(2)).join(" "))
for (const [name, mods] of Object.entries(sets)) {
  const r: Record<string, { cpu: number[]; wall: number[]; rss: number[] }> = {
    before: { cpu: [], wall: [], rss: [] },
    after: { cpu: [], wall: [], rss: [] }
  }
  for (let i = 0; i <= runs; i++) {
    for (const [k, l] of [["before", before], ["after", after]] as const) {
      const o = await runNode(["--input-type=module", "-e", SCRIPT], { BENCH_MODULES: JSON.stringify(mods) }, l.dir)
      if (o.code !== 0) throw new Error(o.stderr)
      if (i === 0) continue
      const j = JSON.parse(o.stdout)
      r[k].cpu.push(j.cpu)
      r[k].wall.push(j.wall)
      r[k].rss.push(j.rss)
    }
  }
  for (const k of ["before", "after"]) {
    console.log(
      `| ${name} | ${k} | ${median(r[k].cpu).toFixed(1)} | ${Math.min(...r[k].cpu).toFixed(1)} | ${
        median(r[k].wall).toFixed(0)
      } | ${median(r[k].rss).toFixed(1)} |`
    )
  }
}
console.log("load", loadavg().map((l) => l.toFixed(2)).join(" "))
after.dispose()
before.dispose()
