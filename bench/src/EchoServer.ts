/**
 * Where the shared echo server lives, how to launch it, and how to read the CPU stats it leaves behind.
 *
 * @since 0.0.0
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { ServerLaunch } from "./ClientAdapter.ts"

/**
 * Absolute path of `bench/servers/echo-server.mjs`.
 *
 * @since 0.0.0
 */
export const echoServerPath: string = fileURLToPath(new URL("../servers/echo-server.mjs", import.meta.url))

/**
 * What the echo server writes at exit (see the header of echo-server.mjs).
 *
 * @since 0.0.0
 */
export interface EchoStats {
  readonly pid: number
  readonly calls: number
  readonly lists: number
  readonly cpuMicrosSinceFirstCall: number
  readonly wallMillisFirstToLastCall: number
  readonly cpuMicrosTotal: number
}

/**
 * Builds the launch line for one echo server run with the current `node`.
 *
 * @since 0.0.0
 */
export const echoLaunch = (options: {
  readonly tools?: number
  readonly pageSize?: number
  readonly statsFile?: string
  /** Answer `initialize` only after this many milliseconds. */
  readonly delayInitMs?: number
  /** Every tool declares an `outputSchema`, and `echo` answers with `structuredContent` too. */
  readonly outputSchemas?: boolean
}): ServerLaunch => {
  const args = [echoServerPath]
  if (options.tools !== undefined) args.push(`tools=${options.tools}`)
  if (options.pageSize !== undefined) args.push(`page-size=${options.pageSize}`)
  if (options.statsFile !== undefined) args.push(`stats-file=${options.statsFile}`)
  if (options.delayInitMs !== undefined && options.delayInitMs > 0) args.push(`delay-init=${options.delayInitMs}`)
  if (options.outputSchemas === true) args.push("output-schemas")
  return { command: process.execPath, args }
}

/**
 * A temporary folder for the stats files of one harness process; `dispose` removes it.
 *
 * @since 0.0.0
 */
export const makeStatsDir = (): { readonly file: (name: string) => string; readonly dispose: () => void } => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-fleet-bench-"))
  return {
    file: (name) => join(dir, `${name}.json`),
    dispose: () => rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Reads a stats file written by the echo server at exit; fails with a clear message if it is missing.
 *
 * @since 0.0.0
 */
export const readEchoStats = (file: string): EchoStats => {
  const text = readFileSync(file, "utf8")
  const parsed: EchoStats = JSON.parse(text)
  if (typeof parsed.cpuMicrosSinceFirstCall !== "number" || typeof parsed.calls !== "number") {
    throw new Error(`echo server stats file ${file} has an unexpected shape: ${text.slice(0, 200)}`)
  }
  return parsed
}
