/**
 * What an import loads as published, counted (not timed, so the machine's load does not matter): the built packages
 * laid out as installed (`PublishedLayout.ts`), each module set of `importPublished.ts` imported in a fresh `node`
 * whose `module.registerHooks` load hook records every ES module it loads. Prints the count per package and, with
 * `--list=<package prefix>`, the modules of that package (e.g. `--list=@mcp-fleet/transport`).
 *
 *   pnpm typecheck   # tsc -b: the dist/ it copies
 *   node bench/src/moduleCount.ts [--list=@mcp-fleet] [set …]
 *
 * @since 0.0.0
 */
import { sets } from "./importPublished.ts"
import { runNode } from "./NodeChild.ts"
import { layout } from "./PublishedLayout.ts"

const SCRIPT = "import { registerHooks } from 'node:module';" +
  " const seen = [];" +
  " registerHooks({ load(url, context, next) { if (!url.startsWith('node:')) seen.push(url); return next(url, context) } });" +
  " for (const m of JSON.parse(process.env.BENCH_MODULES)) await import(m);" +
  " process.stdout.write(JSON.stringify(seen))"

/** `…/node_modules/@scope/name/rest` → `@scope/name` (or `name`), else the path. */
const packageOf = (url: string): { readonly name: string; readonly file: string } => {
  const at = url.lastIndexOf("/node_modules/")
  if (at < 0) return { name: "(other)", file: url }
  const parts = url.slice(at + "/node_modules/".length).split("/")
  const scoped = parts[0]!.startsWith("@")
  const name = scoped ? `${parts[0]}/${parts[1]}` : parts[0]!
  return { name, file: parts.slice(scoped ? 2 : 1).join("/") }
}

/**
 * The modules one set loads, as URLs.
 *
 * @since 0.0.0
 */
export const loadedModules = async (dir: string, modules: ReadonlyArray<string>): Promise<ReadonlyArray<string>> => {
  const { code, stderr, stdout } = await runNode(["--input-type=module", "-e", SCRIPT], {
    BENCH_MODULES: JSON.stringify(modules)
  }, dir)
  if (code !== 0) throw new Error(`importing ${modules.join(", ")} failed: ${stderr.slice(-400)}`)
  return JSON.parse(stdout) as ReadonlyArray<string>
}

const main = async () => {
  const args = process.argv.slice(2)
  const list = args.find((a) => a.startsWith("--list="))?.slice(7)
  const names = args.filter((a) => !a.startsWith("--"))
  const chosen = names.length === 0 ? Object.keys(sets) : names
  const { dir, dispose } = layout()
  try {
    const out = (line: string) => process.stdout.write(line + "\n")
    out("| import | ES modules | effect | @effect/platform-node | @mcp-fleet/* |")
    out("| --- | ---: | ---: | ---: | ---: |")
    const listed: Array<string> = []
    for (const name of chosen) {
      const modules = sets[name]
      if (modules === undefined) throw new Error(`unknown set ${name} (known: ${Object.keys(sets).join(", ")})`)
      const urls = await loadedModules(dir, modules)
      const byPackage = urls.map(packageOf)
      const count = (test: (p: string) => boolean) => byPackage.filter((p) => test(p.name)).length
      out(
        `| ${name} | ${urls.length} | ${count((p) => p === "effect")} | ${
          count((p) => p === "@effect/platform-node")
        } | ${count((p) => p.startsWith("@mcp-fleet/"))} |`
      )
      if (list !== undefined) {
        listed.push(
          `\n${name}:`,
          ...byPackage.filter((p) => p.name.startsWith(list)).map((p) => `  ${p.name}/${p.file}`)
        )
      }
    }
    for (const line of listed) out(line)
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
