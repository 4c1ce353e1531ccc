// Writes src/status/PageAssets.ts from the status page's sources in src/status/page/ (index.html, status.css,
// status.js): the page is served from memory, so it travels inside whatever loads the gateway (the workspace's
// TypeScript, the published dist/, the CLI's single-file bundle) with no file to find at run time. The sources stay
// the files to edit; test/status/PageAssets.test.ts fails while the module is not what this script writes.
//
//   node packages/gateway/scripts/page-assets.mjs          # or: pnpm --filter @mcp-fleet/gateway page
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const status = fileURLToPath(new URL("../src/status/", import.meta.url))
const page = join(status, "page")

/** A template literal whose value is `text` exactly. */
const literal = (text) => `\`${text.replaceAll("\\", "\\\\").replaceAll("`", "\\`").replaceAll("${", "\\${")}\``

const asset = (file, name, what) =>
  `/** ${what} (\`src/status/page/${file}\`). */\nexport const ${name}: string = ${
    literal(readFileSync(join(page, file), "utf8"))
  }\n`

const module = [
  "/**",
  " * The status page's files, as the gateway serves them. Written by `scripts/page-assets.mjs` from `src/status/page/`:",
  " * edit those files, then run `pnpm --filter @mcp-fleet/gateway page`.",
  " *",
  " * @internal",
  " */",
  "",
  asset("index.html", "html", "The page"),
  asset("status.css", "css", "Its style sheet"),
  asset("status.js", "js", "Its script")
].join("\n")

writeFileSync(join(status, "PageAssets.ts"), module)
process.stdout.write(`wrote ${join(status, "PageAssets.ts")} (${module.length} characters)\n`)
