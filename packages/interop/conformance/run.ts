/**
 * `pnpm conformance`: runs every non-auth client scenario of the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, pinned in the catalog) at each of `--spec-version 2025-11-25` and
 * `2026-07-28` it applies to, against `client.ts`, natively over HTTP, with `baseline.yml` as `--expected-failures`. The suite exits
 * non-zero on a failure that is not in the baseline and on a baseline entry that now passes (stale), so
 * the file stays honest.
 *
 * The scenario list is read from the suite's own `list` command, so a newer suite's scenarios are run
 * (and fail until they pass or are baselined). Each scenario runs in turn, bounded by `--timeout`.
 *
 * One check on top of the suite's: a scenario that recorded no real check fails. The suite's baseline
 * logic counts "no failed check" as a pass, so a client that exits before it connects would otherwise
 * pass `initialize` (seen with a client that did nothing), and a check the scenario could not make is SKIPPED (a
 * skills scenario whose client never lists skills records only that): SKIPPED checks do not count.
 *
 *   pnpm conformance                      # every scenario
 *   pnpm conformance sse-retry initialize # only these
 *   pnpm conformance auth/scope-step-up   # auth/* names go to the auth runner
 *
 * The `auth/*` scenarios (each at its own spec version, against `McpAuth`) are run by
 * packages/auth/test/conformance/run.ts after these, with the same suite; every one must pass.
 *
 * Extension scenarios (`[extension]` in the list) are off the spec timeline: the suite runs one at a spec version only
 * with `--force`. The auth extensions (client credentials, DPoP, enterprise-managed, workload identity) are run here,
 * against `client.ts` with the `McpAuth` of `auth.ts`, at every revision of `SPEC_VERSIONS` (their MCP server speaks
 * each). The other client extensions, SEP-2640 skills (`sep-2640-client-*`), are not run: this client does not
 * implement skills (issue 28), and a client that never calls `skills/list` gets only SKIPPED checks, which the suite
 * counts as a pass, so a run would show green without testing anything.
 *
 * Then the *server* scenarios (`server.ts`), at 2025-11-25 and 2026-07-28, against the fixture upstream
 * (`servers/conformance-upstream.mjs`) and through the gateway in front of it (`gateway.ts`: `mcp-fleet serve`),
 * with `baseline.yml`'s `server:` section. `pnpm conformance dns-rebinding-protection`
 * runs only that server scenario.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { gateway, listServerScenarios, runServerScenarios, upstream } from "./server.ts"

/** Each scenario runs at every one of these revisions it applies to (2026-07-28: issue 16, the modern era). */
const SPEC_VERSIONS = ["2025-11-25", "2026-07-28"]
const SCENARIO_TIMEOUT_MS = "30000"
const here = Path.dirname(fileURLToPath(import.meta.url))
const baseline = Path.join(here, "baseline.yml")
const client = Path.join(here, "client.ts")
const require = createRequire(import.meta.url)
const suiteEntry = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")),
  "dist",
  "index.js"
)
const suiteVersion = (require("@modelcontextprotocol/conformance/package.json") as { version: string }).version

const runSuite = (args: ReadonlyArray<string>, inherit: boolean) =>
  spawnSync(process.execPath, [suiteEntry, ...args], {
    encoding: "utf8",
    stdio: inherit ? "inherit" : "pipe",
    // A whole scenario is bounded by --timeout; this is a backstop for a hung runner.
    timeout: 5 * 60 * 1000
  })

/** The extension scenarios run here: the auth extensions and SEP-2640 skills (see the header). */
const runsExtension = (name: string): boolean => name.startsWith("auth/") || name.startsWith("sep-2640-client-")

interface Listed {
  readonly name: string
  readonly versions: ReadonlyArray<string>
  /** Off the spec timeline (`[extension]`): run with `--force` at each revision. */
  readonly extension: boolean
}

/** Client scenarios from `conformance list`: `  - name [v1,v2]` lines after "Client scenarios", with their revisions
 * (the auth scenarios on the timeline are the auth runner's). */
const clientScenarios = (): Array<Listed> => {
  const listed = runSuite(["list"], false)
  if (listed.status !== 0) throw new Error(`conformance list failed: ${listed.stderr}`)
  const section = listed.stdout.slice(listed.stdout.indexOf("Client scenarios"))
  const scenarios: Array<Listed> = []
  for (const [index, line] of section.split("\n").entries()) {
    if (index > 0 && /^\S/.test(line)) break // the next section ("Authorization server scenarios")
    const match = /^\s+- (\S+) \[([^\]]*)\]/.exec(line)
    if (match === null) continue
    const [, name = "", versions = ""] = match
    const extension = versions === "extension"
    if (extension ? runsExtension(name) : !name.startsWith("auth/")) {
      scenarios.push({ name, versions: versions.split(","), extension })
    }
  }
  if (scenarios.length === 0) throw new Error(`no client scenarios found in:\n${listed.stdout}`)
  return scenarios
}

/** How many real checks (not SKIPPED) the scenario's run recorded (its `checks.json` under `dir`: `<run>/` for `x`,
 * `auth/<run>/` for `auth/x`). */
const checksRecorded = (dir: string): number => {
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => Path.basename(file) === "checks.json")
    .map((file) => Path.join(dir, file))
  const checks: unknown = files.length === 1 ? JSON.parse(readFileSync(files[0] ?? "", "utf8")) : []
  return Array.isArray(checks)
    ? checks.filter((check: unknown) =>
      !(typeof check === "object" && check !== null && "status" in check && check.status === "SKIPPED")
    ).length
    : 0
}

const say = (line: string): void => {
  process.stdout.write(`${line}\n`)
}

const requestedAll = process.argv.slice(2)
const listed = clientScenarios()
const runHere = new Set(listed.map((s) => s.name))
/** Named `auth/*` scenarios that are not extensions go to the auth runner. */
const requestedAuth = requestedAll.filter((name) => name.startsWith("auth/") && !runHere.has(name))
const requested = requestedAll.filter((name) => !requestedAuth.includes(name))
/** Each scenario at each revision of `SPEC_VERSIONS` it applies to (the named ones only, when some are named). */
const runs = SPEC_VERSIONS.flatMap((version) =>
  listed.filter((s) =>
    (s.extension || s.versions.includes(version)) && (requestedAll.length === 0 || requested.includes(s.name))
  ).map((s) => ({ scenario: s.name, version, force: s.extension }))
)
const scenarios = runs.map((run) => `${run.scenario}@${run.version}`)
const authRunner = Path.join(here, "..", "..", "auth", "test", "conformance", "run.ts")
/** The auth scenarios: all of them when none were named, else the named ones; none when only others were named. */
const runAuth = (): boolean => {
  if (requestedAll.length > 0 && requestedAuth.length === 0) return true
  const auth = spawnSync(process.execPath, [authRunner, suiteEntry, ...requestedAuth], { stdio: "inherit" })
  return auth.status === 0
}
say(`conformance ${suiteVersion}: ${scenarios.length} client scenario run(s): ${scenarios.join(", ")}`)
const started = performance.now()
const failed: Array<string> = []
const outputs = mkdtempSync(Path.join(tmpdir(), "mcp-fleet-conformance-"))
for (const { force, scenario, version } of runs) {
  const t0 = performance.now()
  const output = mkdtempSync(Path.join(outputs, "run-"))
  const result = runSuite([
    "client",
    "--command",
    `${process.execPath} ${client}`,
    "--scenario",
    scenario,
    "--spec-version",
    version,
    "--timeout",
    SCENARIO_TIMEOUT_MS,
    "--expected-failures",
    baseline,
    "--output-dir",
    output,
    ...(force ? ["--force"] : [])
  ], true)
  const seconds = ((performance.now() - t0) / 1000).toFixed(1)
  const recorded = checksRecorded(output)
  const verdict = recorded === 0
    ? "FAILED (no real check was recorded, none or only SKIPPED ones: the client did nothing the suite could observe)"
    : result.status === 0
    ? `ok (${recorded} checks: passed, or failed as the baseline expects)`
    : `FAILED (exit ${result.status ?? result.signal})`
  say(`conformance: ${scenario}@${version}: ${verdict} in ${seconds} s`)
  if (recorded === 0 || result.status !== 0) failed.push(`${scenario}@${version}`)
}
rmSync(outputs, { recursive: true, force: true })
const authPassed = runAuth()
// The server scenarios (server.ts): against the fixture upstream, then through the gateway in front of it; all of them
// when none were named.
const requestedServer = listServerScenarios(suiteEntry).filter((scenario) => requested.includes(scenario.name))
const serverFailed = requestedAll.length > 0 && requestedServer.length === 0 ? [] : await runServerScenarios({
  suiteEntry,
  baseline,
  targets: [upstream, gateway("http"), gateway("stdio")],
  requested: requestedServer,
  timeoutMs: SCENARIO_TIMEOUT_MS,
  say
})
const total = ((performance.now() - started) / 1000).toFixed(1)
if (failed.length > 0) {
  say(
    `conformance: ${failed.length} scenario(s) disagree with ${Path.relative(process.cwd(), baseline)}: ${
      failed.join(", ")
    } (${total} s)`
  )
  process.exit(1)
}
if (serverFailed.length > 0) {
  say(`conformance: the server scenarios disagree with the baseline: ${serverFailed.join(", ")} (${total} s)`)
  process.exit(1)
}
if (!authPassed) {
  say(`conformance: an auth scenario failed (${total} s)`)
  process.exit(1)
}
say(
  `conformance: all ${scenarios.length} client scenario(s) and the server scenarios agree with the baseline, and the auth scenarios pass (${total} s)`
)
