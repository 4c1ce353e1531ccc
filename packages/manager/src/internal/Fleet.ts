/**
 * The manager's machinery: one ledger of server health (a `SubscriptionRef`), one slot of runtime state per
 * server (its current client and that client's scope), supervision fibers, and a dispatcher that tells
 * listeners about transitions after they happened.
 *
 * Per client, in the client's own scope: a crash watcher (process gone → offline → reconnection), a
 * notification reader (list_changed → a one-slot refresh signal: bursts coalesce), and one lister fiber
 * that runs discovery and then every refresh, so a client is never listed twice at once.
 *
 * Reconnection runs in a `FiberMap` keyed `mcp/reconnect-<name>`, owned by the manager's scope.
 *
 * @internal
 */
import { McpClient } from "@mcp-fleet/transport"
import type { McpError, Tool } from "@mcp-fleet/transport"
import { Clock, Effect, Exit, Fiber, FiberMap, Option, PubSub, Queue, Scope, Stream, SubscriptionRef } from "effect"
import type { Result } from "effect"
import type { ChildProcessSpawner } from "effect/process"
import { ServerNotReady, ServerUnavailable, UnknownServer } from "../ManagerError.ts"
import type { ManagerOptions, ServerConfig, StateChange, ToolsChange } from "../ManagerOptions.ts"
import * as Options from "../ManagerOptions.ts"
import type { Service } from "../McpManager.ts"
import type { ServerHealth } from "../ServerHealth.ts"
import * as ServerState from "../ServerState.ts"
import { renderStatusLines as renderStatus } from "../StatusText.ts"
import { fingerprint } from "./Fingerprint.ts"

type Ledger = ReadonlyMap<string, ServerHealth>

type Event = { readonly _tag: "State"; readonly change: StateChange } | {
  readonly _tag: "Tools"
  readonly change: ToolsChange
}

interface Slot {
  readonly name: string
  readonly config: ServerConfig
  client: McpClient.McpClient | undefined
  scope: Scope.Closeable | undefined
  generation: number
}

/** What discovery concluded. */
type Outcome = "ready" | "degraded" | "gone"

const describeExit = (client: McpClient.McpClient): string => {
  const exit = Option.getOrUndefined(client.exitInfo())
  const tail = client.stderrTail()
  const last = tail.length > 0 ? ` Last stderr line: ${JSON.stringify(tail[tail.length - 1])}.` : ""
  if (exit === undefined) return `The server's connection closed.${last}`
  return exit.signal !== null
    ? `The process was killed by ${exit.signal}.${last}`
    : `The process exited with code ${exit.code}.${last}`
}

/** Builds the fleet in the current scope: spawns every enabled server before returning. */
export const make = (
  input: ManagerOptions
): Effect.Effect<Service, never, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.gen(function*() {
    const options = Options.resolve(input)
    const scope = yield* Scope.Scope
    const clock = yield* Clock.Clock
    const context = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()
    const now = () => clock.currentTimeMillisUnsafe()
    const maxAttempts = options.reconnect.maxAttempts
    let shuttingDown = false

    const initial = new Map<string, ServerHealth>()
    const slots = new Map<string, Slot>()
    for (const [name, config] of options.servers) {
      slots.set(name, { name, config, client: undefined, scope: undefined, generation: 0 })
      initial.set(name, {
        name,
        state: config.disabled === true ? "disabled" : "starting",
        tools: [],
        curated: config.curated ?? [],
        curatedCount: 0,
        curatedMissing: [],
        instructions: undefined,
        lastError: undefined,
        attempt: 0,
        maxAttempts,
        gaveUp: false,
        listChangedPending: false,
        pid: undefined,
        stderrTail: [],
        since: now()
      })
    }
    const ledger = yield* SubscriptionRef.make<Ledger>(initial)
    const events = yield* Queue.unbounded<Event>()
    const changesHub = yield* PubSub.unbounded<StateChange>()
    const reconnects = yield* FiberMap.make<string>()

    // ---- events: listeners run after the update, outside it, in order ----
    const dispatch = (event: Event): Effect.Effect<void> => {
      const listener = event._tag === "State"
        ? options.onStateChange?.(event.change)
        : options.onToolsChanged?.(event.change)
      const publish = event._tag === "State" ? PubSub.publish(changesHub, event.change) : Effect.void
      return Effect.andThen(
        listener === undefined
          ? Effect.void
          : listener.pipe(Effect.catchCause((cause) => Effect.logWarning("an MCP manager listener failed", cause))),
        publish
      )
    }
    yield* Queue.take(events).pipe(Effect.flatMap(dispatch), Effect.forever, Effect.forkScoped)

    const exposed = (h: ServerHealth) => (ServerState.countsTools(h.state) ? h.tools : [])

    /** The one place a server's health moves. Atomic; events are queued after the update. */
    const transition = (
      name: string,
      update: (h: ServerHealth) => ServerHealth | undefined
    ): Effect.Effect<ServerHealth> =>
      SubscriptionRef.modify(ledger, (map): readonly [readonly [ServerHealth, ServerHealth], Ledger] => {
        const old = map.get(name)!
        const updated = update(old)
        if (updated === undefined) return [[old, old], map]
        const next = updated.state !== old.state ? { ...updated, since: now() } : updated
        const copy = new Map(map)
        copy.set(name, next)
        return [[old, next], copy]
      }).pipe(
        Effect.tap(([old, next]) =>
          Effect.sync(() => {
            if (old === next) return
            if (old.state !== next.state) {
              Queue.offerUnsafe(events, {
                _tag: "State",
                change: { server: name, from: old.state, to: next.state, health: next }
              })
            }
            const before = exposed(old)
            const after = exposed(next)
            if ((before.length > 0 || after.length > 0) && fingerprint(before) !== fingerprint(after)) {
              Queue.offerUnsafe(events, { _tag: "Tools", change: { server: name, tools: after } })
            }
          })
        ),
        Effect.map(([, next]) => next)
      )

    const curatedOf = (config: ServerConfig, tools: ReadonlyArray<Tool.DiscoveredTool>) => {
      const names = new Set(tools.map((t) => t.name))
      const curated = config.curated ?? []
      return {
        curatedCount: curated.filter((n) => names.has(n)).length,
        curatedMissing: curated.filter((n) => !names.has(n))
      }
    }

    const isCurrent = (slot: Slot, generation: number) => !shuttingDown && slot.generation === generation

    // ---- discovery: initialize (readyTimeout only noted), then tools/list (bounded by startupTimeout) ----
    const list = (slot: Slot, client: McpClient.McpClient, generation: number): Effect.Effect<Outcome> =>
      Effect.gen(function*() {
        const listed = yield* client.listTools().pipe(Effect.timeoutOption(options.startupTimeoutMs), Effect.result)
        if (!client.isAlive()) return "gone"
        if (!isCurrent(slot, generation)) return "gone"
        if (listed._tag === "Failure" || Option.isNone(listed.success)) {
          const why = listed._tag === "Failure"
            ? `tools/list failed: ${listed.failure.message}`
            : `tools/list did not finish within ${options.startupTimeoutMs} ms`
          yield* transition(slot.name, (h) => ({ ...h, state: "degraded", tools: [], lastError: why }))
          return "degraded"
        }
        const { skipped, tools } = listed.success.value
        const instructions = listed.success.value.instructions
        const skippedNote = skipped.length > 0
          ? `${skipped.length} listed tools did not decode and were left out (${
            skipped.map((s) => s.name ?? `#${s.index}`).join(", ")
          })`
          : undefined
        if (tools.length === 0) {
          yield* transition(slot.name, (h) => ({
            ...h,
            state: "degraded",
            tools: [],
            instructions,
            lastError: skippedNote ?? "the server lists no tools"
          }))
          return "degraded"
        }
        yield* transition(slot.name, (h) => ({
          ...h,
          state: "ready",
          tools,
          instructions,
          ...curatedOf(slot.config, tools),
          lastError: skippedNote,
          attempt: 0,
          gaveUp: false
        }))
        return "ready"
      })

    const discover = (slot: Slot, client: McpClient.McpClient, generation: number): Effect.Effect<Outcome> =>
      Effect.gen(function*() {
        const first = yield* client.awaitReady.pipe(Effect.timeoutOption(options.readyTimeoutMs), Effect.result)
        let ready: Result.Result<unknown, McpError.InitializeError> = first
        if (first._tag === "Success" && Option.isNone(first.success)) {
          // A slow start is not death: note it, stay `starting`, keep the process, keep waiting.
          yield* transition(slot.name, (h) =>
            h.state === "starting"
              ? { ...h, lastError: `no answer to initialize after ${options.readyTimeoutMs} ms; still waiting` }
              : undefined)
          ready = yield* client.awaitReady.pipe(Effect.result)
        }
        if (ready._tag === "Failure") {
          if (!client.isAlive() || !isCurrent(slot, generation)) return "gone"
          const error = ready.failure
          yield* transition(slot.name, (h) => ({ ...h, state: "degraded", tools: [], lastError: error.message }))
          return "degraded"
        }
        return yield* list(slot, client, generation)
      })

    // ---- the client's own fibers ----
    const watch = (
      slot: Slot,
      client: McpClient.McpClient,
      generation: number,
      clientScope: Scope.Scope,
      mode: "start" | "reconnected"
    ) =>
      Effect.gen(function*() {
        const refresh = yield* Queue.sliding<void>(1)
        // Notifications are read on their own fiber, never on the transport's reader.
        yield* client.notifications.pipe(
          Stream.filter((n) => n.method === "notifications/tools/list_changed"),
          Stream.runForEach(() =>
            Effect.andThen(
              Queue.offer(refresh, undefined),
              transition(
                slot.name,
                (
                  h
                ) => (h.state === "starting" && !h.listChangedPending ? { ...h, listChangedPending: true } : undefined)
              )
            )
          ),
          Effect.forkIn(clientScope)
        )
        // One lister: the first discovery (when starting), then each coalesced refresh.
        yield* Effect.gen(function*() {
          if (mode === "start") {
            const outcome = yield* discover(slot, client, generation)
            if (outcome === "gone") return
          }
          while (true) {
            yield* Queue.take(refresh)
            if (!client.isAlive() || !isCurrent(slot, generation)) return
            yield* transition(
              slot.name,
              (h) => (h.listChangedPending ? { ...h, listChangedPending: false } : undefined)
            )
            yield* list(slot, client, generation)
          }
        }).pipe(Effect.forkIn(clientScope))
        // Crash watcher.
        yield* client.awaitTerminated.pipe(
          Effect.andThen(Effect.suspend(() => (isCurrent(slot, generation) ? crashed(slot, client) : Effect.void))),
          Effect.forkIn(clientScope)
        )
      })

    // ---- spawning ----
    const spawn = (slot: Slot): Effect.Effect<readonly [McpClient.McpClient, number, Scope.Closeable] | undefined> =>
      Effect.gen(function*() {
        const clientScope = yield* Scope.fork(scope, "sequential")
        const { config, name } = slot
        const made = yield* McpClient.make({
          ...config.client,
          command: config.command,
          args: config.args,
          env: config.env,
          cwd: config.cwd,
          inheritEnv: config.inheritEnv,
          requestTimeout: config.requestTimeout,
          name
        }).pipe(Scope.provide(clientScope), Effect.provideContext(context), Effect.result)
        if (made._tag === "Failure") {
          yield* Scope.close(clientScope, Exit.void)
          yield* transition(
            name,
            (h) => ({ ...h, state: "offline", tools: [], pid: undefined, lastError: made.failure.message })
          )
          return undefined
        }
        const client = made.success
        const replaced = slot.scope
        slot.generation++
        slot.client = client
        slot.scope = clientScope
        // Never orphan a client: one being replaced is shut down (in the background; this region is short).
        if (replaced !== undefined) yield* Effect.forkIn(Scope.close(replaced, Exit.void), scope)
        yield* transition(name, (h) => ({
          ...h,
          state: "starting",
          tools: [],
          pid: client.pid,
          listChangedPending: false,
          stderrTail: []
        }))
        return [client, slot.generation, clientScope] as const
      }).pipe(Effect.uninterruptible) // spawning is quick; never leave a half-registered client behind

    const closeClient = (slot: Slot): Effect.Effect<void> =>
      Effect.suspend(() => {
        const clientScope = slot.scope
        slot.scope = undefined
        return clientScope === undefined ? Effect.void : Scope.close(clientScope, Exit.void)
      })

    // ---- crash → offline → supervised reconnection ----
    const reconnectLoop = (slot: Slot): Effect.Effect<void> =>
      Effect.gen(function*() {
        yield* closeClient(slot)
        while (true) {
          const current = yield* SubscriptionRef.get(ledger)
          const attempt = current.get(slot.name)!.attempt + 1
          if (attempt > maxAttempts) {
            yield* transition(slot.name, (h) => ({
              ...h,
              state: "offline",
              gaveUp: true,
              lastError: `gave up reconnecting after ${h.attempt} attempts. ${h.lastError ?? ""}`.trim()
            }))
            yield* Effect.logWarning(`MCP server gave up after ${maxAttempts} reconnection attempts`)
            return
          }
          yield* transition(slot.name, (h) => ({ ...h, state: "offline", attempt }))
          yield* Effect.sleep(Options.backoffDelay(options.reconnect, attempt))
          const spawned = yield* spawn(slot)
          if (spawned === undefined) continue
          const [client, generation, clientScope] = spawned
          yield* transition(slot.name, (h) => ({ ...h, attempt }))
          // Discovery is awaited in place: this attempt worked if the server initialized and is alive.
          const outcome = yield* discover(slot, client, generation)
          if (outcome === "gone") {
            const why = describeExit(client)
            yield* closeClient(slot)
            yield* transition(
              slot.name,
              (h) => ({
                ...h,
                state: "offline",
                tools: [],
                pid: undefined,
                lastError: why,
                stderrTail: client.stderrTail()
              })
            )
            continue
          }
          yield* transition(slot.name, (h) => ({ ...h, attempt: 0, gaveUp: false }))
          yield* watch(slot, client, generation, clientScope, "reconnected")
          return
        }
      }).pipe(Effect.annotateLogs({ mcpServer: slot.name }))

    const startReconnect = (slot: Slot): Effect.Effect<void> =>
      shuttingDown
        ? Effect.void
        : Effect.asVoid(
          FiberMap.run(reconnects, `mcp/reconnect-${slot.name}`, reconnectLoop(slot), { onlyIfMissing: true })
        )

    /**
     * `client` is gone: if it is still the slot's current client (not one being restarted or replaced), the
     * server is offline at once and reconnection starts (once).
     */
    const crashed = (slot: Slot, client: McpClient.McpClient): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (shuttingDown || slot.client !== client) return Effect.void
        return transition(slot.name, (h) =>
          h.state === "offline" ? undefined : {
            ...h,
            state: "offline",
            tools: [],
            pid: undefined,
            lastError: describeExit(client),
            stderrTail: client.stderrTail()
          }).pipe(Effect.andThen(startReconnect(slot)))
      })

    const startFresh = (slot: Slot): Effect.Effect<void> =>
      Effect.gen(function*() {
        const spawned = yield* spawn(slot)
        if (spawned === undefined) {
          // The command cannot be started at all (missing binary or working directory): retrying on a backoff
          // would only delay the answer. Offline for good, until `restart`.
          yield* transition(slot.name, (h) => ({ ...h, gaveUp: true }))
          return
        }
        const [client, generation, clientScope] = spawned
        yield* watch(slot, client, generation, clientScope, "start")
      }).pipe(Effect.annotateLogs({ mcpServer: slot.name }))

    // ---- start: spawn every enabled server now; discovery continues in the background ----
    yield* Effect.forEach(
      [...slots.values()].filter((slot) => slot.config.disabled !== true),
      startFresh,
      { concurrency: "unbounded", discard: true }
    )

    // ---- shutdown: both paths drain every client in parallel and every supervisor fiber ----
    const drain = (mode: "graceful" | "force"): Effect.Effect<void> =>
      Effect.gen(function*() {
        shuttingDown = true
        yield* FiberMap.clear(reconnects)
        yield* Effect.forEach(
          [...slots.values()],
          (slot) =>
            Effect.gen(function*() {
              if (mode === "force" && slot.client !== undefined) yield* slot.client.forceClose
              yield* closeClient(slot)
            }),
          { concurrency: "unbounded", discard: true }
        )
      })
    yield* Effect.addFinalizer(() => drain("graceful"))

    // ---- queries ----
    const lookup = (name: string): Effect.Effect<Slot, UnknownServer> =>
      Effect.suspend(() => {
        const slot = slots.get(name)
        return slot === undefined
          ? Effect.fail(new UnknownServer({ server: name, known: [...slots.keys()] }))
          : Effect.succeed(slot)
      })

    /** Reads each client's `isAlive` once: a dead process shows as offline even before its watcher ran. */
    const observed = (h: ServerHealth): ServerHealth => {
      const client = slots.get(h.name)?.client
      if (
        client !== undefined && (h.state === "starting" || h.state === "ready" || h.state === "degraded") &&
        !client.isAlive()
      ) {
        return { ...h, state: "offline", tools: [], pid: undefined, lastError: describeExit(client) }
      }
      return h
    }

    const health = (): ReadonlyArray<ServerHealth> => [...SubscriptionRef.getUnsafe(ledger).values()].map(observed)

    const unavailable = (h: ServerHealth) =>
      new ServerUnavailable({
        server: h.name,
        state: h.state,
        attempt: h.attempt,
        gaveUp: h.gaveUp,
        ...(h.lastError !== undefined ? { lastError: h.lastError } : {})
      })

    const fleet: Service = {
      client: (name) =>
        Effect.flatMap(lookup(name), (slot) => {
          const h = observed(SubscriptionRef.getUnsafe(ledger).get(name)!)
          return slot.client === undefined || h.state === "disabled"
            ? Effect.fail(unavailable(h))
            : Effect.succeed(slot.client)
        }),
      health,
      serverHealth: (name) => Effect.map(lookup(name), () => observed(SubscriptionRef.getUnsafe(ledger).get(name)!)),
      tools: () =>
        health().flatMap((
          h
        ) => (ServerState.countsTools(h.state) ? h.tools.map((tool) => ({ server: h.name, tool })) : [])),
      statusLines: () => renderStatus(health(), options.maxStatusLines),
      call: (server, tool, args, callOptions) =>
        Effect.flatMap(lookup(server), (slot): ReturnType<Service["call"]> => {
          // No lock: one read of the ledger and of the client's flags.
          const h = SubscriptionRef.getUnsafe(ledger).get(server)!
          const client = slot.client
          if (h.state === "disabled" || h.state === "offline" || client === undefined) {
            return Effect.fail(unavailable(h))
          }
          if (!client.isAlive()) {
            return Effect.andThen(
              crashed(slot, client),
              Effect.suspend(() => Effect.fail(unavailable(SubscriptionRef.getUnsafe(ledger).get(server)!)))
            )
          }
          return client.callTool(tool, args, callOptions).pipe(
            Effect.tapError((error) => (error._tag === "ProcessExited" ? crashed(slot, client) : Effect.void))
          )
        }),
      waitForReady: (name) =>
        Effect.flatMap(lookup(name), () =>
          SubscriptionRef.changes(ledger).pipe(
            Stream.map((map) => map.get(name)!),
            Stream.filter((h) => h.state === "ready" || h.state === "degraded" || h.state === "disabled" || h.gaveUp),
            Stream.runHead,
            Effect.flatMap((found) => {
              const h = Option.getOrUndefined(found)
              if (h !== undefined && h.state === "ready") return Effect.succeed(h)
              return Effect.fail(
                new ServerNotReady({
                  server: name,
                  state: h?.state ?? "offline",
                  ...(h?.lastError !== undefined ? { lastError: h.lastError } : {})
                })
              )
            })
          )),
      restart: (name) =>
        Effect.flatMap(lookup(name), (slot) => {
          if (slot.config.disabled === true || shuttingDown) return Effect.void
          // Under the reconnection key: it replaces a running reconnection loop, and while it runs a crash
          // cannot start another one. The old client is detached first, so that calls made meanwhile fail fast
          // and its deliberate close is never mistaken for a crash.
          const body = Effect.gen(function*() {
            const old = slot.scope
            slot.generation++
            slot.client = undefined
            slot.scope = undefined
            yield* transition(name, (h) => ({
              ...h,
              state: "starting",
              tools: [],
              pid: undefined,
              attempt: 0,
              gaveUp: false,
              lastError: undefined
            }))
            if (old !== undefined) yield* Scope.close(old, Exit.void)
            yield* startFresh(slot)
          })
          return FiberMap.run(reconnects, `mcp/reconnect-${name}`, body).pipe(Effect.flatMap(Fiber.join))
        }),
      forceClose: drain("force"),
      changes: Stream.fromPubSub(changesHub),
      snapshots: SubscriptionRef.changes(ledger).pipe(Stream.map(() => health()))
    }
    return fleet
  })
