/**
 * Fault suite, in-memory peer: servers whose pagination never ends or loops.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect } from "effect"
import { controlledPeer } from "../peers.ts"
import { cursorOf, failureOf, framesWith } from "./helpers.ts"

const page = (name: string, nextCursor?: string) => ({
  tools: [{ name, inputSchema: { type: "object" } }],
  ...(nextCursor === undefined ? {} : { nextCursor })
})

describe("Fault: pagination (in-memory peer)", () => {
  it.effect("a cursor cycle a → b → c → a fails with RepeatedCursor after exactly 3 requests", () =>
    Effect.gen(function*() {
      const next: Record<string, string> = { start: "a", a: "b", b: "c", c: "a" }
      const { frames, layer } = yield* controlledPeer({
        onRequest: (msg) => {
          const cursor = cursorOf(msg.params) ?? "start"
          return Effect.succeed(page(`tool-${cursor}`, next[cursor]))
        }
      })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.listTools()))
      assert.strictEqual(error._tag, "RepeatedCursor")
      if (error._tag === "RepeatedCursor") assert.strictEqual(error.page, 4)
      assert.deepStrictEqual(framesWith(frames, "tools/list").map((f) => cursorOf(f.params)), [
        undefined,
        "a",
        "b",
        "c"
      ])
      assert.isTrue(client.isAlive(), "a bad list does not end the connection")
    }))

  it.effect("maxPages lowers the cap: the page after the last allowed one is never requested", () =>
    Effect.gen(function*() {
      let n = 0
      const { frames, layer } = yield* controlledPeer({
        onRequest: () => Effect.sync(() => page(`t${n}`, `c${++n}`))
      })
      const client = yield* McpClient.make({ command: "server", maxPages: 3 }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.listTools()))
      assert.strictEqual(error._tag, "PageCapExceeded")
      if (error._tag === "PageCapExceeded") assert.strictEqual(error.pages, 3)
      assert.strictEqual(framesWith(frames, "tools/list").length, 3)
    }))
})
