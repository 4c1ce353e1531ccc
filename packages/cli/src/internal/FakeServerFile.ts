/**
 * Where the fake MCP server's files are. The published package carries a copy of `@mcp-fleet/fake-server`'s
 * `src/` in `dist/fake-server/` (`scripts/bundle.mjs`), so that the installed CLI has no dependency on it; in the
 * repository (and for a library user who installed `@mcp-fleet/fake-server`) the package export is used.
 *
 * @internal
 */
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

/**
 * The absolute path of `@mcp-fleet/fake-server/<name>` (`server` or `http-server`): the copy in `dist/fake-server/`
 * when this module runs from `dist/` (the bundle's `dist/bin/` or a chunk in `dist/bin/chunks/`, or `dist/src/`),
 * else the installed package's export. Throws when neither is there.
 */
export const resolve = (name: "server" | "http-server"): string => {
  for (const folder of ["../fake-server/", "../../fake-server/"]) {
    const copy = fileURLToPath(new URL(`${folder}${name}.mjs`, import.meta.url))
    if (existsSync(copy)) return copy
  }
  return createRequire(import.meta.url).resolve(`@mcp-fleet/fake-server/${name}`)
}
