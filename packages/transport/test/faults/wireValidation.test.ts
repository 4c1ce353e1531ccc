/**
 * Fault suite, in-memory peer: wire validation gaps (issue 11, items 7 and 8).
 *
 * - A JSON-RPC error `code` must be an integer: `1.5` is an invalid message, which fails its call with
 *   `ProtocolError`.
 * - Two listed tools with the same name: the first is kept, the later one is reported in `skipped` with a reason.
 * - In the legacy protocol era (≤ 2025-11-25) `nextCursor: ""` ends the list, as several real server stacks mean
 *   it. (From 2026-07-28 on, `""` is a cursor like any other: pinned on the eras' `endsList`.)
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Fiber } from "effect"
import * as Era from "../../src/session/Era.ts"
import * as Listen from "../../src/session/Listen.ts"
import { awaitMethod, controlledPeer } from "../peers.ts"
import { cursorOf, failureOf, framesWith } from "./helpers.ts"

const tool = (name: string, description?: string) => ({
  name,
  inputSchema: { type: "object" },
  ...(description === undefined ? {} : { description })
})

describe("Fault: wire validation (in-memory peer)", () => {
  it.effect("an error code of 1.5 is not an integer: the call fails with ProtocolError, not RemoteError", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const call = yield* client.callTool("x").pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* awaitMethod(frames, "tools/call", 1)
      const id = framesWith(frames, "tools/call")[0]!.id
      yield* (yield* peer).send({ jsonrpc: "2.0", id, error: { code: 1.5, message: "half" } })
      const error = failureOf(yield* Fiber.join(call))
      assert.strictEqual(error._tag, "ProtocolError")
      if (error._tag === "ProtocolError") assert.include(error.detail, "integer code")
      assert.strictEqual(client.stats().invalid, 1)
    }))

  it.effect("a duplicate tool name is reported in skipped with a reason; the first occurrence is kept", () =>
    Effect.gen(function*() {
      const pages: Record<string, { tools: unknown; nextCursor?: string }> = {
        start: { tools: [tool("a", "first a"), tool("b"), tool("a", "second a")], nextCursor: "p2" },
        p2: { tools: [tool("c"), tool("b", "second b")] }
      }
      const { layer } = yield* controlledPeer({
        onRequest: (msg) => Effect.succeed(pages[cursorOf(msg.params) ?? "start"])
      })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const list = yield* client.listTools()
      assert.deepStrictEqual(list.tools.map((t) => t.name), ["a", "b", "c"])
      assert.strictEqual(list.tools[0]!.description, "first a")
      assert.deepStrictEqual(list.skipped, [
        { index: 2, name: "a", reason: "another tool named \"a\" was listed before it (index 0); the first is kept" },
        { index: 4, name: "b", reason: "another tool named \"b\" was listed before it (index 1); the first is kept" }
      ])
    }))

  it.effect("legacy era: nextCursor \"\" ends the list after that page (no repeated request, no RepeatedCursor)", () =>
    Effect.gen(function*() {
      const pages: Record<string, { tools: unknown; nextCursor?: string }> = {
        start: { tools: [tool("a")], nextCursor: "p2" },
        p2: { tools: [tool("b")], nextCursor: "" },
        "": { tools: [tool("never")], nextCursor: "" }
      }
      const { frames, layer } = yield* controlledPeer({
        initialize: { protocolVersion: "2025-06-18" },
        onRequest: (msg) => Effect.succeed(pages[cursorOf(msg.params) ?? "start"])
      })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const list = yield* client.listTools()
      assert.deepStrictEqual(list.tools.map((t) => t.name), ["a", "b"])
      assert.strictEqual(list.pages, 2)
      assert.deepStrictEqual(framesWith(frames, "tools/list").map((f) => cursorOf(f.params)), [undefined, "p2"])
      // A second listing behaves the same.
      assert.strictEqual((yield* client.listTools()).pages, 2)
    }))

  it("endsList: an absent cursor always ends a list; \"\" ends it in the legacy era and is a cursor from 2026-07-28", () => {
    const unused = () => Effect.die("not sent")
    const parts: Era.Parts = {
      server: "s",
      send: unused,
      pending: unused,
      client: { clientInfo: { name: "c", version: "1" }, capabilities: {} },
      http: () => false,
      listener: Listen.make({ server: "s", send: unused }),
      toolHeaders: new Map(),
      answer: undefined,
      maxRounds: 1,
      now: () => 0,
      scrub: (text) => text,
      scrubValue: (value) => value
    }
    const session = { serverInfo: { name: "s", version: "1" }, capabilities: {}, instructions: undefined }
    for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
      const legacy = Era.of({ ...session, protocolVersion: version, era: "legacy" }, parts)
      assert.isTrue(legacy.endsList(undefined), version)
      assert.isTrue(legacy.endsList(""), `"" ends a ${version} list`)
      assert.isFalse(legacy.endsList("p2"), version)
    }
    const modern = Era.of({ ...session, protocolVersion: "2026-07-28", era: "modern" }, parts)
    assert.isTrue(modern.endsList(undefined))
    assert.isFalse(modern.endsList(""), "\"\" is a cursor in the 2026-07-28 era")
    assert.isFalse(modern.endsList("p2"))
  })
})
