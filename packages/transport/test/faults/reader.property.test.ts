/**
 * Property tests of the client's reader, through an in-memory peer under TestClock: arbitrary bytes on stdout
 * never crash the reader, never settle a call, and never leak a pending entry — a real answer that follows
 * them still pairs, and the pending count returns to 0.
 */
import { describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Exit, Fiber, References } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { awaitMethod, controlledPeer, echoResult } from "../peers.ts"
import { hostilePart } from "./arbitraries.ts"
import { framesWith } from "./helpers.ts"

const check = (condition: boolean, what: string): Effect.Effect<void> =>
  condition ? Effect.void : Effect.die(new Error(what))

/** One run: a pending call, hostile chunks, a newline, then the real answer. */
const hostileThenAnswer = (chunks: ReadonlyArray<Uint8Array>, maxMessageBytes: number) =>
  Effect.gen(function*() {
    const { frames, layer, peer } = yield* controlledPeer({
      onRequest: (msg) => Effect.succeed(msg.method === "ping" ? {} : undefined)
    })
    const client = yield* McpClient.make({ command: "server", requestTimeout: "1 hour", maxMessageBytes }).pipe(
      Effect.provide(layer)
    )
    yield* client.awaitReady
    const p = yield* peer
    const call = yield* client.callTool("t", { n: 1 }).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
    yield* awaitMethod(frames, "tools/call", 1)
    const id = framesWith(frames, "tools/call")[0]!.id
    for (const chunk of chunks) yield* p.sendRaw(chunk)
    yield* check(call.pollUnsafe() === undefined, "hostile bytes settled the pending call")
    yield* check(client.isAlive(), "hostile bytes ended the connection")
    yield* p.sendRaw("\n") // ends whatever unfinished line the bytes left
    yield* p.send({ jsonrpc: "2.0", id, result: echoResult("real") })
    const exit = yield* Fiber.join(call)
    yield* check(
      Exit.isSuccess(exit) && exit.value.content[0]?.text === JSON.stringify("real"),
      `the real answer did not pair: ${String(exit)}`
    )
    yield* client.ping() // the reader is still reading, the writer still writing
    yield* check(client.stats().pending === 0, `pending left: ${client.stats().pending}`)
    yield* check(client.isAlive(), "the connection ended")
  }).pipe(
    Effect.scoped,
    Effect.provide(TestClock.layer()),
    // The reader logs every skipped line (bounded per batch); hundreds of runs of that would bury the report.
    Effect.provideService(References.MinimumLogLevel, "Error")
  )

describe("Reader properties (in-memory peer)", () => {
  it("arbitrary bytes never crash the reader or leak a pending call; a real answer still pairs", () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(hostilePart, { maxLength: 40 }),
        fc.constantFrom(256, 4096, 4 * 1024 * 1024),
        (chunks, maxMessageBytes) => Effect.runPromise(hostileThenAnswer(chunks, maxMessageBytes))
      ),
      { numRuns: 150 }
    ))
})
