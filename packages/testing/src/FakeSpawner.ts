/**
 * An in-memory `ChildProcessSpawner`: "spawning" runs a scripted peer (an Effect) instead of a process.
 *
 * The peer sees every line the client writes to stdin (parsed as JSON), can write lines or raw bytes to
 * the client's stdout, text to its stderr, and can exit with a code or die by a signal. Time in the peer
 * is Effect time, so tests drive it with `TestClock`. Use it for unit tests of anything built on the
 * `ChildProcessSpawner` service (the transport, the manager) where a real process adds nothing.
 *
 * @example
 * ```ts
 * import { FakeSpawner } from "@mcp-fleet/testing"
 * import { Effect, Queue } from "effect"
 *
 * const layer = FakeSpawner.layer((peer) =>
 *   Effect.gen(function*() {
 *     const message = yield* Queue.take(peer.received)   // the client's first frame
 *     yield* peer.send({ jsonrpc: "2.0", id: 1, result: {} })
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Deferred, Effect, Exit, Layer, Option, PlatformError, Queue, Sink, Stream } from "effect"
import type { Cause, Scope } from "effect"
import type { ChildProcess } from "effect/process"
import { ChildProcessSpawner } from "effect/process"

/**
 * The scripted side of an in-memory child process.
 *
 * @since 0.1.0
 * @category models
 */
export interface Peer {
  /** The command the client asked to spawn. */
  readonly command: ChildProcess.StandardCommand
  /** The pid handed to the client. */
  readonly pid: number
  /**
   * Every line the client wrote to stdin, parsed as JSON (a line that is not JSON arrives as its string).
   * It ends (`Cause.Done`) when the client closes stdin or the process exits.
   */
  readonly received: Queue.Queue<unknown, Cause.Done>
  /** Writes one JSON message (plus newline) to the client's stdout. */
  readonly send: (message: unknown) => Effect.Effect<void>
  /** Writes text or bytes verbatim to the client's stdout. */
  readonly sendRaw: (data: string | Uint8Array) => Effect.Effect<void>
  /**
   * Completes once the client has handled everything written to its stdout so far: its reader has taken every
   * chunk and asked for more (or stdout has ended). A latch for "the client has read what I sent", in place of
   * polling its counters.
   */
  readonly read: Effect.Effect<void>
  /** Writes text to the client's stderr. */
  readonly stderr: (text: string) => Effect.Effect<void>
  /** Exits with a code: stdout and stderr end, `exitCode` succeeds. */
  readonly exit: (code: number) => Effect.Effect<void>
  /**
   * Exits with a code while stdout and stderr stay open, as when a grandchild inherited them (the `npx` wrapper
   * case): `exitCode` succeeds, the output streams end only when the client kills the process group.
   */
  readonly exitHoldingOutput: (code: number) => Effect.Effect<void>
  /** Completes when the client has closed stdin. */
  readonly stdinClosed: Deferred.Deferred<void>
  /** Completes with the signal when the client kills the process. */
  readonly killed: Deferred.Deferred<string>
}

/**
 * What a peer script decides when the client sends a kill signal: exit (the default) or ignore it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Signals the peer ignores (as a server that ignores SIGTERM). SIGKILL is never ignorable. */
  readonly ignoreSignals?: ReadonlyArray<string> | undefined
  /**
   * A process no signal ends, such as one stuck in the kernel (uninterruptible sleep): kills are recorded in
   * `killed` and change nothing; it exits only if its script says so. Tests of bounded shutdown use it.
   */
  readonly unkillable?: boolean | undefined
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * Builds an in-memory spawner. Each `spawn` runs `script(peer)` in a fiber of the spawn's scope; when the
 * script returns, the process keeps "running" until it exits or is killed.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  script: (peer: Peer) => Effect.Effect<void, never, Scope.Scope>,
  options: Options = {}
): ChildProcessSpawner.ChildProcessSpawner["Service"] => {
  let nextPid = 10_000
  const spawn = (command: ChildProcess.Command) =>
    Effect.gen(function*() {
      if (command._tag !== "StandardCommand") {
        return yield* Effect.fail(
          PlatformError.badArgument({ module: "FakeSpawner", method: "spawn", description: "pipelines are not faked" })
        )
      }
      const pid = nextPid++
      const stdout = yield* Queue.unbounded<Uint8Array, Cause.Done>()
      const stderr = yield* Queue.unbounded<Uint8Array, Cause.Done>()
      const received = yield* Queue.unbounded<unknown, Cause.Done>()
      const exitSignal = yield* Deferred.make<readonly [number | null, string | null]>()
      const stdinClosed = yield* Deferred.make<void>()
      const killed = yield* Deferred.make<string>()
      let partial = ""
      /** Chunks written to stdout, and chunks the client's reader has taken and handled (it asked for more). */
      let written = 0
      let taken = 0
      let handled = 0
      let stdoutDone = false
      const readers: Array<{ readonly upTo: number; readonly done: Deferred.Deferred<void> }> = []
      const wake = () => {
        for (let i = readers.length - 1; i >= 0; i--) {
          const reader = readers[i]!
          if (stdoutDone || handled >= reader.upTo) {
            readers.splice(i, 1)
            Deferred.doneUnsafe(reader.done, Exit.void)
          }
        }
      }
      const write = (bytes: Uint8Array) => {
        written++
        Queue.offerUnsafe(stdout, bytes)
      }
      /** The client's reader asks for more: what it took before has been handled. */
      const pullStdout = Effect.suspend(() => {
        handled = taken
        wake()
        return Queue.takeAll(stdout).pipe(
          Effect.tap((chunks) =>
            Effect.sync(() => {
              taken += chunks.length
            })
          ),
          Effect.onError(() =>
            Effect.sync(() => {
              stdoutDone = true
              wake()
            })
          )
        )
      })
      const read = Effect.suspend(() => {
        if (stdoutDone || handled >= written) return Effect.void
        const done = Deferred.makeUnsafe<void>()
        readers.push({ upTo: written, done })
        return Deferred.await(done)
      })

      const finish = (code: number | null, signal: string | null) =>
        Effect.sync(() => {
          if (Deferred.isDoneUnsafe(exitSignal)) return
          Deferred.doneUnsafe(exitSignal, Exit.succeed([code, signal] as const))
          Queue.endUnsafe(stdout)
          Queue.endUnsafe(stderr)
          Queue.endUnsafe(received)
        })

      const onInput = (chunk: Uint8Array) =>
        Effect.sync(() => {
          const text = partial + decoder.decode(chunk, { stream: true })
          const lines = text.split("\n")
          partial = lines.pop() ?? ""
          for (const line of lines) {
            if (line.length === 0) continue
            Queue.offerUnsafe(received, parseOrString(line))
          }
        })

      const stdin = Sink.forEach(onInput).pipe(
        Sink.mapEffect(() =>
          Effect.sync(() => {
            Queue.endUnsafe(received)
            Deferred.doneUnsafe(stdinClosed, Exit.void)
          })
        )
      )

      const peer: Peer = {
        command,
        pid,
        received,
        send: (message) => Effect.sync(() => write(encoder.encode(JSON.stringify(message) + "\n"))),
        sendRaw: (data) => Effect.sync(() => write(typeof data === "string" ? encoder.encode(data) : data)),
        read,
        stderr: (text) => Effect.sync(() => Queue.offerUnsafe(stderr, encoder.encode(text))),
        exit: (code) => finish(code, null),
        exitHoldingOutput: (code) =>
          Effect.sync(() => {
            if (Deferred.isDoneUnsafe(exitSignal)) return
            Deferred.doneUnsafe(exitSignal, Exit.succeed([code, null] as const))
            Queue.endUnsafe(received)
          }),
        stdinClosed,
        killed
      }

      const endOutput = () => {
        Queue.endUnsafe(stdout)
        Queue.endUnsafe(stderr)
      }

      const kill = (killOptions?: ChildProcess.KillOptions) =>
        Effect.gen(function*() {
          if (Deferred.isDoneUnsafe(exitSignal)) {
            // The group's other members (a grandchild holding the output) die with the signal.
            endOutput()
            return yield* Effect.fail(
              PlatformError.systemError({
                _tag: "NotFound",
                module: "FakeSpawner",
                method: "kill",
                description: "exited"
              })
            )
          }
          const signal = killOptions?.killSignal ?? "SIGTERM"
          yield* Deferred.succeed(killed, String(signal))
          if (options.unkillable === true) return
          const ignored = options.ignoreSignals?.includes(String(signal)) === true && signal !== "SIGKILL"
          if (!ignored) return yield* finish(null, String(signal))
          if (killOptions?.forceKillAfter !== undefined) {
            yield* Effect.sleep(killOptions.forceKillAfter)
            yield* finish(null, "SIGKILL")
          }
          yield* Effect.asVoid(Deferred.await(exitSignal))
        })

      const exitCode = Deferred.await(exitSignal).pipe(
        Effect.flatMap(([code, signal]) =>
          code !== null
            ? Effect.succeed(ChildProcessSpawner.ExitCode(code))
            : Effect.fail(
              PlatformError.systemError({
                _tag: "Unknown",
                module: "FakeSpawner",
                method: "exitCode",
                description: `Process interrupted due to receipt of signal: '${signal}'`
              })
            )
        )
      )

      yield* Effect.forkScoped(script(peer))
      yield* Effect.addFinalizer(() =>
        Deferred.isDoneUnsafe(exitSignal)
          ? Effect.sync(endOutput)
          : finish(null, String(command.options.killSignal ?? "SIGTERM"))
      )

      return ChildProcessSpawner.makeHandle({
        pid: ChildProcessSpawner.ProcessId(pid),
        exitCode,
        isRunning: Effect.sync(() => !Deferred.isDoneUnsafe(exitSignal)),
        kill,
        stdin,
        stdout: Stream.fromPull(Effect.succeed(pullStdout)),
        stderr: Stream.fromQueue(stderr),
        all: Stream.merge(Stream.fromQueue(stdout), Stream.fromQueue(stderr)),
        getInputFd: () => Sink.drain,
        getOutputFd: () => Stream.empty,
        unref: Effect.succeed(Effect.void)
      })
    })
  return ChildProcessSpawner.make(spawn)
}

/**
 * The in-memory spawner as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  script: (peer: Peer) => Effect.Effect<void, never, Scope.Scope>,
  options?: Options
): Layer.Layer<ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.succeed(ChildProcessSpawner.ChildProcessSpawner, make(script, options))

const parseOrString = (line: string): unknown => {
  const parsed = Option.liftThrowable(JSON.parse)(line)
  return Option.isSome(parsed) ? parsed.value : line
}
