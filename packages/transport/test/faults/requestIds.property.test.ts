/**
 * Property test of request ids, through an in-memory peer under TestClock: under any mix of concurrent calls
 * that are answered (in any order), time out, or are interrupted — and a second wave after them — no id is
 * ever used twice, every caller gets its own answer, and late answers to abandoned ids settle nothing.
 */
import { describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Fiber, References } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import type { Message } from "../peers.ts"
import { awaitMethod, controlledPeer, echoResult } from "../peers.ts"
import { framesWith } from "./helpers.ts"

type Fate = "answer" | "expire" | "interrupt"

const check = (condition: boolean, what: string): Effect.Effect<void> =>
  condition ? Effect.void : Effect.die(new Error(what))

const argsOf = (frame: Message): { readonly k: number } => (frame.params as { arguments: { k: number } }).arguments

const run = (fates: ReadonlyArray<Fate>, secondWave: number, order: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
    const client = yield* McpClient.make({ command: "server", requestTimeout: "1 hour" }).pipe(Effect.provide(layer))
    yield* client.awaitReady
    const p = yield* peer
    const start = (k: number, fate: Fate) =>
      client.callTool("t", { k }, fate === "expire" ? { timeout: "1 second" } : undefined).pipe(
        Effect.forkChild({ startImmediately: true })
      )
    const first = yield* Effect.forEach(fates, (fate, k) => start(k, fate))
    yield* awaitMethod(frames, "tools/call", fates.length)
    for (const [k, fate] of fates.entries()) if (fate === "interrupt") yield* Fiber.interrupt(first[k]!)
    yield* TestClock.adjust("1 second")
    const second = yield* Effect.forEach(
      Array.from({ length: secondWave }, (_, i) => fates.length + i),
      (k) => start(k, "answer")
    )
    const total = fates.length + secondWave
    yield* awaitMethod(frames, "tools/call", total)

    const requests = [
      ...framesWith(frames, "server/discover"),
      ...framesWith(frames, "initialize"),
      ...framesWith(frames, "tools/call")
    ]
    const ids = requests.map((f) => f.id)
    yield* check(new Set(ids).size === ids.length, `an id was used twice: ${JSON.stringify(ids)}`)

    // Late answers to every abandoned call first, then every live call's answer, in a random order.
    const calls = framesWith(frames, "tools/call")
    const fateOf = (frame: Message): Fate => fates[argsOf(frame).k] ?? "answer"
    const abandoned = calls.filter((f) => fateOf(f) !== "answer")
    for (const f of abandoned) yield* p.send({ jsonrpc: "2.0", id: f.id, result: echoResult({ late: f.id }) })
    const live = calls
      .filter((f) => fateOf(f) === "answer")
      .map((f, i) => ({ f, key: order[i % order.length]! * 1_000 + i }))
      .sort((a, b) => a.key - b.key)
    for (const { f } of live) yield* p.send({ jsonrpc: "2.0", id: f.id, result: echoResult(argsOf(f)) })

    for (const [k, fiber] of [...first, ...second].entries()) {
      const exit = yield* Fiber.await(fiber)
      const fate = fates[k] ?? "answer"
      if (fate === "answer") {
        yield* check(
          Exit.isSuccess(exit) && exit.value.content[0]?.text === JSON.stringify({ k }),
          `call ${k} did not get its own answer: ${String(exit)}`
        )
      } else if (fate === "expire") {
        const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined
        yield* check(error?._tag === "Some" && error.value._tag === "RequestTimeout", `call ${k} did not time out`)
      } else {
        yield* check(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause), `call ${k} was not interrupted`)
      }
    }
    yield* p.read
    yield* check(
      client.stats().unknownId === abandoned.length,
      `late answers counted: ${client.stats().unknownId}, not ${abandoned.length}`
    )
    yield* check(client.stats().pending === 0, `pending left: ${client.stats().pending}`)
    const cancelled = framesWith(frames, "notifications/cancelled").map((f) =>
      (f.params as { requestId: unknown })
        .requestId
    )
    yield* check(
      JSON.stringify([...cancelled].sort()) === JSON.stringify(abandoned.map((f) => f.id).sort()),
      `cancelled ${JSON.stringify(cancelled)} for abandoned ${JSON.stringify(abandoned.map((f) => f.id))}`
    )
  }).pipe(
    Effect.scoped,
    Effect.provide(TestClock.layer()),
    // The reader logs every skipped line (bounded per batch); hundreds of runs of that would bury the report.
    Effect.provideService(References.MinimumLogLevel, "Error")
  )

describe("Request id properties (in-memory peer)", () => {
  it("ids never collide under concurrency, expiry and interruption; each caller gets its own answer", () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Fate>("answer", "answer", "expire", "interrupt"), { minLength: 1, maxLength: 64 }),
        fc.nat({ max: 32 }),
        fc.array(fc.nat({ max: 1_000 }), { minLength: 1, maxLength: 96 }),
        (fates, secondWave, order) => Effect.runPromise(run(fates, secondWave, order))
      ),
      { numRuns: 100 }
    ))
})
