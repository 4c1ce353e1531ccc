/**
 * Runs every scenario of `scenarios.ts` against `authClient.ts` and fails unless each one PASSES.
 *
 *   node packages/auth/test/conformance/run.ts <path to @modelcontextprotocol/conformance/dist/index.js> [scenario…]
 *
 * The suite is not a dependency of this package (the conformance runner of packages/interop pins it); pass
 * its entry point. Each scenario is bounded by the suite's --timeout.
 */
import { spawnSync } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { AUTH_SCENARIOS } from "./scenarios.ts"

const here = Path.dirname(fileURLToPath(import.meta.url))
const client = Path.join(here, "authClient.ts")
const [suite, ...only] = process.argv.slice(2)
if (suite === undefined) {
  process.stderr.write("usage: run.ts <conformance dist/index.js> [scenario…]\n")
  process.exit(2)
}
const failed: Array<string> = []
for (const [scenario, specVersion] of AUTH_SCENARIOS.filter(([s]) => only.length === 0 || only.includes(s))) {
  const result = spawnSync(process.execPath, [
    suite,
    "client",
    "--command",
    `${process.execPath} ${client}`,
    "--scenario",
    scenario,
    "--spec-version",
    specVersion,
    "--timeout",
    "30000"
  ], { encoding: "utf8", timeout: 120_000 })
  const output = `${result.stdout}${result.stderr}`
  const passed = /OVERALL: PASSED/.test(output)
  const counts = /Passed: (\d+\/\d+)/.exec(output)?.[1] ?? "no checks"
  process.stdout.write(`${scenario} @ ${specVersion}: ${passed ? "PASSED" : "FAILED"} (${counts})\n`)
  if (!passed) failed.push(scenario)
}
if (failed.length > 0) {
  process.stdout.write(`auth conformance: ${failed.length} failed: ${failed.join(", ")}\n`)
  process.exit(1)
}
process.stdout.write("auth conformance: every scenario passed\n")
