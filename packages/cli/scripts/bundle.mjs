// Bundles the `mcp-fleet` executable for the published package: `bin/mcp-fleet.ts` and everything it imports
// (effect, @effect/platform-node, the workspace packages) become one ES module, `dist/bin/mcp-fleet.bundle.js`,
// plus one chunk per lazily imported part (the HTTP client, the auth login's listener…) in `dist/bin/chunks/`.
// Node then resolves, reads and links a few files instead of ~390 modules: the CLI starts in about half the CPU
// time (BENCHMARKS.md, "Issue 19, import time and the whole-process CLI (h12)"). The launcher
// (`bin/mcp-fleet.mjs`) runs it.
//
// The published CLI installs only what the bundle loads at run time: undici (below) and nothing else. The fake MCP
// server the demo spawns by path (`@mcp-fleet/fake-server`'s `src/`, plain JavaScript without dependencies) is
// copied beside the bundle, into `<out>/../fake-server/` (`src/internal/FakeServerFile.ts` finds it there).
//
//   node scripts/bundle.mjs [--out=<dir>]   # default: dist/bin (run by prepack after tsc -b)
import { cpSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "rolldown"

const here = fileURLToPath(new URL("..", import.meta.url))
const out = process.argv.find((a) => a.startsWith("--out="))?.slice(6) ?? join(here, "dist", "bin")

rmSync(join(out, "chunks"), { recursive: true, force: true })
const fakeServer = dirname(createRequire(import.meta.url).resolve("@mcp-fleet/fake-server/server"))
const fakeServerCopy = join(out, "..", "fake-server")
rmSync(fakeServerCopy, { recursive: true, force: true })
cpSync(fakeServer, fakeServerCopy, { recursive: true })
await build({
  input: { "mcp-fleet.bundle": join(here, "bin", "mcp-fleet.ts") },
  platform: "node",
  // undici is CommonJS that @effect/platform-node re-exports with `export *`, which a bundle cannot resolve
  // statically: it stays a dependency of the package (loaded only for remote servers).
  external: ["undici"],
  // The published packages' own `exports` resolve to their TypeScript sources in the workspace: the same code tsc
  // emits to dist/.
  logLevel: "warn",
  output: {
    dir: out,
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name]-[hash].js",
    // No JSDoc (effect's is most of its source text): less for V8 to scan at every start. Licences stay.
    comments: { legal: true, annotation: false, jsdoc: false }
  }
})
