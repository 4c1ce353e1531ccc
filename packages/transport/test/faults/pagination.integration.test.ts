/**
 * Fault suite, real processes: `tools-list-endless`, a server whose every page has a fresh `nextCursor`.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { failureOf, fake } from "./helpers.ts"

describe("Fault: pagination (real fake server)", () => {
  it.live("tools-list-endless fails with PageCapExceeded at the 20-page cap; the client stays usable", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["tools-list-endless"] })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.listTools()))
      assert.strictEqual(error._tag, "PageCapExceeded")
      if (error._tag === "PageCapExceeded") assert.strictEqual(error.pages, 20)
      assert.include(error.message, "not truncated silently")
      assert.strictEqual(client.stats().pending, 0, "no page request left behind")
      const result = yield* client.callTool("echo", { after: "cap" })
      assert.deepStrictEqual(result.structuredContent, { after: "cap" })
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("tools-list-endless with maxPages 5 fails at 5 pages", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["tools-list-endless"] }, { maxPages: 5 })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.listTools()))
      assert.strictEqual(error._tag, "PageCapExceeded")
      if (error._tag === "PageCapExceeded") assert.strictEqual(error.pages, 5)
    }).pipe(Effect.provide(NodeServices.layer)))
})
