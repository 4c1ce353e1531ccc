/**
 * One soak run: N fake servers under one `McpManager.layer`, `concurrency` workers calling them, a chaos fiber
 * killing and restarting them, for `durationMs` of active time.
 *
 * The run is cut into segments. After each one the soak *quiesces* (workers finish their call, chaos stops,
 * every server is waited back to its expected state) and takes a checkpoint: heap after forced GC, this run's
 * processes according to `ps`, server states. The first checkpoint (after a warm-up segment) is the heap
 * baseline; the last one is the end. Then the soak's own fibers and the manager's layer are closed, each within
 * a bound, and `ps` must show none of this run's processes.
 *
 * @since 0.0.0
 */
import type { ServerHealth } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import type { TestingError } from "@mcp-fleet/testing"
import {
  Clock,
  Console,
  Context,
  Effect,
  Exit,
  Fiber,
  FiberSet,
  Layer,
  Option,
  Random,
  Ref,
  Scope,
  Stream
} from "effect"
import type { ChildProcessSpawner } from "effect/process"
import * as Chaos from "./Chaos.ts"
import type { HeapSample } from "./Heap.ts"
import * as Heap from "./Heap.ts"
import * as ProcessScan from "./ProcessScan.ts"
import * as Reconnections from "./Reconnections.ts"
import type { Role, SoakServer } from "./SoakFleet.ts"
import * as SoakFleet from "./SoakFleet.ts"
import type { SoakOptions } from "./SoakOptions.ts"
import type { Tally } from "./Tally.ts"
import * as Tallies from "./Tally.ts"
import * as Workload from "./Workload.ts"

/**
 * What the soak saw at one quiet point.
 *
 * @since 0.0.0
 * @category models
 */
export interface Checkpoint {
  readonly label: string
  /** Active (calling) time so far, ms. */
  readonly activeMs: number
  readonly heap: HeapSample
  /** This run's fake-server processes alive according to `ps` (undefined if `ps` failed). */
  readonly processes: number | undefined
  /** Servers that have a process according to `health()`. */
  readonly serversWithPid: number
  /** Processes of this run that belong to no server's current pid (pid and mode tokens). */
  readonly strays: ReadonlyArray<string>
  /** Servers not in their expected state (`ready`; `degraded` for hanging ones) after the settle bound. */
  readonly notSettled: ReadonlyArray<string>
  /** Servers whose reconnection gave up. */
  readonly gaveUp: ReadonlyArray<string>
}

/**
 * How closing went: finished in `ms`, or still running after the bound.
 *
 * @since 0.0.0
 * @category models
 */
export type Closing = { readonly _tag: "Closed"; readonly ms: number } | {
  readonly _tag: "Hung"
  readonly boundMs: number
}

/**
 * Everything a run measured.
 *
 * @since 0.0.0
 * @category models
 */
export interface SoakResult {
  readonly options: SoakOptions
  readonly runId: string
  readonly fleet: ReadonlyArray<SoakServer>
  readonly warmupMs: number
  readonly activeMs: number
  readonly wallMs: number
  readonly tally: Tally
  readonly reconnections: Reconnections.Reconnections
  readonly checkpoints: ReadonlyArray<Checkpoint>
  /** Calls and restarts still running after the last checkpoint (unsettled ones that never ended). */
  readonly stragglers: number
  readonly closeWork: Closing
  readonly closeLayer: Closing
  readonly processesLeft: ReadonlyArray<TestingError.ProcessEntry>
  readonly scanErrors: ReadonlyArray<string>
}

/**
 * How long a checkpoint waits for every server to be back in its expected state.
 *
 * @since 0.0.0
 * @category constants
 */
export const settleBoundMs = 30_000

/**
 * How long closing the manager's layer may take (the transport's graceful close is bounded per server).
 *
 * @since 0.0.0
 * @category constants
 */
export const closeBoundMs = 60_000

const expected = (role: Role): ServerHealth.ServerHealth["state"] => (role === "hang" ? "degraded" : "ready")

/**
 * The warm-up: 10% of the run, at least 3 s and at most 30 s (never more than half the run).
 *
 * @since 0.0.0
 * @category phases
 */
export const warmupOf = (durationMs: number): number =>
  Math.min(Math.floor(durationMs / 2), Math.max(3_000, Math.min(30_000, Math.floor(durationMs / 10))))

/**
 * The measured segments after the warm-up: five when there are at least 25 s left, else one.
 *
 * @since 0.0.0
 * @category phases
 */
export const segmentsOf = (mainMs: number): ReadonlyArray<number> => {
  const count = mainMs >= 25_000 ? 5 : 1
  const base = Math.floor(mainMs / count)
  return Array.from({ length: count }, (_, i) => (i === count - 1 ? mainMs - base * (count - 1) : base))
}

/**
 * Closes a scope, but gives up waiting after `boundMs`. The close runs on a detached fiber on purpose: the
 * watcher must not end up joined to the very close it measures; a close that hangs is reported as `Hung`.
 */
const closeWithin = (scope: Scope.Closeable, boundMs: number): Effect.Effect<Closing> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.forkDetach(Scope.close(scope, Exit.void))
    const done = yield* Fiber.await(fiber).pipe(Effect.timeoutOption(boundMs))
    if (Option.isNone(done)) return { _tag: "Hung", boundMs } as const
    return { _tag: "Closed", ms: (yield* Clock.currentTimeMillis) - started } as const
  })

/**
 * Runs the soak and returns what it measured. Needs the `ChildProcessSpawner` (`NodeServices.layer`).
 *
 * @since 0.0.0
 * @category running
 */
export const run = (
  options: SoakOptions
): Effect.Effect<SoakResult, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.gen(function*() {
    const layerScope = yield* Scope.make()
    const work = yield* Scope.make()
    // Interrupted (Ctrl-C) or failed: still stop every fiber and shut every server down.
    return yield* runIn(options, layerScope, work).pipe(
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.void
          : Effect.andThen(Scope.close(work, Exit.void), Scope.close(layerScope, Exit.void))
      )
    )
  }).pipe(Random.withSeed(options.seed))

const runIn = (
  options: SoakOptions,
  layerScope: Scope.Closeable,
  work: Scope.Closeable
): Effect.Effect<SoakResult, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.gen(function*() {
    const wallStart = yield* Clock.currentTimeMillis
    const runId = `soak-${process.pid}-${wallStart}`
    const fleet = SoakFleet.servers(options.servers)
    const roleOf = new Map(fleet.map((s) => [s.name, s.role]))
    const tally = Tallies.make()
    const reconnections = Reconnections.make()
    const scanErrors: Array<string> = []

    const context = yield* Layer.buildWithScope(
      McpManager.layer(SoakFleet.managerOptions(fleet, runId)),
      layerScope
    )
    const manager = Context.get(context, McpManager.McpManager)
    yield* Effect.forkIn(Reconnections.track(manager, reconnections), work, { startImmediately: true })

    const stopped = yield* Ref.make(false)
    const inFlight = yield* FiberSet.make<Tallies.Outcome>().pipe(Scope.provide(work))
    const actions = yield* FiberSet.make<void>().pipe(Scope.provide(work))
    const restarting = yield* FiberSet.make<void>().pipe(Scope.provide(work))
    const workload: Workload.Workload = {
      manager,
      answering: fleet.filter((s) => s.role !== "hang").map((s) => s.name),
      hanging: fleet.filter((s) => s.role === "hang").map((s) => s.name),
      options,
      tally,
      inFlight,
      stopped
    }
    const chaos: Chaos.Chaos = {
      manager,
      servers: fleet.map((s) => s.name),
      tally,
      actions,
      restarting,
      stopped,
      restartShare: options.restartPercent / 100
    }

    const settledAsExpected = (healths: ReadonlyArray<ServerHealth.ServerHealth>) =>
      healths.every((h) => h.state === expected(roleOf.get(h.name) ?? "plain"))

    let activeMs = 0

    const segment = (ms: number) =>
      Effect.gen(function*() {
        yield* Ref.set(stopped, false)
        const workers = yield* Effect.forEach(
          Array.from({ length: options.concurrency }),
          () => Effect.forkIn(Workload.worker(workload), work)
        )
        const chaosFiber = yield* Effect.forkIn(Chaos.run(chaos), work)
        yield* Effect.sleep(ms)
        yield* Ref.set(stopped, true)
        // Every worker returns once its current call settled or was found unsettled: bounded by design.
        yield* Fiber.joinAll(workers)
        yield* Fiber.join(chaosFiber)
        yield* FiberSet.awaitEmpty(actions)
        activeMs += ms
      })

    const checkpoint = (label: string) =>
      Effect.gen(function*() {
        // A SIGKILL sent just before the stop is seen by the manager a moment later.
        yield* Effect.sleep("300 millis")
        yield* manager.snapshots.pipe(
          Stream.filter(settledAsExpected),
          Stream.runHead,
          Effect.timeoutOption(settleBoundMs)
        )
        const healths = manager.health()
        const heap = yield* Heap.sample
        const entries = yield* ProcessScan.scan(runId).pipe(
          Effect.catch((error) => Effect.sync(() => (scanErrors.push(error.message), undefined)))
        )
        const processes = entries?.length
        const pids = new Set(healths.map((h) => h.pid))
        const strays = (entries ?? []).filter((e) => !pids.has(e.pid)).map((e) => {
          const tokens = e.args.split(/\s+/).filter((w) => !w.includes("/") && !w.startsWith("run-id="))
          return `pid ${e.pid} (${tokens.length > 0 ? tokens.join(" ") : "plain"})`
        })
        const point: Checkpoint = {
          label,
          activeMs,
          heap,
          processes,
          serversWithPid: healths.filter((h) => h.pid !== undefined).length,
          strays,
          notSettled: healths.filter((h) => h.state !== expected(roleOf.get(h.name) ?? "plain")).map((h) =>
            `${h.name}: ${h.state}${h.lastError !== undefined ? ` (${h.lastError})` : ""}`
          ),
          gaveUp: healths.filter((h) => h.gaveUp).map((h) => h.name)
        }
        const totals = Tallies.totals(tally)
        yield* Console.error(
          `soak: ${label} at ${(activeMs / 1000).toFixed(0)} s: calls ${totals.calls}, ok ${totals.succeeded}, ` +
            `unsettled ${totals.unsettled}, kills ${tally.kills}, restarts ${tally.restarts}, ` +
            `reconnections ${reconnections.reconnected}, heap ${Heap.mib(heap.heapUsed)}, ` +
            `processes ${processes ?? "?"}/${point.serversWithPid}` +
            (point.notSettled.length > 0 ? `, not back: ${point.notSettled.join("; ")}` : "")
        )
        return point
      })

    const warmupMs = warmupOf(options.durationMs)
    yield* Console.error(
      `soak: ${options.servers} servers, ${
        (options.durationMs / 1000).toFixed(0)
      } s, concurrency ${options.concurrency}, ` +
        `seed ${options.seed}, run ${runId}`
    )
    // Every server up before the first call, so the warm-up does not start with a wall of ErrIndexBuilding.
    yield* manager.snapshots.pipe(
      Stream.filter(settledAsExpected),
      Stream.runHead,
      Effect.timeoutOption(settleBoundMs)
    )
    const checkpoints: Array<Checkpoint> = []
    yield* segment(warmupMs)
    checkpoints.push(yield* checkpoint("start"))
    const segments = segmentsOf(options.durationMs - warmupMs)
    for (const [i, ms] of segments.entries()) {
      yield* segment(ms)
      checkpoints.push(yield* checkpoint(i === segments.length - 1 ? "end" : `checkpoint ${i + 1}`))
    }

    const stragglers = (yield* FiberSet.size(inFlight)) + (yield* FiberSet.size(restarting))
    const closeWork = yield* closeWithin(work, 15_000)
    const closeLayer = yield* closeWithin(layerScope, closeBoundMs)
    const processesLeft = yield* ProcessScan.scan(runId).pipe(
      Effect.catch((error) => Effect.sync(() => (scanErrors.push(error.message), [])))
    )
    if (processesLeft.length > 0) yield* ProcessScan.killAll(processesLeft)
    return {
      options,
      runId,
      fleet,
      warmupMs,
      activeMs,
      wallMs: (yield* Clock.currentTimeMillis) - wallStart,
      tally,
      reconnections,
      checkpoints,
      stragglers,
      closeWork,
      closeLayer,
      processesLeft,
      scanErrors
    }
  })
