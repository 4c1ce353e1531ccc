/**
 * One supervisor fiber per server, in a `FiberMap` keyed by name: it watches the process, marks a crash
 * offline, reconnects on the `reconnect` schedule (recognising crash loops), and watches again. Restart,
 * removal, replacement and drain stop a server's fiber through the map; fleet changes are serialised by one lock.
 *
 * @internal
 */
import type { McpError } from "@mcp-fleet/transport"
import { ErrorKind } from "@mcp-fleet/transport"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type { ServerConfig } from "../ManagerOptions.ts"
import * as Connection from "./Connection.ts"
import * as Discovery from "./Discovery.ts"
import * as Failure from "./Failure.ts"
import type { Conn } from "./Record.ts"

/** An `initialize` failure that the server itself answered: it will answer the same on the next start. */
const answered = (error: McpError.InitializeError) =>
  error._tag === "RemoteError" || error._tag === "UnsupportedProtocolVersion"

const launchKeys = [
  "command",
  "args",
  "env",
  "cwd",
  "inheritEnv",
  "url",
  "headers",
  "transport",
  "requestTimeout",
  "client"
] as const

/**
 * A comparable form of a config value: key order does not matter, secrets compare by their value, functions
 * (callbacks such as `onStderrLine`) and absent values are left out, and an empty record is no record.
 */
const canonical = (value: unknown): unknown => {
  if (Redacted.isRedacted(value)) return { redacted: Redacted.value(value) }
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== "function")
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, canonical(v)] as const)
      .filter(([, v]) => v !== undefined)
    return entries.length === 0 ? undefined : Object.fromEntries(entries)
  }
  return value
}
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a) ?? null) === JSON.stringify(canonical(b) ?? null)

/** Whether two configs start the same process (everything but `curated` and `disabled`). */
export const sameLaunch = (a: ServerConfig, b: ServerConfig): boolean => launchKeys.every((key) => same(a[key], b[key]))

/** Whether two configs are the same in every respect. */
export const sameConfig = (a: ServerConfig, b: ServerConfig): boolean => same(a, b)

/** @internal */
export interface Supervisor {
  /** Spawns the server now (registered before this returns) and supervises it in the background. */
  readonly start: (name: string) => Effect.Effect<void>
  readonly restart: (name: string) => Effect.Effect<void>
  readonly remove: (name: string) => Effect.Effect<void>
  /** Applies a new config: a new process (started before the old one is closed) only if launching changed. */
  readonly update: (name: string, config: ServerConfig) => Effect.Effect<void>
  /** Stops every supervisor and closes every process in parallel; `force` kills them (SIGKILL) first. */
  readonly drain: (mode: "graceful" | "force") => Effect.Effect<void>
  /** Serialises a fleet change with the others. */
  readonly locked: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** @internal */
export const make = Effect.fnUntraced(function*(env: Connection.Env) {
  const { ledger, options } = env
  const fibers = yield* FiberMap.make<string>()
  const lock = yield* Semaphore.make(1)
  const now = Clock.currentTimeMillis

  const close = (conn: Conn) => Scope.close(conn.scope, Exit.void)
  const gaveUp = (name: string, reason: string) =>
    Effect.andThen(
      Effect.sync(() => ledger.transition(name, { _tag: "GaveUp", reason })),
      Effect.logWarning(`MCP server reconnection stopped: ${reason}`)
    )

  /** What a dead process says about the next start: an answered `initialize` error, or an early loud exit. */
  const evidenceOf = Effect.fnUntraced(function*(conn: Conn, startedAt: number, beforeReady: boolean) {
    const ready = yield* Effect.result(conn.client.awaitReady)
    if (ready._tag === "Failure" && answered(ready.failure)) return Failure.initializeFailed(ready.failure.message)
    return beforeReady ? Failure.earlyExit(conn.client, (yield* now) - startedAt) : undefined
  })

  /**
   * Serves `conn` until its process ends, and returns the evidence its end gives for the crash-loop rule (none
   * if it got as far as a tool listing), or `stop` when it is no longer the server's process.
   */
  const watch = Effect.fnUntraced(function*(name: string, conn: Conn, startedAt: number, discoverFirst: boolean) {
    yield* Connection.serve(env, name, conn, discoverFirst)
    yield* conn.client.awaitTerminated
    if (!ledger.isCurrent(name, conn)) return "stop" as const
    // A session that ended because the server wants the user to authorize: wait for them, never reconnect.
    const ready = yield* Effect.result(conn.client.awaitReady)
    const unauthorized = ready._tag === "Failure" ? ErrorKind.userAction(ready.failure) : undefined
    if (unauthorized !== undefined || ledger.get(name)?.state._tag === "NeedsAuthorization") {
      if (unauthorized !== undefined) Connection.needsAuthorization(env, name, unauthorized)
      yield* close(conn)
      return "stop" as const
    }
    const evidence = yield* evidenceOf(conn, startedAt, ledger.get(name)!.state._tag === "Starting")
    ledger.exited(name, conn)
    yield* close(conn)
    return { evidence }
  })

  /** Reconnection attempts until one works (its connection, discovered) or the server gives up (`undefined`). */
  const reconnect = Effect.fnUntraced(function*(name: string, evidence: Failure.Signature | undefined) {
    const step = yield* Schedule.toStep(options.reconnect)
    let previous = evidence
    while (true) {
      const record = ledger.get(name)
      if (record === undefined || record.state._tag !== "Offline") return undefined
      const stepped = yield* Effect.exit(step(yield* now, record.state.lastError ?? ""))
      if (Exit.isFailure(stepped)) {
        yield* gaveUp(name, `gave up reconnecting after ${record.state.attempt} attempts`)
        return undefined
      }
      const delay = Duration.toMillis(stepped.value[1])
      ledger.transition(name, { _tag: "RetryScheduled", attempt: record.state.attempt + 1, at: (yield* now) + delay })
      yield* Effect.sleep(delay)
      const spawned = yield* Connection.spawn(
        env,
        name,
        record.config,
        (conn) => ledger.transition(name, { _tag: "Spawned", pid: conn.client.pid }, conn)
      )
      if (spawned._tag === "Refused") return undefined
      if (spawned._tag === "Failed") {
        ledger.transition(name, { _tag: "SpawnFailed", lastError: spawned.message })
        const signature = Failure.spawnFailed(spawned.message)
        if (previous?.key === signature.key) return yield* gaveUp(name, signature.reason)
        previous = signature
        continue
      }
      const { conn } = spawned
      const startedAt = yield* now
      // Discovery is awaited in place: this attempt worked if the server initialized and is alive.
      const outcome = yield* Discovery.discover(conn.client, options, false, () => Effect.void)
      if (!ledger.isCurrent(name, conn)) return undefined
      if (outcome._tag === "AuthorizationRequired") {
        Connection.apply(env, name, conn, outcome)
        yield* close(conn)
        return undefined
      }
      if (outcome._tag === "Gone" || outcome._tag === "NoAnswer") {
        const signature = outcome._tag === "NoAnswer" ? undefined : yield* evidenceOf(conn, startedAt, true)
        ledger.transition(name, {
          _tag: "Exited",
          lastError: outcome._tag === "NoAnswer" ? outcome.reason : Failure.describeExit(conn.client)
        })
        yield* close(conn)
        if (signature !== undefined && (signature.final === true || previous?.key === signature.key)) {
          return yield* gaveUp(name, signature.reason)
        }
        previous = signature
        continue
      }
      Connection.apply(env, name, conn, outcome)
      return { conn, startedAt, previous: outcome._tag === "InitializeFailed" ? previous : undefined }
    }
  })

  /**
   * Watch, reconnect, watch again… `previous` chains the evidence of consecutive failed starts: a start that
   * lists its tools breaks the chain; a second identical failure gives up.
   */
  const supervise = (name: string, first: Conn, startedAt: number): Effect.Effect<void> =>
    Effect.gen(function*() {
      let current = { conn: first, startedAt, previous: undefined as Failure.Signature | undefined }
      let discoverFirst = true
      while (true) {
        const ended = yield* watch(name, current.conn, current.startedAt, discoverFirst)
        if (ended === "stop") return
        const evidence = ended.evidence
        if (evidence !== undefined && (evidence.final === true || current.previous?.key === evidence.key)) {
          return yield* gaveUp(name, evidence.reason)
        }
        const back = yield* reconnect(name, evidence)
        if (back === undefined) return
        current = back
        discoverFirst = false
      }
    }).pipe(Effect.annotateLogs({ mcpServer: name }))

  /** Spawns with `register` and supervises; a command that cannot start gives up at once (no backoff). */
  const launch = Effect.fnUntraced(function*(
    name: string,
    config: ServerConfig,
    reset: () => boolean
  ) {
    const spawned = yield* Connection.spawn(
      env,
      name,
      config,
      (conn) => (reset() ? ledger.transition(name, { _tag: "Spawned", pid: conn.client.pid }, conn) : undefined)
    )
    if (spawned._tag === "Refused") return
    if (spawned._tag === "Failed") {
      // Missing binary or working directory: retrying on a backoff would only delay the answer.
      if (!reset()) return
      ledger.transition(name, { _tag: "SpawnFailed", lastError: spawned.message })
      ledger.transition(name, { _tag: "GaveUp", reason: "not retried: the command could not be started" })
      return
    }
    yield* FiberMap.run(fibers, name, supervise(name, spawned.conn, yield* now))
  })

  const start = (name: string) =>
    Effect.suspend(() => {
      const record = ledger.get(name)
      if (record === undefined || record.state._tag === "Disabled") return Effect.void
      return launch(name, record.config, () => true)
    })

  const restart = Effect.fnUntraced(function*(name: string) {
    const record = ledger.get(name)
    if (record === undefined || record.config.disabled === true || ledger.isClosed()) return
    yield* FiberMap.remove(fibers, name)
    // Detached first, so that calls made meanwhile fail fast and its close is never taken for a crash.
    const old = ledger.get(name)?.conn
    ledger.transition(name, { _tag: "Restarted" })
    if (old !== undefined) yield* close(old)
    yield* start(name)
  })

  const remove = Effect.fnUntraced(function*(name: string) {
    yield* FiberMap.remove(fibers, name)
    const old = ledger.get(name)?.conn
    ledger.transition(name, { _tag: "Removed" })
    if (old !== undefined) yield* close(old)
  })

  const update = Effect.fnUntraced(function*(name: string, config: ServerConfig) {
    const record = ledger.get(name)
    if (record === undefined || ledger.isClosed()) return
    const wasOn = record.config.disabled !== true
    const isOn = config.disabled !== true
    if (wasOn && isOn && sameLaunch(record.config, config)) {
      ledger.transition(name, { _tag: "Reconfigured" }, undefined, config)
      return
    }
    const old = record.conn
    if (!isOn) {
      yield* FiberMap.remove(fibers, name)
      ledger.transition(name, { _tag: wasOn ? "Disabled" : "Reconfigured" }, undefined, config)
    } else {
      // The new process starts before the old one is closed; the old one's calls finish or fail typed.
      yield* launch(
        name,
        config,
        () => ledger.transition(name, { _tag: wasOn ? "Restarted" : "Enabled" }, undefined, config) !== undefined
      )
    }
    if (old !== undefined) yield* close(old)
  })

  const drain = Effect.fnUntraced(function*(mode: "graceful" | "force") {
    const conns = ledger.names().flatMap((name) => ledger.get(name)?.conn ?? [])
    ledger.close()
    yield* FiberMap.clear(fibers)
    yield* Effect.forEach(
      conns,
      (conn) => Effect.andThen(mode === "force" ? conn.client.forceClose : Effect.void, close(conn)),
      { concurrency: "unbounded", discard: true }
    )
  })

  const supervisor: Supervisor = { start, restart, remove, update, drain, locked: lock.withPermit }
  return supervisor
})
