/**
 * The stdio transport: an MCP server as a child process, one JSON-RPC message per line on its stdin and stdout.
 *
 * - **Writer:** every outbound message goes through one `Outbox`, drained by one fiber that takes whatever is
 *   queued as a single write. Messages are whole lines, so they can never interleave.
 * - **Reader:** one fiber splits stdout into lines over whole chunks (`LineFramer`, bounded by `maxMessageBytes`)
 *   and hands each to the session's receiver, synchronously. An oversize answer fails its request; an oversize
 *   server request is refused with `-32600`.
 * - **stderr:** kept in a bounded tail (secrets replaced), each line also handed to `onStderrLine`.
 * - **End:** the process's exit (after its last output is drained, briefly), stdout's end or a failed stdin ends
 *   the transport by itself (`ended`, carrying `ProcessExited` with code, signal and stderr tail). New requests are
 *   refused (`refusal`) from the moment the exit is known, before the drain.
 * - **Shutdown**, to the whole process group: `close` is stdin EOF → `shutdownGrace` → SIGTERM → `killGrace` →
 *   SIGKILL; `kill` is SIGKILL at once. With the `ProcessTree` service, the server's descendants are read from the
 *   process table before the first signal (EOF included), and those that left the group (`setsid`) get the same
 *   ladder beside it, within the same bound. The fibers run in the caller's scope, which joins them when it closes.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { BaseEnvironment } from "../BaseEnvironment.ts"
import * as JsonRpc from "../internal/JsonRpc.ts"
import type { Redactor } from "../internal/Redactor.ts"
import { ClientClosed, MessageTooLarge, ProcessExited, SpawnError } from "../McpError.ts"
import * as ChildEnvironment from "./Stdio/ChildEnvironment.ts"
import { LineFramer } from "./Stdio/LineFramer.ts"
import { Outbox } from "./Stdio/Outbox.ts"
import { StderrTail } from "./Stdio/StderrTail.ts"
import * as Stop from "./Stdio/Stop.ts"
import type { Ended, Receiver, Transport } from "./Transport.ts"

/**
 * What the stdio wire needs, every default applied (`McpClientOptions.resolve` gives them).
 *
 * @since 0.4.0
 * @category options
 */
export interface Options {
  /** The label of the server in errors and logs. */
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string | undefined
  readonly env: Readonly<Record<string, string | Redacted.Redacted<string>>>
  readonly inheritEnv: boolean
  readonly maxMessageBytes: number
  readonly stderrLines: number
  readonly onStderrLine: ((line: string) => Effect.Effect<void>) | undefined
  readonly shutdownGraceMs: number
  readonly killGraceMs: number
}

/**
 * How a server's process ended.
 *
 * @since 0.2.0
 * @category models
 */
export interface ExitInfo {
  readonly code: number | null
  readonly signal: string | null
}

/**
 * What the stdio transport counts on its own (the session counts the rest).
 *
 * @since 0.2.0
 * @category models
 */
export interface StdioStats {
  readonly oversize: number
  readonly invalidUtf8: number
  /** Oversize server requests refused with `-32600`. */
  readonly refusedRequests: number
  readonly stderrBytes: number
  readonly fibersDone: {
    readonly reader: boolean
    readonly writer: boolean
    readonly stderr: boolean
    readonly exit: boolean
  }
}

/**
 * A live stdio transport: the `Transport` plus what only a process has.
 *
 * @since 0.2.0
 * @category models
 */
export interface StdioTransport extends Transport {
  readonly kind: "stdio"
  readonly pid: number
  readonly stderrTail: () => ReadonlyArray<string>
  readonly exitInfo: () => ExitInfo | undefined
  /** Completes when the process has exited. */
  readonly awaitExit: Effect.Effect<ExitInfo>
  /**
   * Why no request can be sent any more, known before the transport has `ended` (the process has exited and its last
   * output is being drained); `undefined`: requests may be sent.
   */
  readonly refusal: () => ProcessExited | ClientClosed | undefined
  /** Ends the transport at once: SIGKILL to the process group. */
  readonly kill: Effect.Effect<void>
  /** Queues one request's text as it is (the pipe carries every message so: no `Frame` per call). */
  readonly write: (text: string) => void
  /** Log annotations of the session's lines about this process: its pid. */
  readonly annotations: Readonly<Record<string, unknown>>
  readonly counters: () => StdioStats
}

/** How long the end of stdout or a failed stdin waits for the exit status, so calls get the most useful error. */
const DRAIN_MS = 250

/**
 * Spawns the server in the current scope and starts the transport's fibers there. Closing the scope joins them
 * and releases the process (the spawner signals its group if anything is left).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  opts: Options,
  redactor: Redactor,
  receiver: Receiver
): Effect.Effect<StdioTransport, SpawnError, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.flatMap(spawn(opts), (handle) => attach(handle, opts, redactor, receiver))

/**
 * Spawns the server in the current scope, in its own process group; closing the scope releases it (the spawner
 * signals the group if anything is left). `attach` then starts the transport over it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const spawn: (
  opts: Options
) => Effect.Effect<
  ChildProcessSpawner.ChildProcessHandle,
  SpawnError,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner
> = Effect.fnUntraced(function*(opts: Options) {
  const base = yield* BaseEnvironment
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  return yield* spawner.spawn(ChildProcess.make(opts.command, opts.args, {
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    env: ChildEnvironment.merge(base, opts.env),
    extendEnv: opts.inheritEnv,
    killSignal: "SIGTERM",
    forceKillAfter: opts.killGraceMs
  })).pipe(Effect.mapError((error) => spawnError(opts, error)))
})

/**
 * Starts the transport over a spawned server: its fibers run in the current scope, which joins them when it
 * closes.
 *
 * @since 0.2.0
 * @category constructors
 */
export const attach: (
  handle: ChildProcessSpawner.ChildProcessHandle,
  opts: Options,
  redactor: Redactor,
  receiver: Receiver
) => Effect.Effect<StdioTransport, never, Scope.Scope> = Effect.fnUntraced(function*(
  handle: ChildProcessSpawner.ChildProcessHandle,
  opts: Options,
  redactor: Redactor,
  receiver: Receiver
) {
  const server = opts.name
  const stderr = new StderrTail(opts.stderrLines, 512, redactor)
  const outbox = new Outbox()
  const exitSignal = Deferred.makeUnsafe<ExitInfo>()
  const ended = Deferred.makeUnsafe<Ended>()
  let exited: ExitInfo | undefined
  let endedWith: ProcessExited | ClientClosed | undefined
  let oversize = 0
  let invalidUtf8 = 0
  let refusedRequests = 0
  let stdoutEnded = false
  let stderrEnded = false

  const processExited = (info: ExitInfo) =>
    new ProcessExited({ server, code: info.code, signal: info.signal, stderrTail: stderr.snapshot() })

  /** The transport ended by itself; `input` says what becomes of what is still queued for stdin. */
  const end = (error: ProcessExited | ClientClosed, input: "end" | "shut") => {
    if (endedWith !== undefined) return
    endedWith = error
    if (input === "end") outbox.end()
    else outbox.shutdown()
    const why: Ended = { reason: error.message, error }
    receiver.ended(why)
    Deferred.doneUnsafe(ended, Exit.succeed(why))
  }

  const framer = new LineFramer(opts.maxMessageBytes, {
    line: receiver.message,
    oversize: (bytes, head, tail) => {
      oversize++
      const { id, kind } = JsonRpc.sniffOversize(head, tail)
      // Only a response settles a call: a server request's id is the server's own, whatever it equals.
      if (kind === "response" && typeof id === "number") {
        const method = receiver.pendingMethod(id)
        if (method !== undefined) {
          receiver.failRequest(id, new MessageTooLarge({ server, method, bytes, limit: opts.maxMessageBytes }))
        }
      }
      if (kind === "request" && id !== undefined) {
        refusedRequests++
        outbox.offer(JsonRpc.errorFrame(
          id,
          -32600,
          `Request too large: at least ${bytes} bytes, over this client's ${opts.maxMessageBytes}-byte limit`
        ))
      }
      receiver.diagnose(
        `discarded a ${bytes}-byte message over the ${opts.maxMessageBytes}-byte limit: ${
          // The head is the line's first bytes: its end is a cut too.
          redactor.excerpt(redactor.fragment(head, { end: true }), 80)}`
      )
    },
    invalidUtf8: (text) => {
      invalidUtf8++
      receiver.diagnose(`skipped a stdout line that is not valid UTF-8: ${redactor.excerpt(text)}`)
    }
  })

  const waitForExit = Effect.raceFirst(Deferred.await(exitSignal), Effect.sleep(DRAIN_MS))
  const annotate = Effect.annotateLogs({ mcpServer: server, pid: handle.pid })

  const reader = yield* Stream.runForEachArray(handle.stdout, (chunks) => {
    for (const chunk of chunks) framer.push(chunk)
    return Effect.void
  }).pipe(
    Effect.catch((error) => Effect.logDebug(`stdout failed: ${error.message}`)),
    Effect.andThen(Effect.sync(() => {
      stdoutEnded = true
      framer.end()
    })),
    // stdout ended: wait briefly for the exit status; if the process exited, the exit watcher ends the transport.
    Effect.andThen(waitForExit),
    Effect.andThen(Effect.sync(() => {
      if (exited === undefined) end(new ClientClosed({ server, reason: "the server closed its stdout" }), "end")
    })),
    annotate,
    Effect.forkScoped
  )

  const writer = yield* Stream.fromPull(Effect.succeed(outbox.take)).pipe(
    Stream.run(handle.stdin),
    Effect.catch((error) =>
      Effect.logDebug(`stdin failed: ${error.message}`).pipe(
        // A dead child's stdin usually fails before its exit status is known: wait briefly for the exit, so that
        // calls fail with `ProcessExited` (code, signal, stderr).
        Effect.andThen(waitForExit),
        Effect.andThen(Effect.sync(() => {
          if (exited === undefined) {
            end(new ClientClosed({ server, reason: "writing to the server's stdin failed" }), "shut")
          }
        }))
      )
    ),
    annotate,
    Effect.forkScoped
  )

  const onStderrLine = opts.onStderrLine
  const stderrFiber = yield* Stream.runForEachArray(handle.stderr, (chunks) => {
    const lines = chunks.flatMap((chunk) => stderr.push(chunk))
    return onStderrLine === undefined || lines.length === 0
      ? Effect.void
      : Effect.forEach(lines, onStderrLine, { discard: true })
  }).pipe(
    Effect.ignore,
    Effect.andThen(Effect.sync(() => {
      stderrEnded = true
    })),
    annotate,
    Effect.forkScoped
  )

  const exitFiber = yield* Effect.exit(handle.exitCode).pipe(
    Effect.flatMap((exit) => {
      const info: ExitInfo = Exit.isSuccess(exit)
        ? { code: exit.value, signal: null }
        : { code: null, signal: signalOf(Cause.pretty(exit.cause)) }
      exited = info
      Deferred.doneUnsafe(exitSignal, Exit.succeed(info))
      // Let the reader deliver answers (and stderr its last lines) written just before the exit: usually both
      // pipes have closed before the exit is seen, and there is nothing to wait for.
      const drain = stdoutEnded && stderrEnded ? Effect.void : Effect.raceFirst(
        Effect.asVoid(Effect.all([Fiber.await(reader), Fiber.await(stderrFiber)])),
        Effect.sleep(DRAIN_MS)
      )
      return Effect.andThen(drain, Effect.sync(() => end(processExited(info), "shut")))
    }),
    annotate,
    Effect.forkScoped
  )

  const stop = yield* Stop.make({
    handle,
    shutdownGraceMs: opts.shutdownGraceMs,
    killGraceMs: opts.killGraceMs,
    exit: Deferred.await(exitSignal),
    watcher: exitFiber,
    settled: () => exited !== undefined && stdoutEnded && stderrEnded,
    endInput: () => outbox.end(),
    annotate
  })

  return {
    kind: "stdio",
    pid: handle.pid,
    send: (frame) => outbox.offer(frame.text),
    write: (text) => outbox.offer(text),
    abandon: () => {},
    established: () => {},
    initialized: (frame) => Effect.sync(() => outbox.offer(frame.text)),
    ended: Deferred.await(ended),
    annotations: { pid: handle.pid },
    close: stop.close,
    kill: stop.kill,
    refusal: () => endedWith ?? (exited === undefined ? undefined : processExited(exited)),
    stderrTail: () => stderr.snapshot(),
    exitInfo: () => exited,
    awaitExit: Deferred.await(exitSignal),
    counters: () => ({
      oversize,
      invalidUtf8,
      refusedRequests,
      stderrBytes: stderr.bytes,
      fibersDone: {
        reader: reader.pollUnsafe() !== undefined,
        writer: writer.pollUnsafe() !== undefined,
        stderr: stderrFiber.pollUnsafe() !== undefined,
        exit: exitFiber.pollUnsafe() !== undefined
      }
    })
  } satisfies StdioTransport
})

const spawnError = (opts: Options, error: PlatformError.PlatformError) =>
  new SpawnError({
    server: opts.name,
    command: opts.command,
    reason: error.reason._tag === "BadArgument"
      ? error.reason.description ?? "bad argument"
      : error.reason.method === "access"
      ? `its working directory ${JSON.stringify(opts.cwd)} is not accessible (${error.reason._tag})`
      : `${error.reason._tag}${error.reason.description ? `: ${error.reason.description}` : ""}`
  })

const signalOf = (text: string): string | null => {
  const match = /signal: '?(SIG[A-Z0-9]+)/.exec(text)
  return match === null ? null : match[1]!
}
