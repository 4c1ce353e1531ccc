/**
 * The JSON-RPC connection over a child's stdin/stdout: one writer, one reader, one request path.
 *
 * - Writer: every outbound frame goes through one `Outbox`, drained by one fiber that takes whatever is queued
 *   as a single write. Frames are whole lines, so they can never interleave.
 * - Reader: one fiber splits stdout into lines over whole chunks and pairs responses to pending requests
 *   synchronously, by id, in any order. It never runs user code or issues requests: notifications go to a
 *   bounded PubSub, server requests are answered by queueing a frame.
 * - Requests: one `request` allocates the id, registers the pending entry (holding the caller's resume
 *   callback: no Deferred, no fiber, no timer per request), queues the frame and suspends until the reader or the
 *   deadline fiber resumes it. One deadline fiber expires overdue entries; an expired or interrupted request is
 *   removed and `notifications/cancelled` is sent for it.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import type { RequestError } from "../McpError.ts"
import {
  ClientClosed,
  InvalidParams,
  MessageTooLarge,
  ProcessExited,
  ProtocolError,
  RemoteError,
  RequestTimeout,
  TooManyInFlight
} from "../McpError.ts"
import type { ServerNotification } from "../Protocol.ts"
import * as JsonRpc from "./JsonRpc.ts"
import { LineFramer } from "./LineFramer.ts"
import { Outbox } from "./Outbox.ts"
import type { Redactor } from "./Redactor.ts"
import type { StderrTail } from "./StderrTail.ts"

/** How a child process ended. */
export interface ExitInfo {
  readonly code: number | null
  readonly signal: string | null
}

/** Counters of what the reader skipped or refused; for diagnostics and tests. */
export interface Stats {
  notJson: number
  invalid: number
  unknownId: number
  oversize: number
  invalidUtf8: number
  serverRequests: number
  notifications: number
  /** Requests written, by method. */
  requests: Record<string, number>
}

interface Pending {
  readonly id: number
  readonly method: string
  /** Resumes the suspended caller; called exactly once, by whoever removes the entry from `pending`. */
  readonly resume: (outcome: Exit.Exit<unknown, RequestError>) => void
  readonly deadline: number
  readonly timeoutMs: number
  readonly cancellable: boolean
}

/** Per-request options of the one request path. */
export interface RequestOptions {
  /** Milliseconds until the request expires; `Infinity` for none. */
  readonly timeoutMs: number
  /** Whether expiry or interruption sends `notifications/cancelled` (never for `initialize`). */
  readonly cancellable: boolean
}

export interface ConnectionConfig {
  readonly server: string
  readonly maxMessageBytes: number
  readonly maxInFlight: number
  readonly notificationBuffer: number
  readonly notificationReplay: number
  readonly clock: Clock.Clock
  readonly stderr: StderrTail
  /** Replaces known secrets in everything derived from the server's output (errors, log lines). */
  readonly redactor: Redactor
}

const MAX_LOGGED_PER_BATCH = 10

/** The connection's shared state and its one request path. */
export interface Connection {
  readonly request: (method: string, params: unknown, options: RequestOptions) => Effect.Effect<unknown, RequestError>
  readonly notify: (method: string, params: unknown) => void
  readonly notifications: PubSub.PubSub<ServerNotification>
  readonly stats: Stats
  readonly pendingCount: () => number
  /** The error the connection was terminated with, or `undefined` while it is not. */
  readonly failure: () => ProcessExited | ClientClosed | undefined
  /**
   * The error every new request fails with: the termination's, or `ProcessExited` as soon as the process has
   * exited (while its last output is still being drained); `undefined` while the connection is usable.
   */
  readonly deadError: () => ProcessExited | ClientClosed | undefined
  readonly exitInfo: () => ExitInfo | undefined
  readonly isAlive: () => boolean
  /** Completes when the connection stops being usable, with the error new requests now fail with. */
  readonly terminated: Deferred.Deferred<ProcessExited | ClientClosed>
  /** Completes when the child process has exited. */
  readonly exited: Deferred.Deferred<ExitInfo>
  /**
   * Stops accepting requests and fails every pending one with `ClientClosed`. Idempotent. `input` says what
   * becomes of the child's stdin: `end` (flush, then EOF: the graceful path), `hold` (left open, so a kill
   * that follows is what ends the child), or `shut` (dropped).
   */
  readonly close: (reason: string, input: "end" | "hold" | "shut") => void
  /** The fibers' bodies, forked by the owner into its scope. */
  readonly runWriter: Effect.Effect<void>
  readonly runReader: Effect.Effect<void>
  readonly runDeadlines: Effect.Effect<never>
  /** Waits for the process to exit, then (after the output is drained, briefly) fails what is pending. */
  readonly watchExit: (outputDrained: Effect.Effect<void>) => Effect.Effect<void>
}

/** Builds a connection over a spawned child's stdio. Nothing runs until the owner forks the fibers. */
export const make = (
  handle: ChildProcessSpawner.ChildProcessHandle,
  config: ConnectionConfig
): Effect.Effect<Connection> =>
  Effect.gen(function*() {
    const { clock, redactor, server } = config
    /** A bounded, one-line excerpt of server text for a log line, secrets replaced first (so no cut hides one). */
    const clip = (text: string, max?: number) => JsonRpc.excerpt(redactor.text(text), max)
    const outbox = new Outbox()
    const notifications = yield* PubSub.sliding<ServerNotification>({
      capacity: config.notificationBuffer,
      replay: config.notificationReplay
    })
    const terminated = yield* Deferred.make<ProcessExited | ClientClosed>()
    const exitSignal = yield* Deferred.make<ExitInfo>()
    const pending = new Map<number, Pending>()
    const stats: Stats = {
      notJson: 0,
      invalid: 0,
      unknownId: 0,
      oversize: 0,
      invalidUtf8: 0,
      serverRequests: 0,
      notifications: 0,
      requests: {}
    }
    let nextId = 1
    let exited: ExitInfo | undefined
    let failed: ProcessExited | ClientClosed | undefined
    const diagnostics: Array<string> = []
    const quiet: Array<string> = []
    let diagnosticsDropped = 0

    /** Something the server sent was skipped: a warning, logged after the batch of chunks it came in. */
    const diagnose = (text: string) => {
      if (diagnostics.length < MAX_LOGGED_PER_BATCH) diagnostics.push(text)
      else diagnosticsDropped++
    }

    /** Expected noise (a late answer to a request we stopped waiting for): logged at debug level. */
    const note = (text: string) => {
      if (quiet.length < MAX_LOGGED_PER_BATCH) quiet.push(text)
    }

    const write = (frame: string) => {
      outbox.offer(frame)
    }

    // ---- deadlines: one fiber sleeps until the earliest deadline ----
    let wake = Deferred.makeUnsafe<void>()
    let scheduledAt = Infinity
    const schedule = (deadline: number) => {
      if (deadline < scheduledAt) {
        scheduledAt = deadline
        Deferred.doneUnsafe(wake, Exit.void)
      }
    }

    const sendCancelled = (entry: Pending, reason: string) => {
      if (entry.cancellable && failed === undefined) {
        write(JsonRpc.notificationFrame("notifications/cancelled", { requestId: entry.id, reason }))
      }
    }

    const expire = (entry: Pending) => {
      pending.delete(entry.id)
      entry.resume(Exit.fail(new RequestTimeout({ server, method: entry.method, timeoutMs: entry.timeoutMs })))
      sendCancelled(entry, `no answer within ${entry.timeoutMs} ms`)
    }

    const runDeadlines: Effect.Effect<never> = Effect.suspend(() => {
      const now = clock.currentTimeMillisUnsafe()
      let next = Infinity
      for (const entry of pending.values()) {
        if (entry.deadline <= now) expire(entry)
        else if (entry.deadline < next) next = entry.deadline
      }
      const current = Deferred.makeUnsafe<void>()
      wake = current
      scheduledAt = next
      return next === Infinity
        ? Deferred.await(current)
        : Effect.raceFirst(Effect.sleep(next - now), Deferred.await(current))
    }).pipe(Effect.forever)

    // ---- the one request path ----
    const request = (method: string, params: unknown, options: RequestOptions): Effect.Effect<unknown, RequestError> =>
      Effect.callback<unknown, RequestError>((resume) => {
        const dead = deadError()
        if (dead !== undefined) return resume(Exit.fail(dead))
        if (pending.size >= config.maxInFlight) {
          return resume(Exit.fail(new TooManyInFlight({ server, limit: config.maxInFlight })))
        }
        const id = nextId++
        stats.requests[method] = (stats.requests[method] ?? 0) + 1
        const frame = JsonRpc.encodeRequest(id, method, params)
        if (typeof frame !== "string") {
          return resume(Exit.fail(new InvalidParams({ server, method, detail: frame.error })))
        }
        const deadline = options.timeoutMs === Infinity ? Infinity : clock.currentTimeMillisUnsafe() + options.timeoutMs
        const entry: Pending = {
          id,
          method,
          resume,
          deadline,
          timeoutMs: options.timeoutMs,
          cancellable: options.cancellable
        }
        pending.set(id, entry)
        if (deadline !== Infinity) schedule(deadline)
        write(frame)
        // Runs only if the caller is interrupted while waiting.
        return Effect.sync(() => {
          if (pending.get(id) === entry) {
            pending.delete(id)
            sendCancelled(entry, "the caller stopped waiting")
          }
        })
      })

    const notify = (method: string, params: unknown) => {
      if (failed === undefined) write(JsonRpc.notificationFrame(method, params))
    }

    const failAll = (error: RequestError) => {
      const entries = [...pending.values()]
      pending.clear()
      for (const entry of entries) entry.resume(Exit.fail(error))
    }

    const terminate = (error: ProcessExited | ClientClosed, input: "end" | "hold" | "shut") => {
      if (failed !== undefined) return
      failed = error
      failAll(error)
      if (input === "end") outbox.end()
      else if (input === "shut") outbox.shutdown()
      Deferred.doneUnsafe(terminated, Exit.succeed(error))
    }

    const processExited = (info: ExitInfo) =>
      new ProcessExited({ server, code: info.code, signal: info.signal, stderrTail: config.stderr.snapshot() })

    // No request sent after the exit can be answered: it fails at once, without waiting for the drain.
    const deadError = () => failed ?? (exited === undefined ? undefined : processExited(exited))

    // ---- the reader: dispatch each line synchronously ----
    const settle = (id: JsonRpc.Id, exit: Exit.Exit<unknown, RequestError>, what: string) => {
      const entry = typeof id === "number" ? pending.get(id) : undefined
      if (entry === undefined) {
        stats.unknownId++
        // The spec says to ignore late answers to cancelled or timed-out requests: not worth a warning.
        note(`skipped a ${what} for unknown or finished request id ${clip(JSON.stringify(id))}`)
        return
      }
      pending.delete(entry.id)
      entry.resume(exit)
    }

    const answerServerRequest = (id: JsonRpc.Id, method: string) => {
      stats.serverRequests++
      if (method === "ping") write(JsonRpc.resultFrame(id, {}))
      else write(JsonRpc.errorFrame(id, -32601, `Method not found: ${method}`))
    }

    const onLine = (line: string) => {
      const msg = JsonRpc.classify(line)
      switch (msg._tag) {
        case "Result":
          return settle(msg.id, Exit.succeed(msg.result), "result")
        case "Error": {
          if (msg.id === null) {
            stats.invalid++
            return diagnose(`skipped an error response without id: ${msg.code} ${clip(msg.message)}`)
          }
          const entry = typeof msg.id === "number" ? pending.get(msg.id) : undefined
          const error = new RemoteError({
            server,
            method: entry?.method ?? "unknown",
            code: msg.code,
            remoteMessage: redactor.text(msg.message),
            ...(msg.hasData ? { data: redactor.value(msg.data) } : {})
          })
          return settle(msg.id, Exit.fail(error), "error response")
        }
        case "Request":
          return answerServerRequest(msg.id, msg.method)
        case "Notification": {
          stats.notifications++
          inbound.push({ method: msg.method, params: msg.params })
          return
        }
        case "Invalid": {
          stats.invalid++
          const entry = typeof msg.id === "number" ? pending.get(msg.id) : undefined
          if (entry !== undefined) {
            pending.delete(entry.id)
            entry.resume(Exit.fail(new ProtocolError({ server, method: entry.method, detail: msg.reason })))
          }
          return diagnose(`skipped an invalid message (${msg.reason}): ${clip(line)}`)
        }
        case "NotJson":
          stats.notJson++
          return diagnose(`skipped a non-JSON stdout line: ${clip(line)}`)
      }
    }

    const framer = new LineFramer(config.maxMessageBytes, {
      line: onLine,
      oversize: (bytes, head, tail) => {
        stats.oversize++
        const { id, kind } = JsonRpc.sniffOversize(head, tail)
        // Only a response settles a call: a server request's id is the server's own, whatever it equals.
        const entry = kind === "response" && typeof id === "number" ? pending.get(id) : undefined
        if (entry !== undefined) {
          pending.delete(entry.id)
          entry.resume(
            Exit.fail(new MessageTooLarge({ server, method: entry.method, bytes, limit: config.maxMessageBytes }))
          )
        }
        if (kind === "request" && id !== undefined) {
          stats.serverRequests++
          write(
            JsonRpc.errorFrame(
              id,
              -32600,
              `Request too large: at least ${bytes} bytes, over this client's ${config.maxMessageBytes}-byte limit`
            )
          )
        }
        diagnose(
          `discarded a ${bytes}-byte message over the ${config.maxMessageBytes}-byte limit: ${clip(head, 80)}`
        )
      },
      invalidUtf8: (text) => {
        stats.invalidUtf8++
        diagnose(`skipped a stdout line that is not valid UTF-8: ${clip(text)}`)
      }
    })

    const flushDiagnostics: Effect.Effect<void> = Effect.suspend(() => {
      if (quiet.length > 0) {
        const notes = quiet.splice(0)
        return Effect.andThen(
          Effect.forEach(notes, (line) => Effect.logDebug(line), { discard: true }),
          flushDiagnostics
        )
      }
      if (diagnostics.length === 0) return Effect.void
      const lines = diagnostics.splice(0)
      const dropped = diagnosticsDropped
      diagnosticsDropped = 0
      if (dropped > 0) lines.push(`… and ${dropped} more skipped messages`)
      return Effect.forEach(lines, (line) => Effect.logWarning(line), { discard: true })
    })

    // Notifications read from a batch of chunks are published together after it, through the PubSub's sliding
    // strategy: a slow subscriber loses its oldest notifications, never the reader its pace.
    const inbound: Array<ServerNotification> = []
    const publishInbound: Effect.Effect<void> = Effect.suspend(() => {
      if (inbound.length === 0) return Effect.void
      return Effect.asVoid(PubSub.publishAll(notifications, inbound.splice(0)))
    })

    const runReader: Effect.Effect<void> = Stream.runForEachArray(handle.stdout, (chunks) => {
      for (const chunk of chunks) framer.push(chunk)
      return Effect.andThen(publishInbound, flushDiagnostics)
    }).pipe(
      Effect.catch((error) => Effect.logDebug(`stdout failed: ${error.message}`)),
      Effect.andThen(Effect.sync(() => framer.end())),
      Effect.andThen(publishInbound),
      Effect.andThen(flushDiagnostics),
      // stdout ended: wait briefly for the exit status, so pending calls get the most useful error.
      Effect.andThen(Effect.raceFirst(Deferred.await(exitSignal), Effect.sleep(250))),
      // If the process exited, the exit watcher fails what is pending once stderr is drained too.
      Effect.andThen(Effect.sync(() => {
        if (exited === undefined) terminate(new ClientClosed({ server, reason: "the server closed its stdout" }), "end")
      }))
    )

    const runWriter: Effect.Effect<void> = Stream.fromPull(Effect.succeed(outbox.take)).pipe(
      Stream.run(handle.stdin),
      Effect.catch((error) =>
        Effect.logDebug(`stdin failed: ${error.message}`).pipe(
          // A dead child's stdin usually fails before its exit status is known: wait briefly for the exit, so
          // that the exit watcher fails what is pending with `ProcessExited` (code, signal, stderr).
          Effect.andThen(Effect.raceFirst(Deferred.await(exitSignal), Effect.sleep(250))),
          Effect.andThen(Effect.sync(() => {
            if (exited === undefined) {
              terminate(new ClientClosed({ server, reason: "writing to the server's stdin failed" }), "shut")
            }
          }))
        )
      )
    )

    const watchExit = (outputDrained: Effect.Effect<void>): Effect.Effect<void> =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(handle.exitCode)
        const info: ExitInfo = Exit.isSuccess(exit)
          ? { code: exit.value, signal: null }
          : { code: null, signal: signalOf(Cause.pretty(exit.cause)) }
        exited = info
        Deferred.doneUnsafe(exitSignal, Exit.succeed(info))
        // Let the reader deliver answers (and stderr its last lines) written just before the exit.
        yield* Effect.raceFirst(outputDrained, Effect.sleep(250))
        terminate(processExited(info), "shut")
      })

    return {
      request,
      notify,
      notifications,
      stats,
      pendingCount: () => pending.size,
      failure: () => failed,
      deadError,
      exitInfo: () => exited,
      isAlive: () => exited === undefined && failed === undefined,
      terminated,
      exited: exitSignal,
      close: (reason, input) => terminate(new ClientClosed({ server, reason }), input),
      runWriter,
      runReader,
      runDeadlines,
      watchExit
    }
  })

const signalOf = (text: string): string | null => {
  const match = /signal: '?(SIG[A-Z0-9]+)/.exec(text)
  return match === null ? null : match[1]!
}
