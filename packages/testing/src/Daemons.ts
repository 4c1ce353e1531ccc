/**
 * Real infrastructure for tests: `redis-server` and `haproxy` from the system's packages (Debian:
 * `apt-get install -y redis-server haproxy`; `.ci/run` installs them when missing), started on 127.0.0.1 on a free
 * port, in the test's scope, and stopped by pid (the process group, `SIGKILL`) when the scope closes.
 *
 * - **Ready is an event**: redis-server's `Ready to accept connections`, haproxy's `Loading success.` (master-worker
 *   mode); no polling of the port.
 * - **Output lines are events too**: `expect(pattern)` subscribes at once and returns the wait for the next line
 *   that matches, so a test subscribes, acts, then waits (haproxy's `Server be/r2 is DOWN`, redis's log).
 * - **Kill and start again**: `kill` sends `SIGKILL` to the process group and waits until it is reaped; `start`
 *   starts it again on the same port (and, for Redis, the same data directory: with `persistence` its AOF brings
 *   the data back).
 * - **Reaped like every process**: each command line carries {@link marker} and the run's `run-id=<id>`, so the
 *   leak guard (`LeakGuard.check`, run when the test run ends) finds and kills one a test left behind.
 *
 * @since 0.3.0
 */
import { Deferred, Effect, Exit, PubSub, Ref, Scope, Stream } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runIdEnvVar } from "./FakeServer.ts"
import { DaemonFailed } from "./TestingError.ts"

/**
 * The word every daemon's command line carries (with `run-id=<id>`), for the leak guard.
 *
 * @since 0.3.0
 * @category constants
 */
export const marker = "mcp-fleet-test-daemon"

/**
 * One running daemon.
 *
 * @since 0.3.0
 * @category models
 */
export interface Daemon {
  readonly name: "redis-server" | "haproxy"
  readonly host: "127.0.0.1"
  readonly port: number
  /** `redis://127.0.0.1:<port>` or `http://127.0.0.1:<port>`. */
  readonly url: string
  /** The pid of the running process; `undefined` after `kill`. */
  readonly pid: Effect.Effect<number | undefined>
  /** `SIGKILL` to the process group; returns once the process is reaped. Nothing when it is not running. */
  readonly kill: Effect.Effect<void>
  /** Starts it again on the same port after `kill`; returns once it is ready. */
  readonly start: Effect.Effect<void, DaemonFailed>
  /** Subscribes now to the daemon's output; the returned effect waits for the next line matching `pattern`. */
  readonly expect: (pattern: RegExp) => Effect.Effect<Effect.Effect<string>, never, Scope.Scope>
}

/**
 * A port no one listens on now (the kernel's pick for a listener on port 0, closed at once).
 *
 * @since 0.3.0
 * @category ports
 */
export const freePort: Effect.Effect<number> = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const runToken = (): string => {
  const runId = process.env[runIdEnvVar]
  return `run-id=${runId === undefined || runId === "" ? "none" : runId}`
}

interface Spec {
  readonly name: Daemon["name"]
  readonly command: string
  readonly args: (port: number) => ReadonlyArray<string>
  readonly env?: (port: number) => Record<string, string>
  readonly ready: RegExp
  /** A line that means the port was taken (another port is tried). */
  readonly portTaken: RegExp
  readonly scheme: "redis" | "http"
}

/** Starts one process of `spec` on `port`, in its own scope; resolves when it is ready, or fails with its output. */
const launch = (
  spec: Spec,
  port: number,
  lines: PubSub.PubSub<string>,
  exited: Ref.Ref<Deferred.Deferred<void>>
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const started = yield* Effect.gen(function*() {
      const handle = yield* ChildProcess.make(spec.command, spec.args(port), {
        env: spec.env?.(port) ?? {},
        extendEnv: true,
        stdin: "ignore",
        killSignal: "SIGKILL",
        forceKillAfter: "5 seconds"
      })
      const ready = yield* Deferred.make<void, string>()
      const seen: Array<string> = []
      const done = yield* Deferred.make<void>()
      yield* Ref.set(exited, done)
      yield* handle.all.pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.runForEach((line) =>
          Effect.gen(function*() {
            if (seen.length < 40) seen.push(line)
            if (spec.ready.test(line)) yield* Deferred.succeed(ready, undefined)
            if (spec.portTaken.test(line)) yield* Deferred.fail(ready, "port taken")
            yield* PubSub.publish(lines, line)
          })
        ),
        Effect.ignore,
        Effect.andThen(handle.exitCode.pipe(Effect.ignore)),
        Effect.andThen(Deferred.fail(ready, `it exited before it was ready: ${seen.slice(-8).join(" | ")}`)),
        Effect.ensuring(Deferred.succeed(done, undefined)),
        Effect.forkScoped
      )
      const outcome = yield* Effect.exit(Deferred.await(ready))
      if (Exit.isFailure(outcome)) {
        const reason = outcome.cause.reasons[0]
        return { _tag: "Failed", reason: reason?._tag === "Fail" ? reason.error : "it failed" } as const
      }
      return { _tag: "Ready", pid: Number(handle.pid), kill: handle.kill({ killSignal: "SIGKILL" }) } as const
    }).pipe(
      Scope.provide(scope),
      Effect.catchTag("PlatformError", (error) =>
        Effect.succeed({ _tag: "Failed", reason: `it could not be spawned: ${error.message}` } as const))
    )
    if (started._tag === "Failed") {
      yield* Scope.close(scope, Exit.void)
      return started
    }
    return { ...started, scope }
  })

const make = (spec: Spec) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()
    const lines = yield* PubSub.unbounded<string>()
    const exited = yield* Ref.make(yield* Deferred.make<void>())
    const current = yield* Ref.make<{ readonly pid: number; readonly scope: Scope.Closeable } | undefined>(undefined)
    const kill = Effect.gen(function*() {
      const running = yield* Ref.getAndSet(current, undefined)
      if (running === undefined) return
      const done = yield* Ref.get(exited)
      // By pid: the whole group (haproxy's master and worker), then wait for the reaper.
      yield* Effect.ignore(Effect.try(() => process.kill(-running.pid, "SIGKILL")))
      yield* Deferred.await(done)
      yield* Scope.close(running.scope, Exit.void)
    })
    yield* Effect.addFinalizer(() => kill)

    const startOn = (port: number) =>
      Effect.gen(function*() {
        const launched = yield* launch(spec, port, lines, exited)
        if (launched._tag === "Failed") return launched
        yield* Ref.set(current, { pid: launched.pid, scope: launched.scope })
        return launched
      })

    // A free port, tried again (at most 5 times) when another process took it in between.
    let port = 0
    let failure = ""
    for (let attempt = 0; attempt < 5; attempt++) {
      port = yield* freePort
      const launched = yield* startOn(port)
      if (launched._tag === "Ready") {
        failure = ""
        break
      }
      failure = launched.reason
      if (failure !== "port taken") break
    }
    if (failure !== "") return yield* new DaemonFailed({ daemon: spec.name, reason: failure })

    const daemon: Daemon = {
      name: spec.name,
      host: "127.0.0.1",
      port,
      url: `${spec.scheme}://127.0.0.1:${port}`,
      pid: Effect.map(Ref.get(current), (running) => running?.pid),
      kill,
      start: Effect.gen(function*() {
        yield* kill
        const launched = yield* startOn(port)
        if (launched._tag === "Failed") {
          return yield* new DaemonFailed({ daemon: spec.name, reason: `again on port ${port}: ${launched.reason}` })
        }
      }).pipe(Effect.provide(context)),
      expect: (pattern) =>
        Effect.map(PubSub.subscribe(lines), (subscription) =>
          Effect.gen(function*() {
            while (true) {
              const line = yield* PubSub.take(subscription)
              if (pattern.test(line)) return line
            }
          }))
    }
    return daemon
  })

const which = (binary: string, paths: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const found = yield* spawner.string(ChildProcess.make("sh", ["-c", `command -v ${binary}`])).pipe(
      Effect.map((out) => out.trim()),
      Effect.orElseSucceed(() => "")
    )
    if (found !== "") return found
    for (const path of paths) {
      const exists = yield* spawner.exitCode(ChildProcess.make("test", ["-x", path])).pipe(
        Effect.map((code) => code === 0),
        Effect.orElseSucceed(() => false)
      )
      if (exists) return path
    }
    return yield* new DaemonFailed({
      daemon: binary,
      reason: "it is not installed (Debian: apt-get install -y redis-server haproxy; .ci/run installs both)"
    })
  })

/**
 * The options of {@link redis}.
 *
 * @since 0.3.0
 * @category options
 */
export interface RedisOptions {
  /** Keep the data across `kill` and `start` (AOF, fsync on every write). Default false: nothing on disk. */
  readonly persistence?: boolean | undefined
}

/**
 * A `redis-server` on 127.0.0.1 on a free port, in the scope; `url` is `redis://127.0.0.1:<port>`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const redis = (
  options: RedisOptions = {}
): Effect.Effect<Daemon, DaemonFailed, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope> =>
  Effect.gen(function*() {
    const binary = yield* which("redis-server", ["/usr/bin/redis-server", "/usr/sbin/redis-server"])
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), `${marker}-redis-`))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const token = runToken()
    return yield* make({
      name: "redis-server",
      command: binary,
      args: (port) => [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--daemonize",
        "no",
        "--save",
        "",
        "--appendonly",
        options.persistence === true ? "yes" : "no",
        "--appendfsync",
        "always",
        "--dir",
        dir,
        "--logfile",
        "",
        "--proc-title-template",
        `{title} {listen-addr} ${marker} ${token}`
      ],
      ready: /Ready to accept connections/,
      portTaken: /Address already in use/,
      scheme: "redis"
    })
  })

/**
 * The options of {@link haproxy}.
 *
 * @since 0.3.0
 * @category options
 */
export interface HaproxyOptions {
  /** The configuration file. */
  readonly config: string
  /** Its environment (the file's `"${NAME}"` values); `port` gives the port chosen for the frontend. */
  readonly env: (port: number) => Record<string, string>
}

/**
 * An `haproxy` in master-worker mode with `options.config`, its frontend on 127.0.0.1 on a free port (the config
 * binds the address `env(port)` names); its log is its output (`log stdout` in the config).
 *
 * @since 0.3.0
 * @category constructors
 */
export const haproxy = (
  options: HaproxyOptions
): Effect.Effect<Daemon, DaemonFailed, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope> =>
  Effect.gen(function*() {
    const binary = yield* which("haproxy", ["/usr/sbin/haproxy", "/usr/bin/haproxy"])
    const token = runToken()
    return yield* make({
      name: "haproxy",
      command: binary,
      // `-W` master-worker: the master says "Loading success." once the worker is up; `-db`: in the foreground.
      // `-L` (the local peer name, unused without peers) carries the leak guard's words.
      args: () => ["-W", "-db", "-f", options.config, "-L", `${marker}/${token}`],
      env: options.env,
      ready: /Loading success\./,
      portTaken: /cannot bind socket|Address already in use/,
      scheme: "http"
    })
  })
