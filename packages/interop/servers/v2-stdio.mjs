#!/usr/bin/env node
// @modelcontextprotocol/server (v2) over stdio with `serveStdio`, serving the tools of v2-tools.mjs.
//
//   node v2-stdio.mjs legacy=serve    both eras: initialize pins a 2025-era instance, server/discover a modern one
//   node v2-stdio.mjs legacy=reject   modern only: initialize (and any claim-less request) gets -32022
//   node v2-stdio.mjs ttl=60000       tools/list results carry ttlMs 60000, cacheScope private (modern era)
//
// It exits when stdin ends (the SDK's stdio transport closes then).
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import { createFactory, options } from "./v2-tools.mjs"

const { legacy = "serve", ttlMs } = options(process.argv.slice(2))
if (legacy !== "serve" && legacy !== "reject") {
  process.stderr.write(`v2-stdio: legacy=${legacy} must be serve or reject\n`, () => process.exit(2))
} else {
  const factory = createFactory({ ttlMs, announce: "register" })
  const handle = serveStdio(factory, {
    legacy,
    onerror: (error) => process.stderr.write(`v2-stdio: ${error.message}\n`)
  })
  process.stdin.on("end", () => handle.close().finally(() => process.exit(0)))
  process.stderr.write(`v2-stdio: started pid=${process.pid} legacy=${legacy}\n`)
}
