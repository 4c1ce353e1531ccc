/**
 * The manager cells (issue 7): `McpManager.layer` with many echo servers, measured in the `fleet` column only
 * (the other clients have no manager; their columns show "n/a").
 *
 * - time to build the layer, once with servers that answer `initialize` at once and once with servers that
 *   answer it only after {@link SLOW_INIT_MS} (the echo server's `delay-init`): building spawns every server and
 *   returns without waiting for discovery, so the two times should match;
 * - time from the start of the build until every server is `ready` (initialize + tools/list);
 * - client-side heap per idle ready server: heap after forced GC with every server ready, minus the heap before
 *   the build (after a two-server warm-up), divided by the number of servers (the harness runs with
 *   `--expose-gc`);
 * - time to close the layer's scope (every server shut down and reaped).
 *
 * @since 0.0.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import type { Cell, CellContext, Measurement } from "../Cell.ts"
import { echoLaunch } from "../EchoServer.ts"

/** How long the slow servers take to answer `initialize`. */
export const SLOW_INIT_MS = 2_000

const gc: (() => void) | undefined = typeof globalThis.gc === "function" ? globalThis.gc : undefined

const heapAfterGc = (): number => {
  if (gc === undefined) return Number.NaN
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/**
 * `count` echo servers named `echo-0` … as manager config.
 *
 * @since 0.0.0
 */
export const fleetOf = (count: number, delayInitMs: number): ManagerOptions.ManagerOptions["servers"] => {
  const launch = echoLaunch({ delayInitMs })
  const servers: Record<string, { command: string; args: ReadonlyArray<string> }> = {}
  for (let i = 0; i < count; i++) servers[`echo-${i}`] = { command: launch.command, args: launch.args }
  return servers
}

/** Builds the layer in a fresh scope; resolves with the scope, the manager and the build time. */
/**
 * A manager built by {@link build}.
 *
 * @since 0.0.0
 */
export interface Built {
  readonly scope: Scope.Closeable
  readonly manager: McpManager.McpManager["Service"]
  readonly buildMs: number
  readonly startedAt: number
}

/**
 * Builds `McpManager.layer` over `servers` in a fresh scope and times the build.
 *
 * @since 0.0.0
 */
export const build = async (servers: ManagerOptions.ManagerOptions["servers"]): Promise<Built> => {
  const scope = await Effect.runPromise(Scope.make())
  const layer = McpManager.layer({ servers }).pipe(Layer.provide(NodeServices.layer))
  const t0 = performance.now()
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const buildMs = performance.now() - t0
  return { scope, manager: Context.get(context, McpManager.McpManager), buildMs, startedAt: t0 }
}

/**
 * Closes a scope and returns how long that took, ms.
 *
 * @since 0.0.0
 */
export const closeTimed = async (scope: Scope.Closeable): Promise<number> => {
  const t0 = performance.now()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  return performance.now() - t0
}

/**
 * Runs the whole manager measurement once.
 *
 * @since 0.0.0
 */
const measureManager = async (count: number, context: CellContext): Promise<Measurement> => {
  // Warm-up: two servers to ready and closed, so that code loaded and compiled on first use is not counted as
  // heap per server.
  const warm = await build(fleetOf(2, 0))
  await Effect.runPromise(
    Effect.forEach(["echo-0", "echo-1"], (name) => warm.manager.waitForReady(name), { discard: true })
  )
  await closeTimed(warm.scope)

  const heapBefore = heapAfterGc()
  const fast = await build(fleetOf(count, 0))
  let allReadyMs: number
  let heapPerServerKB: number
  try {
    await Effect.runPromise(
      Effect.forEach(Object.keys(fleetOf(count, 0)), (name) => fast.manager.waitForReady(name), {
        concurrency: "unbounded",
        discard: true
      })
    )
    allReadyMs = performance.now() - fast.startedAt
    const ready = fast.manager.health().filter((health) => health.state === "ready").length
    if (ready !== count) throw new Error(`only ${ready} of ${count} servers are ready`)
    heapPerServerKB = (heapAfterGc() - heapBefore) / count / 1024
  } finally {
    context.log(`manager: ${count} servers built in ${fast.buildMs.toFixed(0)} ms`)
  }
  const closeMs = await closeTimed(fast.scope)

  const slow = await build(fleetOf(count, SLOW_INIT_MS))
  const starting = slow.manager.health().filter((health) => health.state === "starting").length
  const slowCloseMs = await closeTimed(slow.scope)
  context.note(
    `manager (${count} servers): layer built in ${fast.buildMs.toFixed(0)} ms with instant initialize, ` +
      `${slow.buildMs.toFixed(0)} ms with initialize delayed ${SLOW_INIT_MS} ms (${starting} of ${count} still ` +
      `starting when it returned; closing them took ${slowCloseMs.toFixed(0)} ms)`
  )
  return {
    servers: count,
    buildMs: fast.buildMs,
    buildSlowInitMs: slow.buildMs,
    allReadyMs,
    heapPerServerKB,
    closeMs
  }
}

/**
 * The manager cell: 100 servers in the full preset, 20 in the quick one.
 *
 * @since 0.0.0
 */
export const managerCell: Cell = {
  id: "manager",
  title: "McpManager.layer with many echo servers (fleet only)",
  once: true,
  clients: ["fleet"],
  metrics: [
    { key: "servers", label: "servers", digits: 0, ratio: false },
    { key: "buildMs", label: "layer build ms (initialize answered at once)", digits: 0, ratio: false },
    { key: "buildSlowInitMs", label: `layer build ms (initialize after ${SLOW_INIT_MS} ms)`, digits: 0, ratio: false },
    { key: "allReadyMs", label: "build start → all ready ms", digits: 0, ratio: false },
    { key: "heapPerServerKB", label: "client heap KB per idle server", digits: 0, ratio: false },
    { key: "closeMs", label: "scope close → all shut down ms", digits: 0, ratio: false }
  ],
  run: (_adapter, context) => measureManager(context.config.preset === "quick" ? 20 : 100, context)
}

/**
 * The manager cells, appended to the cell list by `cellRegistry.ts`.
 *
 * @since 0.0.0
 */
export const managerCells: ReadonlyArray<Cell> = [managerCell]
