/**
 * The server half of `pnpm conformance`: the suite's *server* scenarios (`conformance server --url …`), at
 * `--spec-version 2025-11-25` and `2026-07-28` (`--suite all`: the draft 2026-07-28 scenarios included, the
 * extension-only ones not), against each target in turn, with `baseline.yml`'s `server:` section as
 * `--expected-failures`:
 *
 * - `upstream`: the fixture upstream `servers/conformance-upstream.mjs` (@modelcontextprotocol/server v2, both eras),
 *   directly;
 * - `gateway-http`, `gateway-stdio`: `mcp-fleet serve --http` in front of that upstream, the fleet's only server (no
 *   name prefix), reaching it over HTTP or as its stdio child (`gateway.ts`). Every scenario the upstream passes
 *   directly must pass through the gateway: the same baseline applies to all three, plus the entries of its
 *   `gateway:` section for the gateway (each with its reason: what differs by design).
 *
 * A target is a command that serves MCP over HTTP and prints one JSON line with its `url` on stdout. The suite exits
 * non-zero on a failure not in the baseline and on a baseline entry that passes; on top of that, a scenario that
 * recorded no check at all fails (it would otherwise count as passing).
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

/** The revisions the server scenarios run at. */
export const SERVER_SPEC_VERSIONS = ["2025-11-25", "2026-07-28"]

const here = Path.dirname(fileURLToPath(import.meta.url))

/** A server to put under the suite: how to start it; it prints `{"url":…}` once it listens. */
export interface Target {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** A section of `baseline.yml` whose entries are expected to fail for this target too (besides `server:`). */
  readonly extra?: string | undefined
}

/** The `  - entry` lines of a top-level `section:` of a simple YAML file (`section: []` is none). */
const entriesOf = (yaml: string, section: string): Array<string> => {
  const lines = yaml.split("\n")
  const start = lines.findIndex((line) => line.startsWith(`${section}:`))
  if (start === -1) return []
  const entries: Array<string> = []
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break
    const match = /^\s+-\s+(\S+)/.exec(line)
    if (match?.[1] !== undefined) entries.push(match[1])
  }
  return entries
}

/** The baseline a target runs with: `baseline.yml` itself, or a file with its `extra` entries added to `server:`. */
const baselineFor = (baseline: string, target: Target, dir: string): string => {
  if (target.extra === undefined) return baseline
  const yaml = readFileSync(baseline, "utf8")
  const server = [...entriesOf(yaml, "server"), ...entriesOf(yaml, target.extra)]
  const file = Path.join(dir, `${target.name}-baseline.yml`)
  writeFileSync(file, `server:\n${server.map((entry) => `  - ${entry}\n`).join("")}`)
  return file
}

/** The fixture upstream, served directly. */
export const upstream: Target = {
  name: "upstream",
  command: process.execPath,
  args: [Path.join(here, "..", "servers", "conformance-upstream.mjs")]
}

/** A server scenario of `conformance list`, with the revisions it applies to. */
export interface ServerScenario {
  readonly name: string
  readonly versions: ReadonlyArray<string>
}

/** The server scenarios `conformance list` names (the lines under "Server scenarios"). */
export const listServerScenarios = (suiteEntry: string): Array<ServerScenario> => {
  const listed = spawnSync(process.execPath, [suiteEntry, "list"], { encoding: "utf8" })
  const section = listed.stdout.slice(listed.stdout.indexOf("Server scenarios"))
  const scenarios: Array<ServerScenario> = []
  for (const [index, line] of section.split("\n").entries()) {
    if (index > 0 && /^\S/.test(line)) break
    const match = /^\s+- (\S+) \[([^\]]*)\]/.exec(line)
    if (match?.[1] !== undefined) scenarios.push({ name: match[1], versions: (match[2] ?? "").split(",") })
  }
  return scenarios
}

/** The gateway (`mcp-fleet serve --http`) in front of the fixture upstream, reached over `link`. */
export const gateway = (link: "http" | "stdio"): Target => ({
  name: `gateway-${link}`,
  command: process.execPath,
  args: [Path.join(here, "gateway.ts"), `link=${link}`],
  extra: "gateway"
})

/** Starts `target` and resolves with its URL and a stop function (SIGTERM, then the exit awaited). */
const start = (target: Target) => {
  const child = spawn(target.command, [...target.args], { stdio: ["pipe", "pipe", "inherit"] })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const stop = () => {
    child.kill("SIGTERM")
    return exited
  }
  const url = new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout })
    lines.on("line", (line) => {
      const parsed: unknown = line.startsWith("{") ? JSON.parse(line) : undefined
      if (typeof parsed === "object" && parsed !== null && "url" in parsed && typeof parsed.url === "string") {
        resolve(parsed.url)
      }
    })
    child.once("exit", (code) => reject(new Error(`${target.name} exited (${code}) before it listened`)))
  })
  return { url, stop }
}

/** Scenario runs under `dir` that recorded no check (each run writes `<scenario>-<time>/checks.json`). */
const silentScenarios = (dir: string): Array<string> =>
  existsSync(dir)
    ? readdirSync(dir).filter((run) => {
      const file = Path.join(dir, run, "checks.json")
      const checks: unknown = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : []
      return !Array.isArray(checks) || checks.length === 0
    })
    : []

/**
 * Runs the server scenarios (all, or the `requested` ones) at each revision against each target, and returns the
 * runs that disagree with the baseline (`target@version`, or `target@version:scenario` for a silent one).
 */
export const runServerScenarios = async (options: {
  readonly suiteEntry: string
  readonly baseline: string
  readonly targets: ReadonlyArray<Target>
  readonly requested: ReadonlyArray<ServerScenario>
  readonly timeoutMs: string
  readonly say: (line: string) => void
}): Promise<Array<string>> => {
  const failed: Array<string> = []
  const outputs = mkdtempSync(Path.join(tmpdir(), "mcp-fleet-conformance-server-"))
  for (const target of options.targets) {
    const baseline = baselineFor(options.baseline, target, outputs)
    const server = start(target)
    const url = await server.url.catch((error: unknown) => {
      options.say(`conformance server: ${target.name}: ${error instanceof Error ? error.message : String(error)}`)
      return undefined
    })
    for (const version of url === undefined ? [] : SERVER_SPEC_VERSIONS) {
      const output = mkdtempSync(Path.join(outputs, `${target.name}-${version}-`))
      const t0 = performance.now()
      const selection = options.requested.length === 0
        ? [["--suite", "all"]]
        : options.requested.filter((scenario) => scenario.versions.includes(version))
          .map((scenario) => ["--scenario", scenario.name])
      let status = 0
      for (const select of selection) {
        const result = spawnSync(process.execPath, [
          options.suiteEntry,
          "server",
          "--url",
          url!,
          ...select,
          "--spec-version",
          version,
          "--timeout",
          options.timeoutMs,
          "--expected-failures",
          baseline,
          "--output-dir",
          output
        ], { stdio: "inherit", timeout: 15 * 60 * 1000 })
        status = status !== 0 ? status : result.status ?? 1
      }
      const silent = silentScenarios(output)
      const seconds = ((performance.now() - t0) / 1000).toFixed(1)
      const verdict = status !== 0
        ? `FAILED (exit ${status})`
        : silent.length > 0
        ? `FAILED (no check recorded by ${silent.join(", ")})`
        : "ok (every scenario passed, or failed as the baseline expects)"
      options.say(`conformance server: ${target.name}@${version}: ${verdict} in ${seconds} s`)
      if (status !== 0) failed.push(`${target.name}@${version}`)
      for (const run of silent) failed.push(`${target.name}@${version}:${run}`)
    }
    if (url === undefined) failed.push(`${target.name} (did not start)`)
    await server.stop()
  }
  rmSync(outputs, { recursive: true, force: true })
  return failed
}
