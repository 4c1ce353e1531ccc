/**
 * Fleet cells (issue 19), one per round like the call cells, so each client is compared with raw in the same
 * round. The `fleet` column runs `@mcp-fleet/manager` (`McpManager.layer`); every other column runs its plain
 * client sessions side by side, as an application without a manager would:
 *
 * - `fleet-start`: N echo servers, from the start to all ready. Manager: layer build → every server `ready`
 *   (initialize and `tools/list`). Others: N `start()`s (spawn + initialize) in parallel.
 * - `fleet-calls`: 20 servers, 64 concurrent callers spread over them (caller i calls server i mod 20), back to
 *   back for the call window. Manager: `manager.call(server, "echo", …)` from 64 fibers of one Effect; others:
 *   their session's `call` from 64 Promise callers. Each reports calls/s, p50 and client CPU per call.
 *
 * @since 0.0.0
 */
import * as Effect from "effect/Effect"
import type { Cell, CellContext, Measurement } from "../Cell.ts"
import type { ClientAdapter, ClientSession } from "../ClientAdapter.ts"
import { echoLaunch } from "../EchoServer.ts"
import { fiberCallLoop } from "../fiberLoop.ts"
import { percentile } from "../Stats.ts"
import { build, closeTimed, fleetOf } from "./managerCells.ts"

const CALL_SERVERS = 20
const CALLERS = 64
const PAYLOAD = "x".repeat(64)

const startCount = (context: CellContext) => (context.config.preset === "quick" ? 20 : 100)

/** How many times the manager's call cell has run in this process (it rotates the order of its loops). */
let callRounds = 0

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
 * `CALLERS` Promise callers until `until` (a `performance.now()` time), caller i calling `call(i mod CALL_SERVERS)`
 * back to back; resolves with every call's latency in ms.
 *
 * @since 0.0.0
 */
export const spreadCalls = async (
  call: (server: number) => Promise<string>,
  until: number
): Promise<Array<number>> => {
  const latencies: Array<number> = []
  const caller = async (i: number) => {
    while (performance.now() < until) {
      const t = performance.now()
      const text = await call(i % CALL_SERVERS)
      latencies.push(performance.now() - t)
      if (text.length !== PAYLOAD.length) throw new Error(`echo returned ${text.length} characters`)
    }
  }
  await Promise.all(Array.from({ length: CALLERS }, (_, i) => caller(i)))
  return latencies
}

/** One window of a closed call loop: calls/s, p50 latency, and this process's CPU (user + system) per call. */
const timed = async (loop: (until: number) => Promise<Array<number>>, windowMs: number): Promise<Measurement> => {
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  const latencies = await loop(start + windowMs)
  const elapsed = performance.now() - start
  const cpu = process.cpuUsage(cpuStart)
  return {
    callsPerSec: latencies.length / (elapsed / 1000),
    p50Us: percentile(latencies, 50) * 1000,
    clientCpuUs: (cpu.user + cpu.system) / latencies.length
  }
}

/** A warm-up window, then the measured one. */
const warmThenTimed = async (loop: (until: number) => Promise<Array<number>>, context: CellContext) => {
  await loop(performance.now() + context.config.warmupMs)
  return timed(loop, context.config.callMs)
}

const textOf = (content: ReadonlyArray<{ readonly [k: string]: unknown }>): string => {
  const first = content[0]
  return first !== undefined && typeof first["text"] === "string" ? first["text"] : ""
}

const describe = (m: Measurement) =>
  `${(m["callsPerSec"] ?? 0).toFixed(0)} calls/s, ${(m["clientCpuUs"] ?? 0).toFixed(1)} µs client CPU/call`

/**
 * The manager's 64 callers are fibers of one `Effect.runPromise`, as a host written in Effect runs them (the
 * measured figure). For the attribution, the same fleet is also measured with the 20 clients called directly
 * (`manager.client(name)` → `callTool`, fibers too: the transport's share) and with `manager.call` run through
 * `Effect.runPromise` per call (the earlier form of this cell); both go to the notes.
 */
const callFleet = async (context: CellContext): Promise<Measurement> => {
  const fleet = await build(fleetOf(CALL_SERVERS, 0))
  try {
    const all = names(CALL_SERVERS)
    await Effect.runPromise(Effect.forEach(all, (name) => fleet.manager.waitForReady(name), { discard: true }))
    const clients = await Effect.runPromise(Effect.forEach(all, (name) => fleet.manager.client(name)))
    const viaManager = (payload: string, caller: number) =>
      Effect.map(
        fleet.manager.call(all[caller % CALL_SERVERS]!, "echo", { payload }),
        (result) => textOf(result.content)
      )
    const direct = (payload: string, caller: number) =>
      Effect.map(clients[caller % CALL_SERVERS]!.callTool("echo", { payload }), (result) => textOf(result.content))
    const loops = [
      (until: number) => fiberCallLoop(viaManager, PAYLOAD, CALLERS, until),
      (until: number) => fiberCallLoop(direct, PAYLOAD, CALLERS, until),
      (until: number) => spreadCalls((i) => Effect.runPromise(viaManager(PAYLOAD, i)), until)
    ] as const
    // Every loop warmed before any is timed, and the order rotated from one round to the next, so that neither the
    // JIT nor the loop that runs first falls on one of them each time.
    for (const loop of loops) await loop(performance.now() + context.config.warmupMs)
    const first = callRounds++ % loops.length
    const results: Array<Measurement> = []
    for (let k = 0; k < loops.length; k++) {
      const index = (first + k) % loops.length
      results[index] = await timed(loops[index]!, context.config.callMs)
    }
    const [measured, clientsOnly, perCall] = [results[0]!, results[1]!, results[2]!]
    context.note(
      `fleet-calls fleet: manager.call as fibers ${describe(measured)}; the same 20 clients called directly as ` +
        `fibers ${describe(clientsOnly)}; manager.call with Effect.runPromise per call ${describe(perCall)}`
    )
    return measured
  } finally {
    await closeTimed(fleet.scope)
  }
}

const callClients = async (adapter: ClientAdapter, context: CellContext): Promise<Measurement> => {
  const sessions: ReadonlyArray<ClientSession> = await startSessions(adapter, CALL_SERVERS)
  try {
    return await warmThenTimed((until) => spreadCalls((i) => sessions[i]!.call(PAYLOAD), until), context)
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
      "manager.call, the callers as fibers of one Effect (a host's way; the notes add the clients called directly " +
      "and manager.call through Effect.runPromise per call); others: one session per server, Promise callers",
    once: false,
    metrics: [
      { key: "callsPerSec", label: "calls/s", digits: 0, ratio: true },
      { key: "p50Us", label: "p50 latency µs", digits: 0, ratio: true },
      { key: "clientCpuUs", label: "client CPU µs/call", digits: 1, ratio: true }
    ],
    run: (adapter, context) => adapter.id === "fleet" ? callFleet(context) : callClients(adapter, context)
  }
]
