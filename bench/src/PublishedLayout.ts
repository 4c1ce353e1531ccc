/**
 * The workspace packages as an install would lay them out, without a registry: a throwaway `node_modules` with
 * each package's built `dist/` (and `bin/`, `src/*.mjs` where it ships plain JavaScript), its
 * `publishConfig.exports` as `exports` (so `@mcp-fleet/*` resolve to built JavaScript, as an installed copy
 * does), and `effect`, `@effect/platform-node` and `@modelcontextprotocol/sdk` linked beside them. Build first:
 * `pnpm typecheck` (`tsc -b` at the root, which emits every package's `dist/`), then `pnpm --filter @mcp-fleet/cli
 * bundle` for the CLI's published executable (without it the CLI runs from its unbundled `dist/`).
 *
 * @since 0.0.0
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const packagesDir = fileURLToPath(new URL("../../packages/", import.meta.url))
const benchModules = fileURLToPath(new URL("../node_modules/", import.meta.url))
const built = ["auth", "transport", "manager", "config", "cli"]

/**
 * A laid-out install: its directory (with a `package.json`), the installed `mcp-fleet` bin, and how to remove it.
 *
 * @since 0.0.0
 */
export interface Layout {
  readonly dir: string
  readonly cliBin: string
  readonly fakeServer: string
  readonly dispose: () => void
}

/**
 * Lays the packages out in a fresh temporary directory.
 *
 * @since 0.0.0
 */
export const layout = (): Layout => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-fleet-published-"))
  const modules = join(dir, "node_modules")
  for (const scope of ["@mcp-fleet", "@effect", "@modelcontextprotocol"]) {
    mkdirSync(join(modules, scope), { recursive: true })
  }
  for (const name of built) {
    const source = join(packagesDir, name)
    const target = join(modules, "@mcp-fleet", name)
    const manifest = JSON.parse(readFileSync(join(source, "package.json"), "utf8")) as {
      exports: unknown
      publishConfig?: { exports?: unknown }
    }
    manifest.exports = manifest.publishConfig?.exports ?? manifest.exports
    mkdirSync(target)
    writeFileSync(join(target, "package.json"), JSON.stringify(manifest))
    if (!existsSync(join(source, "dist"))) {
      throw new Error(`packages/${name} has no dist/: run pnpm typecheck`)
    }
    cpSync(join(source, "dist"), join(target, "dist"), { recursive: true, filter: (p) => !p.endsWith(".map") })
    // The CLI's launcher runs the built bin when there is no mcp-fleet.ts beside it, as in the package.
    if (name === "cli") cpSync(join(source, "bin", "mcp-fleet.mjs"), join(target, "bin", "mcp-fleet.mjs"))
  }
  cpSync(join(packagesDir, "fake-server"), join(modules, "@mcp-fleet", "fake-server"), {
    recursive: true,
    filter: (p) => !p.includes("node_modules") && !p.includes("/test")
  })
  const link = (from: string, to: string) => symlinkSync(realpathSync(from), to)
  link(join(packagesDir, "transport", "node_modules", "effect"), join(modules, "effect"))
  link(
    join(packagesDir, "transport", "node_modules", "@effect", "platform-node"),
    join(modules, "@effect", "platform-node")
  )
  link(join(benchModules, "@modelcontextprotocol", "sdk"), join(modules, "@modelcontextprotocol", "sdk"))
  // The CLI's bundle (`pnpm --filter @mcp-fleet/cli bundle`) keeps undici, its one outside import, a dependency.
  link(join(packagesDir, "cli", "node_modules", "undici"), join(modules, "undici"))
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "mcp-fleet-published", private: true, type: "module" })
  )
  return {
    dir,
    cliBin: join(modules, "@mcp-fleet", "cli", "bin", "mcp-fleet.mjs"),
    fakeServer: join(modules, "@mcp-fleet", "fake-server", "src", "server.mjs"),
    dispose: () => rmSync(dir, { recursive: true, force: true })
  }
}
