/**
 * Fault suite, real processes: a notification flood from a real server while calls proceed.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { fake } from "./helpers.ts"

describe("Fault: notification flood (real fake server)", () => {
  it.live("20 000 notifications while 32 calls proceed: every call pairs, every notification is read", () =>
    Effect.gen(function*() {
      const client = yield* fake({}, { notificationBuffer: 64 })
      yield* client.awaitReady
      const [flood, echoes] = yield* Effect.all([
        client.callTool("notify", { count: 20_000, method: "notifications/tools/list_changed" }),
        Effect.forEach(Array.from({ length: 32 }, (_, i) => i), (i) => client.callTool("echo", { i }), {
          concurrency: "unbounded"
        })
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual(flood.structuredContent, { count: 20_000 })
      echoes.forEach((result, i) => assert.deepStrictEqual(result.structuredContent, { i }))
      // The notify answer follows its notifications on the wire: all of them were read before it.
      assert.strictEqual(client.stats().notifications, 20_000)
      assert.strictEqual(client.stats().pending, 0)
      assert.isTrue(client.isAlive())
    }).pipe(Effect.provide(NodeServices.layer)))
})
