/**
 * Fleet cells (issue 19), one per round like the call cells, so each client is compared with raw in the same
 * round. The `fleet` column runs `@mcp-fleet/manager` (`McpManager.layer`); every other column runs its plain
 * client sessions side by side, as an application without a manager would:
 *
 * - `fleet-start`: N echo servers, from the start to all ready. Manager: layer build → every server `ready`
 *   (initialize and `tools/list`). Others: N `start()`s (spawn + initialize) in parallel.
 * - `fleet-calls`: 20 servers, 64 concurrent callers spread over them (caller i calls server i mod 20), back to
 *   back for the call window. Manager: `manager.call(server, "echo", …)`; others: their session's `call`.
 *
 * @since 0.0.0
 */
import * as Effect from "effect/Effect"
import type { Cell, CellContext, Measurement } from "../Cell.ts"
import type { ClientAdapter, ClientSession } from "../ClientAdapter.ts"
import { echoLaunch } from "../EchoServer.ts"
import { percentile } from "../Stats.ts"
import { build, closeTimed, fleetOf } from "./managerCells.ts"

const CALL_SERVERS = 20
const CALLERS = 64
const PAYLOAD = "x".repeat(64)

const startCount = (context: CellContext) => (context.config.preset === "quick" ? 20 : 100)

const names = (count: number) => Array.from({ length: count }, (_, i) => `echo-${i}`)

const startFleet = async (count: number): Promise<Measurement> => {
  const fleet = await build(fleetOf(count, 0))
  try {
    await Effect.runPromise(
      Effect.forEach(names(count), (name) => fleet.manager.waitForReady(name), {
        concurrency: "unbounded",
        discard: true
      })
    )
    return { servers: count, allReadyMs: performance.now() - fleet.startedAt }
  } finally {
    await closeTimed(fleet.scope)
  }
}

const startSessions = async (adapter: ClientAdapter, count: number) => {
  const settled = await Promise.allSettled(Array.from({ length: count }, () => adapter.start(echoLaunch({}))))
  const sessions = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []))
  const failed = settled.find((s) => s.status === "rejected")
  if (failed !== undefined) {
    await Promise.all(sessions.map((s) => s.close()))
    throw failed.reason
  }
  return sessions
}

const startClients = async (adapter: ClientAdapter, count: number): Promise<Measurement> => {
  const t0 = performance.now()
  const sessions = await startSessions(adapter, count)
  const allReadyMs = performance.now() - t0
  await Promise.all(sessions.map((s) => s.close()))
  return { servers: count, allReadyMs }
}

/**
 * Runs `CALLERS` callers for `windowMs`, caller i calling `call(i mod CALL_SERVERS)`; returns calls/s and p50.
 *
 * @since 0.0.0
 */
export const spreadCalls = async (
  call: (server: number) => Promise<string>,
  windowMs: number
): Promise<Measurement> => {
  const latencies: Array<number> = []
  const start = performance.now()
  const until = start + windowMs
  const caller = async (i: number) => {
    while (performance.now() < until) {
      const t = performance.now()
      const text = await call(i % CALL_SERVERS)
      latencies.push(performance.now() - t)
      if (text.length !== PAYLOAD.length) throw new Error(`echo returned ${text.length} characters`)
    }
  }
  await Promise.all(Array.from({ length: CALLERS }, (_, i) => caller(i)))
  const elapsed = performance.now() - start
  return { callsPerSec: latencies.length / (elapsed / 1000), p50Us: percentile(latencies, 50) * 1000 }
}

const textOf = (content: ReadonlyArray<{ readonly [k: string]: unknown }>): string => {
  const first = content[0]
  return first !== undefined && typeof first["text"] === "string" ? first["text"] : ""
}

const callFleet = async (context: CellContext): Promise<Measurement> => {
  const fleet = await build(fleetOf(CALL_SERVERS, 0))
  try {
    const all = names(CALL_SERVERS)
    await Effect.runPromise(Effect.forEach(all, (name) => fleet.manager.waitForReady(name), { discard: true }))
    const call = (i: number) =>
      Effect.runPromise(fleet.manager.call(all[i] ?? "", "echo", { payload: PAYLOAD })).then((r) => textOf(r.content))
    await spreadCalls(call, context.config.warmupMs)
    return await spreadCalls(call, context.config.callMs)
  } finally {
    await closeTimed(fleet.scope)
  }
}

const callClients = async (adapter: ClientAdapter, context: CellContext): Promise<Measurement> => {
  const sessions: ReadonlyArray<ClientSession> = await startSessions(adapter, CALL_SERVERS)
  try {
    const call = (i: number) => sessions[i]!.call(PAYLOAD)
    await spreadCalls(call, context.config.warmupMs)
    return await spreadCalls(call, context.config.callMs)
  } finally {
    await Promise.all(sessions.map((s) => s.close()))
  }
}

/**
 * The fleet cells.
 *
 * @since 0.0.0
 */
export const fleetCells: ReadonlyArray<Cell> = [
  {
    id: "fleet-start",
    title: "fleet start: 100 servers (20 with --quick) to all ready — fleet: McpManager.layer build → all ready " +
      "(initialize + tools/list); others: that many start()s (spawn + initialize) in parallel",
    once: false,
    metrics: [
      { key: "servers", label: "servers", digits: 0, ratio: false },
      { key: "allReadyMs", label: "start → all ready ms", digits: 0, ratio: true }
    ],
    run: (adapter, context) =>
      adapter.id === "fleet" ? startFleet(startCount(context)) : startClients(adapter, startCount(context))
  },
  {
    id: "fleet-calls",
    title: `fleet calls: ${CALL_SERVERS} servers, ${CALLERS} concurrent callers spread over them, 64 B — fleet: ` +
      "manager.call; others: one session per server",
    once: false,
    metrics: [
      { key: "callsPerSec", label: "calls/s", digits: 0, ratio: true },
      { key: "p50Us", label: "p50 latency µs", digits: 0, ratio: true }
    ],
    run: (adapter, context) => adapter.id === "fleet" ? callFleet(context) : callClients(adapter, context)
  }
]
