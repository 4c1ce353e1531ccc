/**
 * A `ChildProcessSpawner` for long-lived stdio servers on Node: the contract of `@effect/platform-node`'s spawner
 * (detached process group, group kill with `killSignal` then `SIGKILL` after `forceKillAfter`, the group
 * terminated when the scope closes, exit code or signal, `PlatformError`s with the same reasons), with fewer hops
 * per message:
 *
 * - stdout and stderr are read from the child's pipes in flowing mode, with no `PassThrough` in between and no
 *   `readable`/`read()` loop (see `internal/OutputStream.ts`);
 * - stdin is the same `NodeSink` over the child's pipe.
 *
 * It handles a plain command with piped stdio (what an MCP stdio server is); anything else — pipelines, extra
 * file descriptors, a `Stream` stdin or `Sink` outputs, inherited or ignored stdio, `shell`, `detached: false`,
 * Windows — is delegated to the platform spawner it is built over, so every `Command` still works.
 *
 * @since 0.1.0
 */
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
import * as PlatformError from "effect/PlatformError"
import type * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import * as NodeChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { accessError, platformError, unwrap } from "./internal/errors.ts"
import { fromOutput } from "./internal/OutputStream.ts"
import * as ProcessGroup from "./internal/ProcessGroup.ts"

/** Whether this spawner runs `command` itself (`true`) or hands it to the platform spawner. */
export const handles = (command: ChildProcess.Command): command is ChildProcess.StandardCommand => {
  if (command._tag !== "StandardCommand" || process.platform === "win32") return false
  const options = command.options
  return (options.shell === undefined || options.shell === false) &&
    options.detached !== false &&
    (options.additionalFds === undefined || Object.keys(options.additionalFds).length === 0) &&
    (options.stdin === undefined || options.stdin === "pipe") &&
    (options.stdout === undefined || options.stdout === "pipe") &&
    (options.stderr === undefined || options.stderr === "pipe")
}

// Node's own NUL check throws an error that includes the value: rejected here to keep `Redacted` values out of it.
const findNul = (command: ChildProcess.StandardCommand): string | undefined => {
  if (command.command.includes("\0")) return "The command contains a NUL character"
  const index = command.args.findIndex((arg) => unwrap(arg).includes("\0"))
  if (index !== -1) return `Argument ${index + 1} contains a NUL character`
  for (const [name, value] of Object.entries(command.options.env ?? {})) {
    if (value !== undefined && unwrap(value).includes("\0")) {
      return `The environment variable ${name} contains a NUL character`
    }
  }
  return undefined
}

const environment = (options: ChildProcess.CommandOptions): Record<string, string> | undefined => {
  if (options.env === undefined) return undefined
  const env: Record<string, string> = {}
  if (options.extendEnv === true) {
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
  }
  for (const [key, value] of Object.entries(options.env)) {
    if (value === undefined) delete env[key]
    else env[key] = unwrap(value)
  }
  return env
}

/** The working directory, checked to be accessible first (as the platform spawner does). */
const workingDirectory = (cwd: string | undefined): Effect.Effect<string | undefined, PlatformError.PlatformError> =>
  cwd === undefined ? Effect.succeed(undefined) : Effect.callback<string | undefined, PlatformError.PlatformError>(
    (resume) => {
      NodeFs.access(cwd, (error) =>
        resume(error === null ? Effect.succeed(NodePath.resolve(cwd)) : Effect.fail(accessError(error, cwd))))
    }
  )

const launch = (
  command: ChildProcess.StandardCommand,
  cwd: string | undefined
): Effect.Effect<
  readonly [NodeChildProcess.ChildProcess, Deferred.Deferred<ProcessGroup.ExitStatus>],
  PlatformError.PlatformError
> =>
  Effect.callback((resume) => {
    const exited = Deferred.makeUnsafe<ProcessGroup.ExitStatus>()
    const env = environment(command.options)
    const child = NodeChildProcess.spawn(command.command, command.args.map(unwrap), {
      ...(cwd !== undefined ? { cwd } : {}),
      ...(env !== undefined ? { env } : {}),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      windowsHide: command.options.windowsHide ?? false
    })
    child.on("error", (error) => resume(Effect.fail(platformError("spawn", error, command))))
    child.on("exit", (code, signal) => Deferred.doneUnsafe(exited, Exit.succeed([code, signal] as const)))
    child.on("spawn", () => resume(Effect.succeed([child, exited] as const)))
    return Effect.sync(() => {
      child.kill("SIGTERM")
    })
  })

const spawnStandard = (
  command: ChildProcess.StandardCommand
): Effect.Effect<ChildProcessSpawner.ChildProcessHandle, PlatformError.PlatformError, Scope.Scope> =>
  Effect.gen(function*() {
    const nul = findNul(command)
    if (nul !== undefined) {
      return yield* PlatformError.badArgument({ module: "ChildProcess", method: "spawn", description: nul })
    }
    const cwd = yield* workingDirectory(command.options.cwd)
    let referenced = true
    const [child, exited] = yield* Effect.acquireRelease(
      launch(command, cwd),
      ([child, exited]) =>
        Effect.suspend(() => {
          const terminate = Effect.ignore(ProcessGroup.terminate(command, child, exited, command.options))
          // The leader exited: its group is still terminated (a daemonised grandchild goes with it), unless it
          // exited cleanly after being unref'd.
          if (Deferred.isDoneUnsafe(exited)) {
            const code = child.exitCode
            return (code !== 0 && code !== null) || referenced ? terminate : Effect.void
          }
          return referenced ? terminate : Effect.void
        })
    )
    // A leader that failed takes its group with it at once, as with the platform spawner (best effort).
    child.on("exit", (code) => {
      if (code !== 0 && code !== null) ProcessGroup.signalQuietly(child, command.options.killSignal ?? "SIGTERM")
    })
    const stdinPipe = child.stdin!
    // Buffered writes can fail after the sink stopped listening: keep a listener until the pipe closes.
    const ignoreError = () => {}
    stdinPipe.on("error", ignoreError)
    stdinPipe.once("close", () => stdinPipe.off("error", ignoreError))
    const stdin = NodeSink.fromWritable<PlatformError.PlatformError, Uint8Array>({
      evaluate: () => stdinPipe,
      onError: (error) => platformError("fromWritable(stdin)", error, command)
    })
    const stdout = fromOutput(child.stdout!, (error) => platformError("fromReadable(stdout)", error, command))
    const stderr = fromOutput(child.stderr!, (error) => platformError("fromReadable(stderr)", error, command))
    const exitCode = Effect.flatMap(Deferred.await(exited), ([code, signal]) =>
      code !== null
        ? Effect.succeed(ChildProcessSpawner.ExitCode(code))
        : Effect.fail(
          platformError("exitCode", new Error(`Process interrupted due to receipt of signal: '${signal}'`), command)
        ))
    const reref = Effect.sync(() => {
      if (!referenced) {
        child.ref()
        referenced = true
      }
    })
    return ChildProcessSpawner.makeHandle({
      pid: ChildProcessSpawner.ProcessId(child.pid!),
      exitCode,
      isRunning: Effect.map(Deferred.isDone(exited), (done) => !done),
      kill: (options) => ProcessGroup.terminate(command, child, exited, options),
      stdin,
      stdout,
      stderr,
      all: Stream.merge(stdout, stderr),
      getInputFd: () => Sink.drain,
      getOutputFd: () => Stream.empty,
      unref: Effect.sync(() => {
        if (referenced) {
          child.unref()
          referenced = false
        }
        return reref
      })
    })
  })

/**
 * The spawner, over `fallback` for the commands it does not handle itself (see `handles`).
 *
 * @since 0.1.0
 */
export const make = (fallback: ChildProcessSpawner.ChildProcessSpawner["Service"]) =>
  ChildProcessSpawner.make((command) => handles(command) ? spawnStandard(command) : fallback.spawn(command))

/**
 * `ChildProcessSpawner` for stdio servers, over `@effect/platform-node`'s spawner for everything else.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<ChildProcessSpawner.ChildProcessSpawner, never, FileSystem.FileSystem | Path.Path> =
  Layer.effect(
    ChildProcessSpawner.ChildProcessSpawner,
    Effect.gen(function*() {
      return make(yield* ChildProcessSpawner.ChildProcessSpawner)
    })
  ).pipe(Layer.provide(NodeChildProcessSpawner.layer))

/**
 * `NodeServices.layer` with this spawner as its `ChildProcessSpawner`: what a Node program running MCP servers
 * provides.
 *
 * @since 0.1.0
 */
export const layerServices = Layer.provideMerge(layer, NodeServices.layer)
