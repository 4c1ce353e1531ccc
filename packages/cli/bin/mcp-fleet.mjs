#!/usr/bin/env node
// The `mcp-fleet` command: a launcher in plain JavaScript, so that it loads on every Node and can say
// what to do instead of failing with a stack trace.
//
// - In the repository, next to `mcp-fleet.ts`: runs that TypeScript entry, which needs Node ≥ 22.18
//   (type stripping). On an older Node it prints one line that says what to do, and exits with code 1.
//   (On Node 22.10–22.17, `node --experimental-strip-types packages/cli/bin/mcp-fleet.mjs` works too.)
// - In an installed package (npm never ships `mcp-fleet.ts`): runs the bundle `dist/bin/mcp-fleet.bundle.js`
//   (`scripts/bundle.mjs`, run by prepack), on the Node the package's `engines` names: on an older one it says so in
//   one line and exits with code 1, as from the sources (the bundle's HTTP client, undici, fails on Node 20).
import { existsSync, readFileSync } from "node:fs"

const source = new URL("./mcp-fleet.ts", import.meta.url)
const bundle = new URL("../dist/bin/mcp-fleet.bundle.js", import.meta.url)
const fail = (line) => {
  process.stderr.write(`mcp-fleet: ${line}\n`)
  process.exit(1)
}

// The lowest Node the package supports, from its `engines` (">=22.18"), and whether this one is at least that.
const wanted = (() => {
  try {
    const range = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines?.node ?? ""
    const match = /^>=\s*(\d+)\.(\d+)/.exec(range)
    if (match !== null) return [Number(match[1]), Number(match[2])]
  } catch {
    // No readable package.json: the version this launcher was written for.
  }
  return [22, 18]
})()
const [major, minor] = process.versions.node.split(".").map(Number)
const recent = major > wanted[0] || (major === wanted[0] && minor >= wanted[1])

if (existsSync(source)) {
  // Node >= 22.18 strips types by default; 22.10–22.17 do with --experimental-strip-types.
  if (!process.features.typescript) {
    fail(
      `running from the sources needs Node >= 22.18, this is ${process.version}: use ./fleet mcp-fleet <command> ` +
        `at the repository root (it provisions Node 22), or npm i -g @mcp-fleet/cli`
    )
  }
  await import(source.href)
} else if (!recent) {
  fail(
    `needs Node >= ${wanted[0]}.${wanted[1]}, this is ${process.version}: install Node ${wanted[0]} or later ` +
      `(https://nodejs.org, or nvm install ${wanted[0]}) and run mcp-fleet with it`
  )
} else if (existsSync(bundle)) {
  await import(bundle.href)
} else {
  fail(`this package has no dist/bin/mcp-fleet.bundle.js (it was packed without a build); reinstall @mcp-fleet/cli`)
}
