/**
 * The whole-process CLI table (issue 19): a process that starts one fast stdio server (the fake MCP server),
 * lists its tools as JSON and exits, measured spawn → exit under `/usr/bin/time` (wall time, user + system CPU,
 * peak RSS), one warm-up then `--runs` runs each, medians quoted. Rows:
 *
 * - `mcp-fleet tools --server fast --json`, the CLI as published (built JavaScript, `PublishedLayout.ts`);
 * - the official SDK doing the same in a 20-line script (`whole/sdk-tools-list.mjs`);
 * - the MCP inspector's CLI, `@modelcontextprotocol/inspector@<pinned> --cli <server> --method tools/list`,
 *   installed once with npm into `.cache/inspector-<version>` (left out, and said so, if it does not install).
 *
 *   pnpm typecheck && node bench/src/wholeProcess.ts [--runs=11]
 *
 * @since 0.0.0
 */
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { layout } from "./PublishedLayout.ts"
import { median } from "./Stats.ts"

/** The inspector version the table is measured with. */
export const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"

const cacheDir = fileURLToPath(new URL("../../.cache/", import.meta.url))
const sdkScript = fileURLToPath(new URL("../whole/sdk-tools-list.mjs", import.meta.url))

interface Sample {
  readonly wallMs: number
  readonly cpuMs: number
  readonly rssKB: number
}

const timed = (command: string, args: ReadonlyArray<string>, cwd: string, expect: string): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn("/usr/bin/time", ["-f", "bench-time %U %S %M", command, ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => stdout += c)
    child.stderr.setEncoding("utf8").on("data", (c: string) => stderr += c)
    child.on("error", reject)
    child.on("close", (code) => {
      const wallMs = performance.now() - t0
      const m = /bench-time ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(stderr)
      if (code !== 0 || m === null) {
        return reject(new Error(`${command} ${args.join(" ")}: exit ${code}: ${stderr.slice(-400)}`))
      }
      if (!stdout.includes(expect)) {
        return reject(new Error(`${command}: its output has no ${expect}: ${stdout.slice(0, 300)}`))
      }
      resolve({ wallMs, cpuMs: (Number(m[1]) + Number(m[2])) * 1000, rssKB: Number(m[3]) })
    })
  })

const installInspector = async (): Promise<string> => {
  const dir = join(cacheDir, INSPECTOR.replace(/[@/]/g, "-"))
  const bin = join(dir, "node_modules", ".bin", "mcp-inspector")
  if (existsSync(bin)) return bin
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "inspector-bench", private: true }))
  const code = await new Promise<number | null>((resolve) => {
    const npm = spawn("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", INSPECTOR], {
      cwd: dir,
      stdio: "inherit"
    })
    npm.on("error", () => resolve(-1))
    npm.on("close", resolve)
  })
  if (code !== 0 || !existsSync(bin)) throw new Error(`npm install ${INSPECTOR} failed (exit ${code})`)
  return bin
}

const main = async () => {
  const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.slice(7) ?? 11)
  const installed = layout()
  const rows: Array<{ label: string; samples: Array<Sample> }> = []
  const measure = async (label: string, command: string, args: ReadonlyArray<string>, expect: string) => {
    await timed(command, args, installed.dir, expect) // warm-up: the file system cache
    const samples: Array<Sample> = []
    for (let i = 0; i < runs; i++) samples.push(await timed(command, args, installed.dir, expect))
    rows.push({ label, samples })
    process.stderr.write(`whole-process: ${label}: wall median ${median(samples.map((s) => s.wallMs)).toFixed(0)} ms\n`)
  }
  const loadBefore = loadavg()
  try {
    const server = [process.execPath, installed.fakeServer]
    const config = join(installed.dir, "fast.json")
    writeFileSync(config, JSON.stringify({ mcpServers: { fast: { command: server[0], args: server.slice(1) } } }))
    const bundled = existsSync(join(installed.cliBin, "..", "..", "dist", "bin", "mcp-fleet.bundle.js"))
    await measure(
      `mcp-fleet tools --server fast --json (published ${bundled ? "bundle" : "build, unbundled"})`,
      process.execPath,
      [installed.cliBin, "tools", "--server", "fast", "--json", "--config", config],
      "\"echo\""
    )
    await measure(
      "official SDK, 20-line script (whole/sdk-tools-list.mjs)",
      process.execPath,
      [sdkScript, ...server],
      "\"echo\""
    )
    try {
      const inspector = await installInspector()
      await measure(`${INSPECTOR} --cli … --method tools/list`, inspector, [
        "--cli",
        ...server,
        "--method",
        "tools/list"
      ], "echo")
    } catch (error) {
      process.stderr.write(
        `whole-process: the inspector row is left out: ${error instanceof Error ? error.message : String(error)}\n`
      )
    }
  } finally {
    installed.dispose()
  }
  const f = (n: number) => n.toFixed(0)
  const loads = (l: ReadonlyArray<number>) => l.map((x) => x.toFixed(2)).join(" ")
  const out = (line: string) => process.stdout.write(line + "\n")
  out(
    `| whole process (Node ${process.version}; ${runs} runs after one warm-up; load ${loads(loadBefore)} → ${
      loads(loadavg())
    }) | wall median ms | wall min ms | CPU median ms | peak RSS median MB |`
  )
  out("| --- | ---: | ---: | ---: | ---: |")
  for (const { label, samples } of rows) {
    const wall = samples.map((s) => s.wallMs)
    out(
      `| ${label} | ${f(median(wall))} | ${f(Math.min(...wall))} | ${f(median(samples.map((s) => s.cpuMs)))} | ${
        (median(samples.map((s) => s.rssKB)) / 1024).toFixed(1)
      } |`
    )
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  process.exit(1)
})
