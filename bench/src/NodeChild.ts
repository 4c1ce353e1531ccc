/**
 * Runs a fresh `node` process (this Node binary) from the bench folder and collects what it prints: what the heap
 * and import cells measure in a process of their own.
 *
 * @since 0.0.0
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

/** The bench package folder: a child's bare specifiers resolve from its node_modules. */
const benchDir = fileURLToPath(new URL("../", import.meta.url))

/**
 * How the child ended, what it printed, and the wall time from spawn to its `close` event.
 *
 * @since 0.0.0
 */
export interface NodeChildResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly wallMs: number
}

/**
 * Spawns `node <args>` in the bench folder with `env` added to this process's environment; resolves when it has
 * closed, rejects only if it could not be spawned.
 *
 * @since 0.0.0
 */
export const runNode = (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> = {},
  cwd: string = benchDir
): Promise<NodeChildResult> =>
  new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => stdout += chunk)
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk)
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr, wallMs: performance.now() - start }))
  })
