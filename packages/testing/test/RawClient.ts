/**
 * A deliberately small JSON-RPC client over a real child process, for testing the fake server
 * itself: it writes raw lines, records every stdout line (JSON or not) and every stderr byte, and
 * lets a test wait on events (a message, a stderr line, exit, close) instead of on wall time.
 *
 * Each process is spawned detached (its own process group) and {@link RawClient.kill} kills the whole
 * group and waits for every holder of its pipes to close, so a grandchild is reaped too.
 *
 * @since 0.1.0
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import type * as FakeServer from "../src/FakeServer.ts"

/**
 * A decoded JSON-RPC message as the test sees it.
 *
 * @since 0.1.0
 */
export type Message = Readonly<Record<string, unknown>> & {
  readonly id?: string | number | null
  readonly method?: string
  readonly result?: unknown
  readonly error?: { readonly code: number; readonly message: string }
  readonly params?: unknown
}

/**
 * How the process ended.
 *
 * @since 0.1.0
 */
export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

interface Waiter {
  /** Settles the waiter if its value has arrived; returns whether it did. */
  readonly poll: () => boolean
  readonly reject: (error: Error) => void
  readonly label: string
}

const isMessage = (u: unknown): u is Message => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The client.
 *
 * @since 0.1.0
 */
export class RawClient {
  /** Every stdout line, decoded as UTF-8, in order (`\r` is kept). */
  readonly lines: Array<string> = []
  /** Every stdout line that parsed as JSON, in order. */
  readonly messages: Array<Message> = []
  /** Stdout lines that did not parse as JSON. */
  readonly junk: Array<string> = []
  /** Complete stderr lines (read only while stderr is being read). */
  readonly stderrLines: Array<string> = []
  /** Stderr bytes read so far. */
  stderrBytes = 0
  /** Resolves when the process exits (its pipes may still be held by a grandchild). */
  readonly exited: Promise<Exit>
  /** Resolves when the process has exited and every holder of its stdio pipes has closed them. */
  readonly closed: Promise<Exit>
  exit: Exit | undefined = undefined
  isClosed = false

  private readonly waiters = new Set<Waiter>()
  private stdoutPartial: Array<Buffer> = []
  private stderrPartial = ""
  private nextId = 1

  readonly child: ChildProcessWithoutNullStreams

  private constructor(child: ChildProcessWithoutNullStreams, readStderr: boolean) {
    this.child = child
    this.exited = new Promise((resolve) =>
      child.once("exit", (code, signal) => {
        this.exit = { code, signal }
        resolve(this.exit)
        this.wake()
      })
    )
    this.closed = new Promise((resolve) =>
      child.once("close", (code, signal) => {
        this.isClosed = true
        resolve({ code, signal })
        this.wake()
      })
    )
    child.once("error", (error) => {
      for (const waiter of this.waiters) waiter.reject(error)
      this.waiters.clear()
    })
    child.stdout.on("data", (chunk: Buffer) => this.onStdout(chunk))
    child.stdin.on("error", () => {}) // EPIPE after the server exits is expected in some tests
    if (readStderr) this.readStderr()
  }

  /** Spawns `spec` detached, with exactly `spec.env` as its environment. */
  static start(spec: FakeServer.Command, options: { readonly readStderr?: boolean } = {}): RawClient {
    const child = spawn(spec.command, spec.args, { env: spec.env, detached: true, stdio: ["pipe", "pipe", "pipe"] })
    return new RawClient(child, options.readStderr ?? true)
  }

  /** The process id (the process group id too). */
  get pid(): number {
    const pid = this.child.pid
    if (pid === undefined) throw new Error("the process was not spawned")
    return pid
  }

  /** Starts reading stderr (it is paused when started with `readStderr: false`). */
  readStderr(): void {
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderrBytes += chunk.length
      const text = this.stderrPartial + chunk.toString("latin1")
      const parts = text.split("\n")
      this.stderrPartial = parts.pop() ?? ""
      for (const part of parts) this.stderrLines.push(part)
      this.wake()
    })
  }

  /** Writes text to stdin verbatim. */
  write(text: string | Buffer): void {
    this.child.stdin.write(text)
  }

  /** Runs `f` with stdin corked, so everything it writes goes out in one write. */
  corked<A>(f: () => A): A {
    this.child.stdin.cork()
    try {
      return f()
    } finally {
      this.child.stdin.uncork()
    }
  }

  /** Writes one JSON message and a newline. */
  send(message: object): void {
    this.write(JSON.stringify(message) + "\n")
  }

  /** Allocates the next numeric request id. */
  id(): number {
    return this.nextId++
  }

  /** Sends a request without waiting; returns its id. */
  sendRequest(method: string, params?: unknown, id: string | number = this.id()): string | number {
    this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })
    return id
  }

  /** Sends a request and waits for the response with its id. */
  request(method: string, params?: unknown): Promise<Message> {
    const id = this.sendRequest(method, params)
    return this.response(id)
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) })
  }

  /** Runs the handshake: initialize (with `protocolVersion`), then notifications/initialized. */
  async initialize(protocolVersion = "2025-11-25"): Promise<Message> {
    const response = await this.request("initialize", {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "raw-client", version: "0.0.0" }
    })
    this.notify("notifications/initialized")
    return response
  }

  /** Ends stdin. */
  endInput(): void {
    this.child.stdin.end()
  }

  /** The response with `id`, once it has arrived. */
  response(id: string | number): Promise<Message> {
    return this.waitFor((m) => m.id === id && m.method === undefined, `a response to id ${JSON.stringify(id)}`)
  }

  /** The first message (from the start) that satisfies `predicate`, once it has arrived. */
  waitFor(predicate: (message: Message) => boolean, label: string): Promise<Message> {
    return this.until(() => this.messages.find(predicate), label)
  }

  /** The index in {@link messages} of the first message that satisfies `predicate`, or -1. */
  indexOf(predicate: (message: Message) => boolean): number {
    return this.messages.findIndex(predicate)
  }

  /** The first complete stderr line that satisfies `predicate`, once it has arrived. */
  stderrLine(predicate: (line: string) => boolean, label: string): Promise<string> {
    return this.until(() => this.stderrLines.find(predicate), `stderr: ${label}`)
  }

  /** Resolves once at least `n` stderr bytes have been read. */
  stderrAtLeast(n: number): Promise<number> {
    return this.until(() => (this.stderrBytes >= n ? this.stderrBytes : undefined), `${n} stderr bytes`)
  }

  /** Resolves once `check` returns a value; rejects if stdout closes first. */
  until<A>(check: () => A | undefined, label: string): Promise<A> {
    const found = check()
    if (found !== undefined) return Promise.resolve(found)
    if (this.isClosed) return Promise.reject(this.closedError(label))
    return new Promise<A>((resolve, reject) => {
      const poll = (): boolean => {
        const value = check()
        if (value === undefined) return false
        resolve(value)
        return true
      }
      this.waiters.add({ poll, reject, label })
    })
  }

  /** Kills the whole process group with SIGKILL and waits until every pipe holder has closed. */
  async kill(): Promise<Exit> {
    if (!this.isClosed) {
      try {
        process.kill(-this.pid, "SIGKILL")
      } catch (error) {
        if (!(error instanceof Error && "code" in error && error.code === "ESRCH")) throw error
      }
    }
    return this.closed
  }

  private onStdout(chunk: Buffer): void {
    let start = 0
    let nl = chunk.indexOf(10)
    while (nl !== -1) {
      this.stdoutPartial.push(chunk.subarray(start, nl))
      this.onLine(Buffer.concat(this.stdoutPartial).toString("utf8"))
      this.stdoutPartial = []
      start = nl + 1
      nl = chunk.indexOf(10, start)
    }
    if (start < chunk.length) this.stdoutPartial.push(chunk.subarray(start))
    this.wake()
  }

  private onLine(line: string): void {
    this.lines.push(line)
    try {
      const value: unknown = JSON.parse(line)
      if (isMessage(value)) this.messages.push(value)
      else this.junk.push(line)
    } catch {
      this.junk.push(line)
    }
  }

  private wake(): void {
    for (const waiter of this.waiters) {
      if (waiter.poll()) {
        this.waiters.delete(waiter)
      } else if (this.isClosed) {
        this.waiters.delete(waiter)
        waiter.reject(this.closedError(waiter.label))
      }
    }
  }

  private closedError(label: string): Error {
    const tail = this.stderrLines.slice(-3).join(" | ")
    return new Error(
      `the server closed stdout (exit ${JSON.stringify(this.exit)}) before ${label}; last stderr: ${tail}`
    )
  }
}

/**
 * Whether a process is running: it exists and is not a zombie.
 *
 * @since 0.1.0
 */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..." — the state follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

/**
 * The command line of a running process (from /proc), arguments separated by spaces.
 *
 * @since 0.1.0
 */
export const commandLine = (pid: number): string =>
  readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((s) => s.length > 0).join(" ")

/**
 * Resolves once `pid` is no longer running. Linux gives no exit event for a process that is not our
 * child (a grandchild is reparented), and it closes a dying process's pipes a moment before the
 * process leaves the running state, so this checks on each turn of the event loop, up to `limit`
 * checks (then it rejects).
 *
 * @since 0.1.0
 */
export const untilGone = async (pid: number, limit = 10_000): Promise<void> => {
  for (let i = 0; i < limit; i++) {
    if (!isRunning(pid)) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(`process ${pid} is still running`)
}
