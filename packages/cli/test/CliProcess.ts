/**
 * Runs the real `mcp-fleet` binary (`node packages/cli/bin/mcp-fleet.ts …`) as a child process, and writes
 * temporary config files whose servers are the fake MCP server (started through `FakeServer.command`, so
 * they carry this test run's `run-id` for the leak guard).
 */
import { FakeServer } from "@mcp-fleet/testing"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { TestContext } from "vitest"

/** The executable under test. */
export const BIN = fileURLToPath(new URL("../bin/mcp-fleet.ts", import.meta.url))

/** How a run ended and what it wrote. */
export interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** A running `mcp-fleet`. */
export interface Running {
  readonly child: ChildProcess
  readonly pid: number
  /** Resolves when the process has exited and its pipes are closed. */
  readonly finished: Promise<Finished>
  /** Resolves with the first stdout line that satisfies `predicate` (rejects if the process ends first). */
  readonly stdoutLine: (predicate: (line: string) => boolean) => Promise<string>
  /** Resolves with the first stderr line that satisfies `predicate` (rejects if the process ends first). */
  readonly stderrLine: (predicate: (line: string) => boolean) => Promise<string>
  /** What was written so far. */
  readonly output: () => { readonly stdout: string; readonly stderr: string }
}

/** Options of a run: extra environment variables, the working directory, and the executable (default `BIN`). */
export interface RunOptions {
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  readonly bin?: string
}

/**
 * Starts the binary. When the test finishes, a process still running gets SIGTERM (a clean shutdown of its
 * servers), then SIGKILL if it has not exited two seconds later.
 */
export const start = (ctx: TestContext, args: ReadonlyArray<string>, options: RunOptions = {}): Running => {
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  let ended = false
  const waiters = new Set<() => void>()
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
    for (const wake of waiters) wake()
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
    for (const wake of waiters) wake()
  })
  const finished = new Promise<Finished>((resolve, reject) => {
    child.once("error", reject)
    child.once("close", (code, signal) => {
      ended = true
      for (const wake of waiters) wake()
      resolve({ code, signal, stdout, stderr })
    })
  })
  const lineOf = (read: () => string) => (predicate: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = read().split("\n").find(predicate)
        if (found !== undefined) {
          waiters.delete(check)
          resolve(found)
        } else if (ended) {
          waiters.delete(check)
          reject(new Error(`mcp-fleet ended without the expected line; stdout:\n${stdout}\nstderr:\n${stderr}`))
        }
      }
      waiters.add(check)
      check()
    })
  ctx.onTestFinished(async () => {
    if (ended) return
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 2_000)
    await finished.catch(() => undefined)
    clearTimeout(timer)
  })
  const stdoutLine = lineOf(() => stdout)
  const stderrLine = lineOf(() => stderr)
  return { child, pid: child.pid!, finished, stdoutLine, stderrLine, output: () => ({ stdout, stderr }) }
}

/** Runs the binary to completion. */
export const run = (ctx: TestContext, args: ReadonlyArray<string>, options: RunOptions = {}): Promise<Finished> =>
  start(ctx, args, options).finished

/** A server entry of a config file. */
export type ServerEntry = Readonly<Record<string, unknown>>

/** A config entry that starts the fake server with these options. */
export const fakeServer = (options: FakeServer.Options = {}, extra: ServerEntry = {}): ServerEntry => {
  const { args, command, env } = FakeServer.command(options)
  return { command, args, ...(Object.keys(env).length > 0 ? { env } : {}), ...extra }
}

/** A temporary directory, removed when the test finishes. */
export const tempDir = async (ctx: TestContext): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), "mcp-fleet-cli-"))
  ctx.onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Writes `{ "mcpServers": servers }` (or raw text) to a file in a temporary directory; returns its path. */
export const writeConfig = async (
  ctx: TestContext,
  content: Readonly<Record<string, ServerEntry>> | string,
  fileName = "mcp.json"
): Promise<string> => {
  const path = join(await tempDir(ctx), fileName)
  const text = typeof content === "string" ? content : JSON.stringify({ mcpServers: content }, null, 2)
  await writeFile(path, text)
  return path
}

/** The pids and command lines of a process's children. */
export const childProcesses = (pid: number): Promise<ReadonlyArray<{ readonly pid: number; readonly args: string }>> =>
  new Promise((resolve, reject) => {
    execFile("ps", ["-o", "pid=,args=", "--ppid", String(pid)], (error, out) => {
      // ps exits 1 when there is no such process: no children.
      if (error !== null && error.code !== 1) return reject(error)
      resolve(
        out
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line.length > 0)
          .map((line) => {
            const space = line.indexOf(" ")
            return { pid: Number(line.slice(0, space)), args: line.slice(space + 1) }
          })
      )
    })
  })

/** Whether a process with this pid exists. */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

/**
 * The entry point (`dist/index.js`) of an MCP reference server from npm, installed as a devDependency of
 * `@mcp-fleet/interop` (resolved from that package, so that the CLI does not depend on it).
 */
export const referenceServer = (name: "filesystem" | "memory" | "everything"): string => {
  const require = createRequire(fileURLToPath(new URL("../../interop/package.json", import.meta.url)))
  return join(dirname(require.resolve(`@modelcontextprotocol/server-${name}/package.json`)), "dist", "index.js")
}
