#!/usr/bin/env node
// Rewrites barrel imports of `effect` in the given source folders to imports by module path, which load only the
// modules used (the `effect` barrel loads every module of the package: a few hundred ms of start-up for a
// short-lived process; see BENCHMARKS.md, "Import time"):
//
//   import { Effect, type Scope } from "effect"   →   import * as Effect from "effect/Effect"
//                                                      import type * as Scope from "effect/Scope"
//
// Also `effect/http`, `effect/encoding`, `effect/cli` and `effect/process` (their own barrels). Idempotent; re-run it after a merge that brought
// new barrel imports back:  node scripts/import-by-path.mjs packages/transport/src packages/auth/src …
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const effectSrc = fileURLToPath(new URL("../node_modules/effect/src/", import.meta.url))
const barrel = /^import (type )?\{([^}]*)\} from "effect(\/http|\/encoding|\/cli|\/process)?"\n/gm
const problems = []

const rewrite = (file, text) =>
  text.replace(barrel, (whole, allType, names, sub = "") => {
    const lines = []
    for (let name of names.split(",").map((n) => n.trim()).filter((n) => n !== "")) {
      let type = allType !== undefined
      if (name.startsWith("type ")) {
        type = true
        name = name.slice(5).trim()
      }
      if (name.includes(" as ") || !existsSync(join(effectSrc, sub, `${name}.ts`))) {
        problems.push(`${file}: ${name} is not a module of effect${sub}; left as it was`)
        return whole
      }
      lines.push(`import ${type ? "type " : ""}* as ${name} from "effect${sub}/${name}"\n`)
    }
    return lines.join("")
  })

const walk = (dir) => {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) walk(path)
    else if (path.endsWith(".ts")) {
      const text = readFileSync(path, "utf8")
      const next = rewrite(path, text)
      if (next !== text) writeFileSync(path, next)
    }
  }
}

for (const dir of process.argv.slice(2)) walk(dir)
for (const problem of problems) process.stderr.write(`${problem}\n`)
process.exitCode = problems.length === 0 ? 0 : 1
