/**
 * Import cost of transport copies from their `.ts` sources (the same copies `compareTransport.ts` takes: a directory
 * holding `src/`): each round imports `src/<module>` of every copy in turn, each in a fresh `node` whose
 * `module.registerHooks` load hook counts the ES modules it loads, and reports the import's CPU time (user +
 * system) and wall time. The order rotates each round. Prints the medians per copy, with their min–max. From `.ts`
 * sources the figures include type stripping, so compare copies with one another, not with `importPublished.ts`'s
 * built JS.
 *
 *   node src/importSources.ts --rounds=7 --module=McpClient.ts ../.cache/ab/start ../packages/transport
 *
 * A copy emitted to JS (its `src/*.js`, beside a `package.json` with `"type": "module"`) takes `--module=index.js`:
 * then no type stripping is timed, as for the built package.
 *
 * @since 0.0.0
 */
import { isAbsolute, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { runNode } from "./NodeChild.ts"
import { median } from "./Stats.ts"

const arg = (name: string, fallback: string): string => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`))
  return found === undefined ? fallback : found.slice(name.length + 3)
}

const SCRIPT = "import { registerHooks } from 'node:module';" +
  " let modules = 0;" +
  " registerHooks({ load(url, context, next) { if (!url.startsWith('node:')) modules++; return next(url, context) } });" +
  " const t0 = performance.now(); const c0 = process.cpuUsage();" +
  " await import(process.env.BENCH_MODULE);" +
  " const c = process.cpuUsage(c0);" +
  " process.stdout.write(JSON.stringify({ ms: performance.now() - t0, cpu: (c.user + c.system) / 1000, modules }))"

interface Sample {
  readonly ms: number
  readonly cpu: number
  readonly modules: number
}

const rounds = Number(arg("rounds", "7"))
const module = arg("module", "index.ts")
const dirs = process.argv.slice(2).filter((a) => !a.startsWith("--"))
const samples = new Map<string, Array<Sample>>(dirs.map((dir) => [dir, []]))

for (let round = 0; round < rounds; round++) {
  // The order rotates each round, as in compareTransport.ts.
  for (let k = 0; k < dirs.length; k++) {
    const dir = dirs[(k + round) % dirs.length]!
    const url = pathToFileURL(resolve(isAbsolute(dir) ? dir : resolve(process.cwd(), dir), "src", module)).href
    const result = await runNode(["--input-type=module", "-e", SCRIPT], { BENCH_MODULE: url })
    if (result.code !== 0) throw new Error(`importing ${url} failed: ${result.stderr}`)
    samples.get(dir)!.push(JSON.parse(result.stdout) as Sample)
  }
}

for (const [dir, list] of samples) {
  const line = {
    copy: dir,
    module,
    rounds,
    cpuMs: Math.round(median(list.map((s) => s.cpu))),
    cpuMinMax: [Math.round(Math.min(...list.map((s) => s.cpu))), Math.round(Math.max(...list.map((s) => s.cpu)))],
    wallMs: Math.round(median(list.map((s) => s.ms))),
    wallMinMax: [Math.round(Math.min(...list.map((s) => s.ms))), Math.round(Math.max(...list.map((s) => s.ms)))],
    modules: median(list.map((s) => s.modules))
  }
  process.stdout.write(`${JSON.stringify(line)}\n`)
}
