/**
 * Fault suite, in-memory peer over stdio: a server that floods `notifications/message` (issue 15). The burst the
 * rate limit allows becomes log entries; the rest is dropped and counted; calls keep pairing meanwhile.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Deferred, Effect, Exit, Fiber, Logger, References } from "effect"
import { awaitMethod, controlledPeer, echoResult } from "../peers.ts"
import { framesWith } from "./helpers.ts"

const FLOOD = 5_000

describe("Fault: notifications/message flood (in-memory peer, stdio)", () => {
  it.effect("a flood logs at most the burst, counts the rest dropped, and the call inside it still pairs", () =>
    Effect.gen(function*() {
      let logged = 0
      const hundred = Deferred.makeUnsafe<void>()
      const logger = Logger.make(({ fiber }) => {
        if (fiber.getRef(References.CurrentLogAnnotations)["mcpLogLevel"] === undefined) return
        if (++logged === 100) Deferred.doneUnsafe(hundred, Exit.void)
      })
      yield* Effect.gen(function*() {
        const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        yield* client.awaitReady
        const p = yield* peer
        const call = yield* client.callTool("x", {}).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
        yield* awaitMethod(frames, "tools/call", 1)
        const id = framesWith(frames, "tools/call")[0]!.id
        let burst = ""
        for (let i = 0; i < FLOOD; i++) {
          const params = { level: "error", logger: "flood", data: `entry ${i}` }
          burst += `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params })}\n`
          if (i === FLOOD / 2) burst += `${JSON.stringify({ jsonrpc: "2.0", id, result: echoResult("mid-flood") })}\n`
        }
        yield* p.sendRaw(burst)
        assert.isTrue(Exit.isSuccess(yield* Fiber.join(call)), "the answer inside the flood paired")
        yield* p.read
        assert.strictEqual(client.stats().logMessages + client.stats().logMessagesDropped, FLOOD)
        // The default bucket: 100 at once (the clock does not move under TestClock), the rest dropped.
        assert.strictEqual(client.stats().logMessages, 100)
        assert.strictEqual(client.stats().logMessagesDropped, FLOOD - 100)
        yield* Deferred.await(hundred)
        assert.strictEqual(logged, 100, "the admitted entries logged")
      }).pipe(Effect.provide(Logger.layer([logger])))
    }))
})
