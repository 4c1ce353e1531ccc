/**
 * Issue 16's done-when: one manager, `protocol` left at its default (`auto`), runs four servers of both eras side
 * by side — the fake server over stdio (legacy), `@modelcontextprotocol/server` 2.4.0 modern-only over stdio
 * (`serveStdio`, `legacy: "reject"`), the fake over Streamable HTTP (legacy) and the v2 SDK modern-only over HTTP —
 * and `health()` and the status lines say each era. Calls work on all; list changes reach `onToolsChanged` once per
 * real change on each (the modern ones through `subscriptions/listen`); the same elicitation handler answers the
 * modern servers' MRTR `confirm` (`input_required`) and the legacy servers' `elicitation/create` requests.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { FakeHttpServer, FakeServer } from "@mcp-fleet/testing"
import type { Elicitation } from "@mcp-fleet/transport"
import { Context, Effect, Layer, Queue } from "effect"
import * as HttpPeers from "../src/HttpPeers.ts"
import * as V2Stdio from "../src/V2Stdio.ts"

const textOf = (result: { readonly content: ReadonlyArray<{ readonly [k: string]: unknown }> }) =>
  result.content.map((c) => (typeof c.text === "string" ? c.text : "")).join("\n")
const generations = (change: ManagerOptions.ToolsChange) =>
  change.tools.map((t) => t.name).filter((n) => n.startsWith("generation_"))

describe("one manager, both eras (auto)", { timeout: 60_000 }, () => {
  it.live("legacy and modern stdio, legacy and modern HTTP: eras in health and status, calls, list changes, MRTR", () =>
    Effect.gen(function*() {
      const legacyHttp = yield* FakeHttpServer.start([])
      const modernHttp = yield* HttpPeers.start("v2-modern")
      const names = ["legacy-stdio", "modern-stdio", "legacy-http", "modern-http"] as const
      const queues = {
        "legacy-stdio": yield* Queue.unbounded<ManagerOptions.ToolsChange>(),
        "modern-stdio": yield* Queue.unbounded<ManagerOptions.ToolsChange>(),
        "legacy-http": yield* Queue.unbounded<ManagerOptions.ToolsChange>(),
        "modern-http": yield* Queue.unbounded<ManagerOptions.ToolsChange>()
      }
      const stdio = FakeServer.command({})
      const modernStdio = V2Stdio.command("reject")
      // One elicitation handler for every server: it confirms.
      const handlers = {
        elicitation: {
          form: () => Effect.succeed({ action: "accept", content: { confirm: true } } satisfies Elicitation.Answer)
        }
      }
      const context = yield* Layer.build(
        McpManager.layer({
          servers: {
            "legacy-stdio": { command: stdio.command, args: stdio.args, env: stdio.env },
            "modern-stdio": modernStdio,
            "legacy-http": { url: legacyHttp.url },
            "modern-http": { url: modernHttp.url }
          },
          handlers,
          onToolsChanged: (change) => {
            const queue = queues[change.server as (typeof names)[number]]
            return queue === undefined ? Effect.void : Queue.offer(queue, change).pipe(Effect.asVoid)
          }
        }).pipe(Layer.provide([NodeServices.layer, NodeHttpClient.layerUndici]))
      )
      const manager = Context.get(context, McpManager.McpManager)
      yield* Effect.forEach(names, (name) => manager.waitForReady(name), { concurrency: "unbounded" })

      const eras = yield* Effect.forEach(names, (name) => manager.serverHealth(name))
      assert.deepStrictEqual(eras.map((h) => [h.name, h.protocol]), [
        ["legacy-stdio", { era: "legacy", version: "2025-11-25" }],
        ["modern-stdio", { era: "modern", version: "2026-07-28" }],
        ["legacy-http", { era: "legacy", version: "2025-11-25" }],
        ["modern-http", { era: "modern", version: "2026-07-28" }]
      ])
      const status = manager.statusLines().split("\n")
      for (const name of names) {
        const line = status.find((l) => l.includes(name))
        assert.isDefined(line, name)
        assert.strictEqual(line?.includes("modern 2026-07-28"), name.startsWith("modern"), `${name}: ${line}`)
      }

      // Calls on every server.
      assert.include(textOf(yield* manager.call("legacy-stdio", "echo", { a: 1 })), "\"a\":1")
      assert.strictEqual(textOf(yield* manager.call("modern-stdio", "echo", { text: "ho" })), "ho")
      assert.include(textOf(yield* manager.call("legacy-http", "echo", { b: 2 })), "\"b\":2")
      assert.strictEqual(textOf(yield* manager.call("modern-http", "echo", { text: "hi" })), "hi")

      // Each server's first listing, then one onToolsChanged per real change.
      for (const name of names) assert.deepStrictEqual(generations(yield* Queue.take(queues[name])), [])
      // (The fake keeps only the newest generation_<N> tool; the v2 fixture keeps them all.)
      for (const name of names) {
        for (const n of [1, 2]) {
          yield* manager.call(name, "change_tools", {})
          assert.strictEqual(generations(yield* Queue.take(queues[name])).at(-1), `generation_${n}`, name)
        }
      }
      for (const name of names) assert.strictEqual(yield* Queue.size(queues[name]), 0, `${name}: no extra change`)

      // MRTR: the modern servers ask for a confirmation (input_required); the handler accepts it.
      for (const name of ["modern-stdio", "modern-http"] as const) {
        assert.strictEqual(textOf(yield* manager.call(name, "confirm", { what: name })), `confirmed ${name}`)
      }
      // The legacy era's way: the server sends elicitation/create; the same handler answers it.
      const ask = {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Confirm?",
          requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } } }
        }
      }
      for (const name of ["legacy-stdio", "legacy-http"] as const) {
        const answered = yield* manager.call(name, "server_request", ask)
        assert.deepInclude(
          answered.structuredContent,
          { result: { action: "accept", content: { confirm: true } } },
          name
        )
      }
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
