/**
 * The child processes of the gateway bench scripts (`gatewayProxy.ts`, `gatewayHostsHeld.ts`): started with the
 * current node, ready once a line of their output says so, stopped (SIGTERM, then SIGKILL) and reaped at the end.
 *
 * @since 0.0.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import { connect, createServer } from "node:net"
import { createInterface } from "node:readline"

/**
 * The children started and not yet exited.
 *
 * @since 0.0.0
 */
export const children = new Set<ChildProcess>()

/**
 * Starts `args` with the current node; resolves with the child and the line once a line of its output (stdout or
 * stderr) matches `ready`; rejects with its last lines if it exits first.
 *
 * @since 0.0.0
 */
export const start = (args: ReadonlyArray<string>, ready: RegExp): Promise<{ child: ChildProcess; line: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] })
    children.add(child)
    child.once("exit", () => children.delete(child))
    const lines: Array<string> = []
    const onLine = (line: string) => {
      lines.push(line)
      if (lines.length > 50) lines.shift()
      if (ready.test(line)) resolve({ child, line })
    }
    createInterface({ input: child.stdout! }).on("line", onLine)
    createInterface({ input: child.stderr! }).on("line", onLine)
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}):\n${lines.join("\n")}`)))
  })

/**
 * SIGTERM, SIGKILL after `graceMs`; resolves once the child has exited.
 *
 * @since 0.0.0
 */
export const stop = (child: ChildProcess, graceMs = 15_000): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const killer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    child.once("exit", () => {
      clearTimeout(killer)
      resolve()
    })
    child.kill("SIGTERM")
  })

/**
 * Stops every child still running.
 *
 * @since 0.0.0
 */
export const stopAll = (): Promise<void> => Promise.all([...children].map((child) => stop(child))).then(() => {})

/**
 * A TCP port free on 127.0.0.1 just now.
 *
 * @since 0.0.0
 */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/**
 * Resolves once something accepts TCP connections on `port` (a bounded retry: every 20 ms, at most 10 s), for the
 * bridges that say they are starting before they listen.
 *
 * @since 0.0.0
 */
export const untilListening = async (port: number): Promise<void> => {
  for (let attempt = 0; attempt < 500; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port })
      socket.once("connect", () => {
        socket.destroy()
        resolve(true)
      })
      socket.once("error", () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after 10 s`)
}
