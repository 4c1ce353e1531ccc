#!/usr/bin/env node
// The `mcp-fleet` command: a launcher in plain JavaScript, so that it loads on every Node and can say
// what to do instead of failing with a stack trace.
//
// - In the repository, next to `mcp-fleet.ts`: runs that TypeScript entry, which needs Node ≥ 22.18
//   (type stripping). On an older Node it prints one line that says what to do, and exits with code 1.
//   (On Node 22.10–22.17, `node --experimental-strip-types packages/cli/bin/mcp-fleet.mjs` works too.)
// - In an installed package (npm never ships `mcp-fleet.ts`): runs the bundle `dist/bin/mcp-fleet.bundle.js`
//   (`scripts/bundle.mjs`, run by prepack: a few files to load instead of ~390 modules), else the built
//   `dist/bin/mcp-fleet.js`.
import { existsSync } from "node:fs"

const source = new URL("./mcp-fleet.ts", import.meta.url)
const bundle = new URL("../dist/bin/mcp-fleet.bundle.js", import.meta.url)
const built = new URL("../dist/bin/mcp-fleet.js", import.meta.url)
const fail = (line) => {
  process.stderr.write(`mcp-fleet: ${line}\n`)
  process.exit(1)
}

if (existsSync(source)) {
  // Node >= 22.18 strips types by default; 22.10–22.17 do with --experimental-strip-types.
  if (!process.features.typescript) {
    fail(
      `running from the sources needs Node >= 22.18, this is ${process.version}: use ./fleet mcp-fleet <command> ` +
        `at the repository root (it provisions Node 22), or npm i -g @mcp-fleet/cli`
    )
  }
  await import(source.href)
} else if (existsSync(bundle)) {
  await import(bundle.href)
} else if (existsSync(built)) {
  await import(built.href)
} else {
  fail(`this package has no dist/ (it was packed without a build); reinstall @mcp-fleet/cli from the registry`)
}
