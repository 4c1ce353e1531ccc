/**
 * Server → client requests over stdio (the in-memory peer): the same session path as HTTP, so one answered
 * request, one handler failure and one timeout (TestClock) show that the stdio transport carries them.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import type { Sampling } from "@mcp-fleet/transport"
import { Deferred, Effect } from "effect"
import { TestClock } from "effect/testing"
import { responses } from "../faults/helpers.ts"
import { awaitFrames, controlledPeer } from "../peers.ts"

const samplingWith = (slowStarted: Deferred.Deferred<void>): Sampling.Service => ({
  createMessage: (request) =>
    request.params.systemPrompt === "fail"
      ? Effect.fail("model down")
      : request.params.systemPrompt === "slow"
      ? Effect.andThen(Deferred.succeed(slowStarted, undefined), Effect.never)
      : Effect.succeed({ role: "assistant", content: { type: "text", text: "ok" }, model: "m" }),
  timeout: "5 seconds"
})

/** The `error.code` of an answer, if it is an error. */
const codeOf = (answer: Record<string, unknown> | undefined): unknown => {
  const error = answer?.["error"]
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined
}

describe("server requests over stdio (in-memory peer)", () => {
  it.effect("sampling answered, a failure is -32603, a slow handler -32001 at its timeout; the client lives on", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({})
      const slowStarted = yield* Deferred.make<void>()
      const client = yield* McpClient.make({ command: "server", handlers: { sampling: samplingWith(slowStarted) } })
        .pipe(
          Effect.provide(layer)
        )
      yield* client.awaitReady
      const p = yield* peer
      const params = (systemPrompt: string) => ({ messages: [], maxTokens: 1, systemPrompt })
      yield* p.send({ jsonrpc: "2.0", id: "ok", method: "sampling/createMessage", params: params("ok") })
      yield* p.send({ jsonrpc: "2.0", id: "fail", method: "sampling/createMessage", params: params("fail") })
      yield* p.send({ jsonrpc: "2.0", id: "slow", method: "sampling/createMessage", params: params("slow") })
      yield* awaitFrames(frames, () => responses(frames).length === 2)
      yield* Deferred.await(slowStarted)
      yield* TestClock.adjust("5 seconds")
      yield* awaitFrames(frames, () => responses(frames).length === 3)
      const byId = Object.fromEntries(responses(frames).map((r) => [String(r.id), r]))
      assert.deepStrictEqual(byId["ok"]?.["result"], {
        role: "assistant",
        content: { type: "text", text: "ok" },
        model: "m"
      })
      assert.strictEqual(codeOf(byId["fail"]), -32603)
      assert.strictEqual(codeOf(byId["slow"]), -32001)
      assert.isTrue(client.isAlive())
      assert.deepStrictEqual(client.stats().handlers?.answered, 1)
    }))
})
