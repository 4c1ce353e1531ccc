/**
 * The ledger: every server's record, the one `transition` that moves a record (its state by
 * `ServerTransition.next`, and its process, generation and stderr with it), and the dispatch of what changed.
 *
 * A transition is synchronous and atomic (it runs no effect), so a plain read such as `health()` can apply one
 * when it notices a dead process, and `changes` reports it like any other. After a transition, events go to two
 * bounded sliding queues: one for the `onStateChange`/`onToolsChanged` listeners (one fiber, in order), one for
 * the `changes` hub. When a queue is full its oldest event is dropped; `snapshots` and `waitForReady` read the
 * records themselves and never lag by more than one change. At shutdown the events already queued are still
 * delivered (`flush`).
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ServerConfig, StateChange, ToolsChange } from "../ManagerOptions.ts"
import type { ServerHealth } from "../ServerHealth.ts"
import * as ServerState from "../ServerState.ts"
import * as ServerTransition from "../ServerTransition.ts"
import { describeExit } from "./Failure.ts"
import { fingerprint } from "./Fingerprint.ts"
import type * as Metrics from "./Metrics.ts"
import type { Resolved } from "./Options.ts"
import type { Conn, ServerRecord } from "./Record.ts"
import { toHealth } from "./Record.ts"

type Event = { readonly _tag: "State"; readonly change: StateChange } | {
  readonly _tag: "Tools"
  readonly change: ToolsChange
}

const emptyTools = fingerprint([])

/** @internal */
export interface Ledger {
  readonly get: (name: string) => ServerRecord | undefined
  readonly names: () => ReadonlyArray<string>
  /**
   * Moves one server by one event. `conn` is the process a `Spawned` event registers. Refused events (see
   * `ServerTransition.next`), unknown names and anything after `close` change nothing and return `undefined`.
   */
  readonly transition: (
    name: string,
    event: ServerTransition.Event,
    conn?: Conn,
    config?: ServerConfig
  ) => ServerRecord | undefined
  /**
   * Something `health()` shows of `name` changed outside its record (a list besides tools finished): wakes the
   * waiters and `snapshots` as a transition does, without one.
   */
  readonly touch: (name: string) => void
  /** Adds a server in its initial state; `false` if the name is taken. */
  readonly insert: (name: string, config: ServerConfig) => boolean
  /** `conn` is gone: if it is still the server's live process, the server goes offline (through `transition`). */
  readonly exited: (name: string, conn: Conn) => ServerRecord | undefined
  /** Whether `conn` is still the server's current process and the fleet is not closing. */
  readonly isCurrent: (name: string, conn: Conn) => boolean
  /** Ends the event queues and waits until every event queued so far has been dispatched. */
  readonly flush: Effect.Effect<void>
  /** Stops every further transition (the fleet is draining). */
  readonly close: () => void
  readonly isClosed: () => boolean
  readonly health: () => ReadonlyArray<ServerHealth>
  readonly healthOf: (record: ServerRecord) => ServerHealth
  /**
   * Waits for the next transition of any server, or with `name` for the next one of that server (or the fleet's
   * close): 100 `waitForReady`s on one fleet-wide latch were woken 100 times per transition.
   */
  readonly awaitChange: (name?: string) => Effect.Effect<void>
  readonly changes: Stream.Stream<StateChange>
  readonly snapshots: Stream.Stream<ReadonlyArray<ServerHealth>>
}

/** @internal */
export const make = Effect.fnUntraced(function*(
  options: Resolved,
  servers: ReadonlyArray<readonly [string, ServerConfig]>,
  metrics?: Metrics.Observer
): Effect.fn.Return<Ledger, never, Scope.Scope> {
  const clock = yield* Clock.Clock
  const now = () => clock.currentTimeMillisUnsafe()
  const records = new Map<string, ServerRecord>()
  let closed = false
  let version = 0
  let latch = Deferred.makeUnsafe<void>()
  /** One latch per server somebody waits on, made on the first wait and done (and dropped) on its next change. */
  const latches = new Map<string, Deferred.Deferred<void>>()
  const listenerQueue = yield* Queue.sliding<Event, Cause.Done>(options.eventCapacity)
  const changesQueue = yield* Queue.sliding<StateChange, Cause.Done>(options.eventCapacity)
  const hub = yield* PubSub.sliding<StateChange>(options.eventCapacity)

  const fresh = (name: string, config: ServerConfig): ServerRecord => ({
    name,
    config,
    state: ServerState.initial(config.disabled === true),
    conn: undefined,
    generation: 0,
    listed: undefined,
    stderrTail: [],
    since: now()
  })
  for (const [name, config] of servers) records.set(name, fresh(name, config))
  metrics?.count(records)

  const healthOf = (record: ServerRecord) => toHealth(record, options.maxAttempts, now())

  const release = (name: string) => {
    const own = latches.get(name)
    if (own === undefined) return
    latches.delete(name)
    Deferred.doneUnsafe(own, Exit.void)
  }

  /** A change of `name`, or of every server (`undefined`: the fleet closed). */
  const bump = (name: string | undefined) => {
    version++
    const done = latch
    latch = Deferred.makeUnsafe<void>()
    Deferred.doneUnsafe(done, Exit.void)
    if (name !== undefined) release(name)
    else for (const waited of [...latches.keys()]) release(waited)
  }

  const announce = (old: ServerRecord, record: ServerRecord, event: ServerTransition.Event) => {
    const from = ServerState.kindOf(old.state)
    const to = record.state._tag === "Removed" ? "removed" : ServerState.kindOf(record.state)
    if (from !== to) {
      const change: StateChange = { server: record.name, from, to, health: healthOf(to === "removed" ? old : record) }
      if (metrics !== undefined && (Queue.isFullUnsafe(listenerQueue) || Queue.isFullUnsafe(changesQueue))) {
        metrics.dropped()
      }
      Queue.offerUnsafe(listenerQueue, { _tag: "State", change })
      Queue.offerUnsafe(changesQueue, change)
    }
    const tools = event._tag === "Listed" ? event.tools : event._tag === "Removed" ? [] : undefined
    if (tools !== undefined && (old.listed ?? emptyTools) !== (record.listed ?? emptyTools)) {
      Queue.offerUnsafe(listenerQueue, { _tag: "Tools", change: { server: record.name, tools } })
    }
    bump(record.name)
  }

  const transition = (
    name: string,
    event: ServerTransition.Event,
    conn?: Conn,
    config?: ServerConfig
  ): ServerRecord | undefined => {
    const old = records.get(name)
    if (old === undefined || closed) return undefined
    const state = ServerTransition.next(old.state, event)
    if (state === undefined) return undefined
    const replaces = event._tag === "Spawned" || event._tag === "Restarted" || event._tag === "Removed" ||
      event._tag === "Disabled"
    const record: ServerRecord = {
      ...old,
      config: config ?? old.config,
      state,
      conn: replaces ? conn : old.conn,
      generation: replaces ? old.generation + 1 : old.generation,
      listed: event._tag === "Listed" ? fingerprint(event.tools) : event._tag === "Removed" ? undefined : old.listed,
      stderrTail: event._tag === "Spawned" ? [] : event._tag === "Exited" && old.conn !== undefined
        ? old.conn.client.stderrTail()
        : old.stderrTail,
      since: ServerState.kindOf(state) !== ServerState.kindOf(old.state) ? now() : old.since
    }
    if (state._tag === "Removed") records.delete(name)
    else records.set(name, record)
    metrics?.transition(old, record, event, records)
    announce(old, record, event)
    return record
  }

  const isCurrent = (name: string, conn: Conn) => !closed && records.get(name)?.conn === conn

  const exited = (name: string, conn: Conn) =>
    isCurrent(name, conn) && ServerState.isLive(records.get(name)!.state)
      ? transition(name, { _tag: "Exited", lastError: describeExit(conn.client) })
      : undefined

  /** A pure read, except that a process found dead goes offline through `transition` first. */
  const health = (): ReadonlyArray<ServerHealth> => {
    for (const record of [...records.values()]) {
      if (record.conn !== undefined && ServerState.isLive(record.state) && !record.conn.client.isAlive()) {
        exited(record.name, record.conn)
      }
    }
    return [...records.values()].map(healthOf)
  }

  const awaitChange = (name?: string) => {
    if (name === undefined) return Deferred.await(latch)
    let own = latches.get(name)
    if (own === undefined) {
      own = Deferred.makeUnsafe<void>()
      latches.set(name, own)
    }
    return Deferred.await(own)
  }

  const dispatch = (event: Event): Effect.Effect<void> => {
    const listener = event._tag === "State"
      ? options.onStateChange?.(event.change)
      : options.onToolsChanged?.(event.change)
    return listener === undefined
      ? Effect.void
      : listener.pipe(Effect.catchCause((cause) => Effect.logWarning("an MCP manager listener failed", cause)))
  }
  const pumps = yield* Effect.all([
    // One event at a time (never a batch), so that what waits is bounded by the queues' capacity.
    Queue.take(listenerQueue).pipe(Effect.flatMap(dispatch), Effect.forever, Effect.ignore, Effect.forkScoped),
    Queue.take(changesQueue).pipe(
      Effect.flatMap((c) => PubSub.publish(hub, c)),
      Effect.forever,
      Effect.ignore,
      Effect.forkScoped
    )
  ])
  const flush = Effect.andThen(
    Effect.sync(() => {
      Queue.endUnsafe(listenerQueue)
      Queue.endUnsafe(changesQueue)
    }),
    Effect.forEach(pumps, Fiber.await, { discard: true })
  )

  const snapshots = Stream.suspend(() => {
    let seen = -1
    return Stream.fromEffectRepeat(Effect.suspend(function loop(): Effect.Effect<ReadonlyArray<ServerHealth>> {
      if (seen !== version) {
        seen = version
        return Effect.sync(health)
      }
      return Effect.andThen(awaitChange(), Effect.suspend(loop))
    }))
  })

  const ledger: Ledger = {
    get: (name) => records.get(name),
    names: () => [...records.keys()],
    transition,
    touch: (name) => {
      if (!closed && records.has(name)) bump(name)
    },
    insert: (name, config) => {
      if (records.has(name) || closed) return false
      records.set(name, fresh(name, config))
      bump(name)
      return true
    },
    exited,
    isCurrent,
    close: () => {
      closed = true
      bump(undefined)
    },
    flush,
    isClosed: () => closed,
    health,
    healthOf,
    awaitChange,
    changes: Stream.fromPubSub(hub),
    snapshots
  }
  return ledger
})
