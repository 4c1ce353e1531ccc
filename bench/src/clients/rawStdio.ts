/**
 * The raw baselines: `node:child_process` + a `Map` of pending ids + `JSON.parse`, no validation.
 *
 * This is the practical limit of a stdio JSON-RPC client in Node: nothing is checked beyond what is needed
 * to pair a response with its request. Two write strategies are offered: one `stdin.write` per message, or
 * every message written during one tick coalesced into a single write.
 *
 * @since 0.0.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import type { ClientAdapter, ClientSession, ServerLaunch } from "../ClientAdapter.ts"

/**
 * How outbound frames reach the child's stdin.
 * - `"each"`: one `write` per message.
 * - `"microtask"`: frames queued in the same microtask checkpoint are joined into one write.
 * - `"immediate"`: frames queued during one event-loop turn are joined into one write (`setImmediate`).
 *
 * @since 0.0.0
 */
export type WriteMode = "each" | "microtask" | "immediate"

/** The fields of a result this client reads; nothing is checked beyond what the code touches. */
interface RawResult {
  readonly content?: ReadonlyArray<{ readonly text?: string }>
  readonly tools?: ReadonlyArray<unknown>
  readonly nextCursor?: string
}

interface RawResponse {
  readonly id?: number
  readonly result?: RawResult
  readonly error?: { readonly message?: string }
}

interface Pending {
  readonly resolve: (result: RawResult) => void
  readonly reject: (error: Error) => void
}

const GRACE_MS = 2_000

/**
 * Builds a raw adapter with the given write strategy.
 *
 * @since 0.0.0
 */
export const makeRawAdapter = (options: {
  readonly id: string
  readonly label: string
  readonly writeMode: WriteMode
  /**
   * Start the server in its own session and process group (`detached: true`), as a client must to signal a
   * server's whole process group (what `effect/process` does by default). Default `false`.
   */
  readonly detached?: boolean
}): ClientAdapter => ({
  id: options.id,
  label: options.label,
  modules: ["node:child_process"],
  start: (server) => startRaw(server, options.writeMode, options.detached ?? false)
})

const startRaw = (server: ServerLaunch, writeMode: WriteMode, detached: boolean): Promise<ClientSession> => {
  const child = spawn(server.command, [...server.args], { stdio: ["pipe", "pipe", "pipe"], detached })
  const pending = new Map<number, Pending>()
  let nextId = 0
  let exited = false
  const exitWaiters: Array<() => void> = []

  const failAll = (error: Error) => {
    for (const entry of pending.values()) entry.reject(error)
    pending.clear()
  }
  child.on("exit", () => {
    exited = true
    failAll(new Error("server process exited"))
    for (const waiter of exitWaiters.splice(0)) waiter()
  })
  child.on("error", (error) => failAll(error))
  child.stdin.on("error", (error) => failAll(error))
  child.stderr.resume()

  let queued: Array<string> = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    const frames = queued
    queued = []
    child.stdin.write(frames.length === 1 ? frames[0] : frames.join(""))
  }
  const write: (frame: string) => void = writeMode === "each"
    ? (frame) => {
      child.stdin.write(frame)
    }
    : (frame) => {
      queued.push(frame)
      if (!scheduled) {
        scheduled = true
        if (writeMode === "microtask") queueMicrotask(flush)
        else setImmediate(flush)
      }
    }

  const request = (method: string, params: unknown): Promise<RawResult> =>
    new Promise((resolve, reject) => {
      if (exited) return reject(new Error("server process exited"))
      const id = nextId++
      pending.set(id, { resolve, reject })
      write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${JSON.stringify(params)}}\n`)
    })

  const onLine = (line: string) => {
    const message: RawResponse = JSON.parse(line)
    if (message.id === undefined) return
    const entry = pending.get(message.id)
    if (entry === undefined) return
    pending.delete(message.id)
    if (message.error !== undefined) entry.reject(new Error(message.error.message ?? "JSON-RPC error"))
    else entry.resolve(message.result ?? {})
  }

  // Split stdout on whole chunks; the unfinished tail waits in `parts` until its newline arrives.
  let parts: Array<string> = []
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk: string) => {
    let start = 0
    let nl = chunk.indexOf("\n")
    if (nl < 0) {
      parts.push(chunk)
      return
    }
    if (parts.length > 0) {
      parts.push(chunk.slice(0, nl))
      const line = parts.join("")
      parts = []
      onLine(line)
      start = nl + 1
      nl = chunk.indexOf("\n", start)
    }
    while (nl >= 0) {
      if (nl > start) onLine(chunk.slice(start, nl))
      start = nl + 1
      nl = chunk.indexOf("\n", start)
    }
    if (start < chunk.length) parts.push(chunk.slice(start))
  })

  const session: ClientSession = {
    pid: child.pid ?? -1,
    call: (payload) =>
      request("tools/call", { name: "echo", arguments: { payload } }).then((result) => result.content?.[0]?.text ?? ""),
    listAll: async () => {
      let count = 0
      let cursor: string | undefined
      do {
        const page = await request("tools/list", cursor === undefined ? {} : { cursor })
        count += page.tools?.length ?? 0
        cursor = page.nextCursor
      } while (cursor !== undefined)
      return count
    },
    close: () => closeChild(child, () => exited, exitWaiters)
  }

  return request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench-raw", version: "0.0.0" }
  }).then(() => {
    write(`{"jsonrpc":"2.0","method":"notifications/initialized"}\n`)
    return session
  })
}

/** Ends stdin, waits for exit; SIGTERM after a grace period, SIGKILL after another. */
const closeChild = (
  child: ChildProcess,
  hasExited: () => boolean,
  exitWaiters: Array<() => void>
): Promise<void> =>
  new Promise((resolve) => {
    if (hasExited()) return resolve()
    const timers: Array<NodeJS.Timeout> = []
    exitWaiters.push(() => {
      for (const timer of timers) clearTimeout(timer)
      resolve()
    })
    child.stdin?.end()
    timers.push(setTimeout(() => child.kill("SIGTERM"), GRACE_MS))
    timers.push(setTimeout(() => child.kill("SIGKILL"), 2 * GRACE_MS))
  })
