/**
 * Finds fake MCP server processes (and the test daemons of `Daemons`: redis-server, haproxy) that are still
 * running, kills them, and reports them as a typed error. The vitest `globalSetup` in `test/leakGuard.globalSetup.ts` runs {@link check} when a test run
 * ends, so a test that leaves a server (or an `npx`-like grandchild) behind fails the run.
 *
 * It reads the process table with `ps -ww -eo pid=,args=` through the `ChildProcessSpawner`
 * service (provide `NodeServices.layer`), and kills with `kill -KILL`.
 *
 * @example
 * ```ts
 * import { LeakGuard } from "@mcp-fleet/testing"
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 *
 * await Effect.runPromise(LeakGuard.check({ runId }).pipe(Effect.provide(NodeServices.layer)))
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { marker as daemonMarker } from "./Daemons.ts"
import * as FakeHttpServer from "./FakeHttpServer.ts"
import * as FakeServer from "./FakeServer.ts"
import { LeakedProcesses, type ProcessEntry, ProcessScanFailed } from "./TestingError.ts"

/**
 * Which processes count as fake servers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The path to look for in each command line (default: the stdio and the HTTP fake server). */
  readonly serverPath?: string | undefined
  /**
   * This run's id. When set, processes tagged with another run's `run-id=<id>` are left alone
   * (they belong to a concurrent test run); untagged ones and this run's still count.
   */
  readonly runId?: string | undefined
}

const psLine = /^\s*(\d+)\s+(.*)$/

/**
 * Parses the output of `ps -eo pid=,args=` (a header line, if any, is skipped).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parsePs = (output: string): ReadonlyArray<ProcessEntry> => {
  const entries: Array<ProcessEntry> = []
  for (const line of output.split("\n")) {
    const match = psLine.exec(line)
    if (match !== null && match[1] !== undefined && match[2] !== undefined) {
      entries.push({ pid: Number(match[1]), args: match[2].trimEnd() })
    }
  }
  return entries
}

/**
 * Whether a process-table entry is a fake server (or its grandchild) that `options` covers.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isFakeServer = (entry: ProcessEntry, options: Options = {}): boolean => {
  const paths = options.serverPath === undefined
    ? [FakeServer.serverPath, FakeHttpServer.serverPath, daemonMarker]
    : [options.serverPath]
  if (!paths.some((path) => entry.args.includes(path))) return false
  if (options.runId === undefined) return true
  // `run-id=<id>` as a word, or inside one (a daemon carries `<marker>/run-id=<id>`).
  const runIds = [...entry.args.matchAll(/(?:^|[\s/])run-id=([^\s/]+)/g)].map((match) => match[1])
  return runIds.length === 0 || runIds.includes(options.runId)
}

/**
 * Lists the running fake servers that `options` covers.
 *
 * @since 0.1.0
 * @category scanning
 */
export const scan = Effect.fn("LeakGuard.scan")(function*(options: Options = {}) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const output = yield* spawner.string(ChildProcess.make("ps", ["-ww", "-eo", "pid=,args="])).pipe(
    Effect.mapError((cause) => new ProcessScanFailed({ reason: "ps could not be run", cause }))
  )
  const entries = parsePs(output)
  if (entries.length === 0) {
    return yield* new ProcessScanFailed({ reason: `ps printed no processes (output: ${JSON.stringify(output)})` })
  }
  return entries.filter((entry) => isFakeServer(entry, options))
})

/**
 * Sends SIGKILL to each process. Processes that are already gone are not an error.
 *
 * @since 0.1.0
 * @category killing
 */
export const killAll = Effect.fn("LeakGuard.killAll")(function*(processes: ReadonlyArray<ProcessEntry>) {
  if (processes.length === 0) return
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  yield* spawner.exitCode(ChildProcess.make("kill", ["-KILL", ...processes.map((p) => String(p.pid))])).pipe(
    Effect.ignore
  )
})

/**
 * Scans for leftover fake servers; if there are any, kills them and fails with
 * {@link LeakedProcesses} naming each one.
 *
 * @since 0.1.0
 * @category checking
 */
export const check = Effect.fn("LeakGuard.check")(function*(options: Options = {}) {
  const leaked = yield* scan(options)
  if (leaked.length === 0) return
  yield* killAll(leaked)
  return yield* new LeakedProcesses({ processes: leaked })
})
