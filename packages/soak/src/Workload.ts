/**
 * The soak's calls: workers that keep calls in flight until told to stop, each call watched against its own
 * deadline plus a grace period.
 *
 * A call runs in its own fiber (in the `inFlight` set); the worker waits for that fiber's exit for at most the
 * call's own timeout plus `graceMs`. A call with neither a value nor an error by then is *unsettled*: the
 * transport promised to settle it by its timeout. An unsettled call is left running (never interrupted by the
 * watcher, so a hang stays visible) and counted.
 *
 * @since 0.0.0
 */
import type { McpManager } from "@mcp-fleet/manager"
import type { Protocol } from "@mcp-fleet/transport"
import type { Cause } from "effect"
import { Cause as CauseModule, Clock, Effect, Exit, Fiber, FiberSet, Option, Predicate, Random, Ref } from "effect"
import type { SoakOptions } from "./SoakOptions.ts"
import type { Op, Outcome, Tally } from "./Tally.ts"
import * as Tallies from "./Tally.ts"

/**
 * What the workers share.
 *
 * @since 0.0.0
 * @category models
 */
export interface Workload {
  readonly manager: McpManager.McpManager["Service"]
  /** Servers that answer calls. */
  readonly answering: ReadonlyArray<string>
  /** Servers that never answer a call (`hang` mode). */
  readonly hanging: ReadonlyArray<string>
  readonly options: SoakOptions
  readonly tally: Tally
  /** Every call's fiber while it runs; an unsettled call stays here. */
  readonly inFlight: FiberSet.FiberSet<Outcome>
  /** Tells workers to finish their current call and return. */
  readonly stopped: Ref.Ref<boolean>
}

/** Payload sizes of `echo` (UTF-16 code units, about), with how often each is picked. */
const sizes: ReadonlyArray<readonly [size: number, weight: number]> = [
  [0, 15],
  [32, 40],
  [1024, 25],
  [16 * 1024, 12],
  [256 * 1024, 8]
]

/** Text that exercises JSON escaping and multi-byte UTF-8 (quotes, backslash, newline, tab, é, €, an emoji). */
const alphabet = Array.from("abc \"quoted\" back\\slash new\nline\ttab é € 😀 xyz ")

const payloads: ReadonlyMap<number, string> = new Map(sizes.map(([size]) => {
  let text = ""
  for (let i = 0; text.length < size; i++) text += alphabet[i % alphabet.length]!
  return [size, text] as const
}))

let sequence = 0

const pickWeighted = <A>(table: ReadonlyArray<readonly [A, number]>): Effect.Effect<A> =>
  Effect.map(Random.next, (roll) => {
    const total = table.reduce((sum, [, w]) => sum + w, 0)
    let at = roll * total
    for (const [value, weight] of table) {
      if (at < weight) return value
      at -= weight
    }
    return table[table.length - 1]![0]
  })

const pick = (names: ReadonlyArray<string>): Effect.Effect<string> =>
  Effect.map(Random.nextIntBetween(0, names.length, { halfOpen: true }), (i) => names[i]!)

/**
 * The tag of a failed call: the typed error's `_tag`, or `Defect` / `Interrupted`.
 *
 * @since 0.0.0
 * @category outcomes
 */
export const failureOf = <E extends { readonly _tag: string; readonly message: string }>(
  cause: Cause.Cause<E>
): Outcome => {
  const error = CauseModule.findErrorOption(cause)
  if (Option.isSome(error)) return { _tag: "Failed", tag: error.value._tag, detail: error.value.message }
  if (CauseModule.hasDies(cause)) return { _tag: "Failed", tag: "Defect", detail: CauseModule.pretty(cause) }
  return { _tag: "Failed", tag: "Interrupted", detail: "the call's fiber was interrupted" }
}

const wrongAnswer = (detail: string): Outcome => ({ _tag: "Failed", tag: "WrongAnswer", detail })

const checkEcho = (n: number, payload: string) => (result: Protocol.CallToolResult): Outcome => {
  const echoed = Predicate.isObject(result.structuredContent) ? result.structuredContent : undefined
  if (echoed === undefined) return wrongAnswer(`echo #${n} came back without structuredContent`)
  if (echoed["n"] !== n) return wrongAnswer(`echo #${n} came back as the answer to #${String(echoed["n"])}`)
  if (echoed["payload"] !== payload) {
    return wrongAnswer(`echo #${n}: the ${payload.length}-unit payload came back altered`)
  }
  return { _tag: "Succeeded" }
}

const checkSleep = (ms: number) => (result: Protocol.CallToolResult): Outcome =>
  (Predicate.isObject(result.structuredContent) && result.structuredContent["ms"] === ms)
    ? { _tag: "Succeeded" }
    : wrongAnswer(`sleep ${ms} answered ${JSON.stringify(result.structuredContent)}`)

/**
 * Runs one call in its own fiber and waits for it at most `ownTimeoutMs + graceMs`.
 *
 * @since 0.0.0
 * @category workers
 */
export const settle = (
  workload: Pick<Workload, "inFlight" | "options" | "tally">,
  op: Op,
  what: string,
  ownTimeoutMs: number,
  call: Effect.Effect<Outcome>
): Effect.Effect<Outcome> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const fiber = yield* FiberSet.run(workload.inFlight, call)
    const exit = yield* Fiber.await(fiber).pipe(Effect.timeoutOption(ownTimeoutMs + workload.options.graceMs))
    const elapsed = (yield* Clock.currentTimeMillis) - started
    const outcome: Outcome = Option.isNone(exit)
      ? {
        _tag: "Unsettled",
        detail:
          `${what}: no value and no error after ${elapsed} ms (own timeout ${ownTimeoutMs} ms + ${workload.options.graceMs} ms grace)`
      }
      : Exit.isSuccess(exit.value)
      ? exit.value.value
      : failureOf(exit.value.cause)
    yield* Tallies.record(workload.tally, op, outcome, elapsed)
    return outcome
  })

const callTool = (
  workload: Workload,
  server: string,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  timeoutMs: number,
  check: (result: Protocol.CallToolResult) => Outcome
): Effect.Effect<Outcome> =>
  workload.manager.call(server, tool, args, { timeout: timeoutMs }).pipe(
    Effect.matchCause({ onFailure: failureOf, onSuccess: check })
  )

/**
 * Picks a kind of call (65% echo, 25% sleep, 10% to a hanging server), a server and arguments, and runs it.
 *
 * @since 0.0.0
 * @category workers
 */
export const oneCall = (workload: Workload): Effect.Effect<Outcome> =>
  Effect.gen(function*() {
    const { callTimeoutMs, hangTimeoutMs } = workload.options
    const op = yield* pickWeighted<Op>([["echo", 65], ["sleep", 25], ["hang", 10]])
    const n = ++sequence
    switch (op) {
      case "echo": {
        const server = yield* pick(workload.answering)
        const size = yield* pickWeighted(sizes)
        const payload = payloads.get(size)!
        return yield* settle(
          workload,
          op,
          `echo #${n} (${size} units) to ${server}`,
          callTimeoutMs,
          callTool(workload, server, "echo", { n, payload }, callTimeoutMs, checkEcho(n, payload))
        )
      }
      case "sleep": {
        const server = yield* pick(workload.answering)
        const ms = yield* Random.nextIntBetween(1, 50)
        return yield* settle(
          workload,
          op,
          `sleep ${ms} ms #${n} on ${server}`,
          callTimeoutMs,
          callTool(workload, server, "sleep", { ms }, callTimeoutMs, checkSleep(ms))
        )
      }
      case "hang": {
        const server = yield* pick(workload.hanging)
        return yield* settle(
          workload,
          op,
          `echo #${n} to hanging ${server}`,
          hangTimeoutMs,
          callTool(workload, server, "echo", { n }, hangTimeoutMs, () => wrongAnswer(`${server} answered a call`))
        )
      }
    }
  })

/**
 * One worker: calls back to back until `stopped` is set. After a call that failed at once because the server
 * is away (offline, or initializing again) it pauses 10 ms, as a polite host would, so that a reconnecting
 * server does not turn the run into a tight loop of instant failures.
 *
 * @since 0.0.0
 * @category workers
 */
export const worker = (workload: Workload): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (!(yield* Ref.get(workload.stopped))) {
      const outcome = yield* oneCall(workload)
      if (outcome._tag === "Failed" && (outcome.tag === "ServerUnavailable" || outcome.tag === "ErrIndexBuilding")) {
        yield* Effect.sleep("10 millis")
      }
    }
  })
