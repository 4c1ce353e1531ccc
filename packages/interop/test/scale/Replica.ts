/**
 * One gateway replica for the scale test: `mcp-fleet serve --http 127.0.0.1:<port> --redis … --session-key-file …`,
 * the real binary, in a process group of its own (its stdio servers with it), on a port that stays its own across
 * kills and restarts (haproxy's config names it).
 *
 * - `start` returns once the replica printed its `{"url": …}` line (it listens); `expect(pattern)` subscribes to its
 *   stderr at once and returns the wait for the next matching line (an event, as `Daemons` does).
 * - `kill` is a crash: `SIGKILL` to the whole group, then the exit is awaited. `start` runs it again on its port.
 * - The scope's end kills whatever is still running, the same way.
 */
import { Deferred, Effect, PubSub } from "effect"
import type { Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as Path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const cli = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "cli", "bin", "mcp-fleet.mjs")

/** What a replica runs with. */
export interface Options {
  readonly name: string
  readonly port: number
  readonly config: string
  readonly redis: string
  readonly keyFile: string
}

/** A replica that can be killed and started again. */
export interface Replica {
  readonly name: string
  readonly port: number
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string
  readonly start: Effect.Effect<void>
  readonly kill: Effect.Effect<void>
  readonly pid: () => number | undefined
  readonly expect: (pattern: RegExp) => Effect.Effect<Effect.Effect<string>, never, Scope.Scope>
  /** Every stderr line so far (for failure messages). */
  readonly stderr: () => ReadonlyArray<string>
}

/** Makes the replica (not started); its scope's end kills it. */
export const make = (options: Options): Effect.Effect<Replica, never, Scope.Scope> =>
  Effect.gen(function*() {
    const lines = yield* PubSub.unbounded<string>()
    const seen: Array<string> = []
    let child: ChildProcess | undefined
    let exited: Promise<void> = Promise.resolve()

    const kill = Effect.promise(async () => {
      const running = child
      if (running?.pid === undefined) return
      child = undefined
      try {
        process.kill(-running.pid, "SIGKILL")
      } catch {
        // Already gone.
      }
      await exited
    })
    yield* Effect.addFinalizer(() => kill)

    const start = Effect.gen(function*() {
      yield* kill
      const listening = yield* Deferred.make<void, string>()
      const spawned = spawn(
        process.execPath,
        [
          cli,
          "serve",
          "--config",
          options.config,
          "--http",
          `127.0.0.1:${options.port}`,
          "--redis",
          options.redis,
          "--session-key-file",
          options.keyFile
        ],
        { stdio: ["ignore", "pipe", "pipe"], detached: true }
      )
      child = spawned
      exited = new Promise((resolve) => spawned.once("exit", () => resolve()))
      createInterface({ input: spawned.stdout! }).on("line", (line) => {
        if (line.startsWith("{\"url\"")) Deferred.doneUnsafe(listening, Effect.void)
      })
      createInterface({ input: spawned.stderr! }).on("line", (line) => {
        seen.push(`${options.name}: ${line}`)
        PubSub.publishUnsafe(lines, line)
      })
      spawned.once("exit", (code, signal) =>
        Deferred.doneUnsafe(
          listening,
          Effect.fail(`${options.name} exited (${code ?? signal}) before it listened: ${seen.slice(-5).join(" | ")}`)
        ))
      yield* Deferred.await(listening).pipe(Effect.orDie)
    })

    return {
      name: options.name,
      port: options.port,
      origin: `http://127.0.0.1:${options.port}`,
      start,
      kill,
      pid: () => child?.pid,
      expect: (pattern) =>
        Effect.map(PubSub.subscribe(lines), (subscription) =>
          Effect.gen(function*() {
            while (true) {
              const line = yield* PubSub.take(subscription)
              if (pattern.test(line)) return line
            }
          })),
      stderr: () => seen
    }
  })
