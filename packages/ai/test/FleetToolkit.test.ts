import { assert, describe, it } from "@effect/vitest"
import { FleetToolkit } from "@mcp-fleet/ai"
import { Context, Effect, Fiber, Queue, Stream } from "effect"
import { LanguageModel, Prompt, Tool } from "effect/ai"
import type { Toolkit } from "effect/ai"
import { TestClock } from "effect/testing"
import { finish, fleet, scripted, toolCall } from "./fleet.ts"
import type { ToolSpec } from "./fleet.ts"

const schema = { type: "object", properties: { q: { type: "string" } }, required: ["q"], $ref: "https://x.test/s" }

const read: ToolSpec = {
  tool: {
    name: "read",
    description: "Reads a note.",
    inputSchema: schema,
    annotations: { title: "Read a note", readOnlyHint: true, idempotentHint: true, openWorldHint: false }
  }
}
const write: ToolSpec = {
  tool: { name: "write", inputSchema: { type: "object" }, annotations: { readOnlyHint: false, destructiveHint: false } }
}
const bare: ToolSpec = { tool: { name: "bare", inputSchema: { type: "object" } } }
const boom: ToolSpec = {
  tool: { name: "boom", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  result: () => ({ content: [{ type: "text", text: "disk on fire" }], isError: true })
}

/** Whether the tool carries that annotation at all (a `Context.Reference` reads as its default when absent). */
const carries = (tool: Tool.Any, key: Context.Key<unknown, unknown>) => tool.annotations.mapUnsafe.has(key.key)

const names = (toolkit: Toolkit.WithHandler<FleetToolkit.FleetTools>) => Object.keys(toolkit.tools).sort()

/** Runs one tool through the toolkit's own handler, as `generateText` does. */
const handle = (toolkit: Toolkit.WithHandler<FleetToolkit.FleetTools>, name: string, params: unknown) =>
  Effect.flatMap(toolkit.handle(name, params), Stream.runCollect).pipe(Effect.map((results) => results.at(-1)!))

describe("FleetToolkit", () => {
  it.effect("every ready server's tools, named server__tool, with the server's inputSchema unchanged", () =>
    Effect.gen(function*() {
      const { manager } = yield* fleet({ notes: () => [read, write], other: () => [read], slow: () => undefined })
      yield* manager.waitForReady("notes")
      yield* manager.waitForReady("other")
      const toolkit = yield* FleetToolkit.toolkit(manager)
      assert.deepStrictEqual(names(toolkit), ["notes__read", "notes__write", "other__read"], "slow is still starting")
      const tool = toolkit.tools["notes__read"]!
      assert.deepStrictEqual(Tool.getJsonSchema(tool), schema, "sent to the model as the server wrote it")
      assert.strictEqual(tool.description, "Reads a note.")
    }))

  it.effect("MCP annotations map to Tool annotations when present; absent ones stay absent", () =>
    Effect.gen(function*() {
      const { manager } = yield* fleet({ notes: () => [read, write, bare] })
      yield* manager.waitForReady("notes")
      const { tools } = yield* FleetToolkit.toolkit(manager)
      const r = tools["notes__read"]!
      assert.strictEqual(Context.getOrUndefined(r.annotations, Tool.Title), "Read a note")
      assert.isTrue(Context.get(r.annotations, Tool.Readonly))
      assert.isTrue(Context.get(r.annotations, Tool.Idempotent))
      assert.isFalse(Context.get(r.annotations, Tool.OpenWorld))
      assert.isFalse(carries(r, Tool.Destructive), "read said nothing about destructiveHint")
      // A hint the server sent as false is present and false; an absent one is absent (a Context.Reference reads
      // false for both, so presence is asserted: the tri-state true / false / absent must survive).
      assert.isTrue(carries(r, Tool.OpenWorld), "read said openWorldHint: false")
      const w = tools["notes__write"]!
      assert.isTrue(carries(w, Tool.Readonly), "write said readOnlyHint: false")
      assert.isFalse(Context.get(w.annotations, Tool.Readonly))
      assert.isTrue(carries(w, Tool.Destructive), "write said destructiveHint: false")
      assert.isFalse(Context.get(w.annotations, Tool.Destructive))
      const b = tools["notes__bare"]!
      for (const key of [Tool.Title, Tool.Readonly, Tool.Destructive, Tool.Idempotent, Tool.OpenWorld]) {
        assert.isFalse(carries(b, key), `bare carries ${key.key}`)
      }
      assert.isFalse(Context.get(b.annotations, Tool.Strict), "server schemas are not held to strict mode")
    }))

  it.effect("isError, a manager error and non-object arguments are tool results for the model, never a failed turn", () =>
    Effect.gen(function*() {
      const { calls, manager, peers } = yield* fleet({ notes: () => [read, boom], gone: () => [bare] })
      yield* manager.waitForReady("notes")
      yield* manager.waitForReady("gone")
      // A toolkit built while `gone` was ready, used after it went offline (a turn already under way).
      const toolkit = yield* FleetToolkit.toolkit(manager)
      const offline = yield* manager.changes.pipe(
        Stream.filter((c) => c.server === "gone" && c.to === "offline"),
        Stream.runHead,
        Effect.forkChild({ startImmediately: true })
      )
      yield* peers["gone"]![0]!.exit(1)
      const change = yield* Fiber.join(offline)
      const model = scripted([() => [
        toolCall("1", "notes__read", { q: "x" }),
        toolCall("2", "notes__boom", {}),
        toolCall("3", "gone__bare", {}),
        toolCall("4", "notes__read", ["not", "an", "object"]),
        finish("tool-calls")
      ]])
      const response = yield* LanguageModel.generateText({ prompt: "go", toolkit }).pipe(Effect.provide(model.layer))
      const results = Object.fromEntries(response.toolResults.map((r) => [r.id, r]))
      assert.isFalse(results["1"]!.isFailure)
      assert.deepStrictEqual(results["1"]!.result, { text: `notes:{"q":"x"}`, files: [] })
      assert.isTrue(results["2"]!.isFailure)
      assert.strictEqual(results["2"]!.result, "disk on fire")
      assert.isTrue(results["3"]!.isFailure)
      const unavailable = yield* Effect.flip(manager.call("gone", "bare", {}))
      assert.strictEqual(results["3"]!.result, unavailable.message, "the manager's own sentence")
      assert.include(unavailable.message, "gone")
      assert.isTrue(results["4"]!.isFailure)
      assert.strictEqual(results["4"]!.result, "The arguments of notes__read must be a JSON object.")
      // The calls run concurrently: compare them in a fixed order.
      assert.deepStrictEqual(
        calls.map((c) => c.params).sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? 1 : -1),
        [
          { name: "read", arguments: { q: "x" } },
          { name: "boom", arguments: {} }
        ],
        "the bad arguments never reached the server"
      )
      assert.isDefined(change)
    }))

  it.effect("text, resource links, embedded resources, images, audio and structuredContent reach the model", () =>
    Effect.gen(function*() {
      const media: ToolSpec = {
        tool: { name: "media", inputSchema: { type: "object" } },
        result: () => ({
          content: [
            { type: "text", text: "two files" },
            { type: "image", data: "aW1n", mimeType: "image/png" },
            { type: "audio", data: "YXVk", mimeType: "audio/wav" },
            { type: "resource_link", uri: "file:///n/a.md", name: "a.md", description: "A note" },
            { type: "resource", resource: { uri: "file:///n/b.md", text: "body of b" } },
            { type: "resource", resource: { uri: "file:///n/c.bin", blob: "Ymlu", mimeType: "application/x-c" } }
          ],
          structuredContent: { count: 2 }
        })
      }
      const { manager } = yield* fleet({ notes: () => [media] })
      yield* manager.waitForReady("notes")
      const result = yield* handle(yield* FleetToolkit.toolkit(manager), "notes__media", {})
      assert.isFalse(result.isFailure)
      assert.deepStrictEqual(result.result, {
        text: "two files\na.md: file:///n/a.md\nA note\nbody of b",
        files: [
          { mediaType: "image/png", data: "aW1n" },
          { mediaType: "audio/wav", data: "YXVk" },
          { mediaType: "application/x-c", data: "Ymlu", fileName: "c.bin" }
        ],
        structuredContent: { count: 2 }
      })
      assert.deepStrictEqual(result.modelOutput, [
        Prompt.textPart({ text: "two files\na.md: file:///n/a.md\nA note\nbody of b" }),
        Prompt.filePart({ mediaType: "image/png", data: "aW1n" }),
        Prompt.filePart({ mediaType: "audio/wav", data: "YXVk" }),
        Prompt.filePart({ mediaType: "application/x-c", data: "Ymlu", fileName: "c.bin" })
      ])
    }))

  it.effect("live: a tool list change and a server going offline show on the next turn, with no rebuild", () =>
    Effect.gen(function*() {
      let notesTools: ReadonlyArray<ToolSpec> = [read]
      const { manager, peers } = yield* fleet({ notes: () => notesTools, other: () => [bare] }, {
        reconnect: { maxAttempts: 0 }
      })
      yield* manager.waitForReady("notes")
      yield* manager.waitForReady("other")
      const toolkit = FleetToolkit.toolkit(manager) // an Effect: read at every turn
      const model = scripted([])
      const turn = LanguageModel.generateText({ prompt: "hi", toolkit }).pipe(Effect.provide(model.layer))
      const offered = () => model.seen.at(-1)!.tools.map((t) => t.name).sort()

      yield* turn
      assert.deepStrictEqual(offered(), ["notes__read", "other__bare"])

      // notes changes its tool set: the next turn has the new tool.
      const refreshed = yield* manager.snapshots.pipe(
        Stream.filter((hs) => hs.some((h) => h.name === "notes" && h.tools.length === 2)),
        Stream.runHead,
        Effect.forkChild({ startImmediately: true })
      )
      notesTools = [read, write]
      yield* peers["notes"]![0]!.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      yield* Fiber.join(refreshed)
      yield* turn
      assert.deepStrictEqual(offered(), ["notes__read", "notes__write", "other__bare"])

      // other goes offline: the next turn no longer offers its tool.
      const offline = yield* manager.changes.pipe(
        Stream.filter((c) => c.server === "other" && c.to === "offline"),
        Stream.runHead,
        Effect.forkChild({ startImmediately: true })
      )
      yield* peers["other"]![0]!.exit(1)
      yield* Fiber.join(offline)
      yield* turn
      assert.deepStrictEqual(offered(), ["notes__read", "notes__write"])

      // and comes back after a restart.
      yield* manager.restart("other")
      yield* manager.waitForReady("other")
      yield* turn
      assert.deepStrictEqual(offered(), ["notes__read", "notes__write", "other__bare"])
    }))

  it.effect("names are sanitised and shortened deterministically; a collision is reported, not fatal", () =>
    Effect.gen(function*() {
      const long = "x".repeat(80)
      const spaced: ToolSpec = { tool: { name: "read file", inputSchema: { type: "object" } } }
      const longTool: ToolSpec = { tool: { name: long, inputSchema: { type: "object" } } }
      const { manager } = yield* fleet({ "my.notes": () => [spaced, longTool], other: () => [read], zed: () => [read] })
      yield* manager.waitForReady("my.notes")
      yield* manager.waitForReady("other")
      yield* manager.waitForReady("zed")
      const first = yield* FleetToolkit.snapshot(manager)
      const all = first.tools.map((t) => t.name)
      assert.include(all, "my_notes__read_file")
      const shortened = all.find((n) => n.startsWith("my_notes__xxx"))!
      assert.strictEqual(shortened.length, 64)
      assert.match(shortened, /^[a-zA-Z0-9_-]{1,64}$/)
      assert.deepStrictEqual((yield* FleetToolkit.snapshot(manager)).tools.map((t) => t.name), all, "same every time")
      // A user naming that drops the server: `read` of other and of zed collide; other keeps it (name order).
      const byTool = yield* FleetToolkit.snapshot(manager, { naming: (_, tool) => tool })
      assert.deepStrictEqual(
        byTool.collisions.map((c) => [c.name, c.server, c.keptBy.server]),
        [["read", "zed", "other"]]
      )
      assert.includeMembers(Object.keys(byTool.toolkit.tools), ["read", "read_file"], "the rest is unaffected")
      assert.lengthOf(Object.keys(byTool.toolkit.tools), 3)
    }))

  it.effect("filters: by server, a curated list, and read-only only", () =>
    Effect.gen(function*() {
      const { manager } = yield* fleet({ notes: () => [read, write, bare, boom], other: () => [read, bare] })
      yield* manager.waitForReady("notes")
      yield* manager.waitForReady("other")
      const kit = (options: FleetToolkit.Options) => Effect.map(FleetToolkit.toolkit(manager, options), names)
      assert.deepStrictEqual(yield* kit({ servers: ["other"] }), ["other__bare", "other__read"])
      assert.deepStrictEqual(
        yield* kit({ only: [{ server: "notes", tool: "write" }, { server: "other", tool: "read" }] }),
        ["notes__write", "other__read"]
      )
      assert.deepStrictEqual(yield* kit({ filter: FleetToolkit.readOnly }), [
        "notes__boom",
        "notes__read",
        "other__read"
      ])
      assert.deepStrictEqual(yield* kit({ servers: ["notes"], filter: FleetToolkit.readOnly }), [
        "notes__boom",
        "notes__read"
      ])
    }))

  it.effect("validateArguments (opt-in): bad arguments go back to the model; an uncompilable schema is reported, not fetched", () =>
    Effect.gen(function*() {
      const strict: ToolSpec = {
        tool: {
          name: "strict",
          inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] }
        }
      }
      const draft07: ToolSpec = {
        tool: {
          name: "old",
          inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", required: ["n"] }
        }
      }
      const remote: ToolSpec = { tool: { name: "remote", inputSchema: { $ref: "https://schemas.example/tool.json" } } }
      const { calls, manager } = yield* fleet({ notes: () => [strict, draft07, remote] })
      yield* manager.waitForReady("notes")
      const checked = yield* FleetToolkit.snapshot(manager, { validateArguments: true })
      assert.deepStrictEqual(checked.unvalidated.map((u) => u.name), ["notes__remote"])
      assert.include(checked.unvalidated[0]!.reason, "https://schemas.example/tool.json")
      const bad = yield* handle(checked.toolkit, "notes__strict", { q: 1 })
      assert.isTrue(bad.isFailure)
      assert.strictEqual(
        bad.result,
        "The arguments of notes__strict do not match its input schema: arguments/q must be string."
      )
      assert.isTrue((yield* handle(checked.toolkit, "notes__old", {})).isFailure, "draft-07 required is checked")
      assert.lengthOf(calls, 0, "nothing invalid reached the server")
      assert.isFalse((yield* handle(checked.toolkit, "notes__strict", { q: "x" })).isFailure)
      assert.isFalse((yield* handle(checked.toolkit, "notes__remote", { any: 1 })).isFailure, "offered anyway")
      assert.lengthOf(calls, 2)
      // Without the option the server is the judge.
      const plain = yield* FleetToolkit.snapshot(manager)
      assert.lengthOf(plain.unvalidated, 0)
      assert.isFalse((yield* handle(plain.toolkit, "notes__strict", { q: 1 })).isFailure)
      assert.lengthOf(calls, 3)
    }))

  it.effect("callTimeout bounds each call; the timeout goes back to the model as its message", () =>
    Effect.gen(function*() {
      const stuck: ToolSpec = { tool: { name: "stuck", inputSchema: { type: "object" } }, hang: true }
      const { arrived, manager } = yield* fleet({ notes: () => [stuck] })
      yield* manager.waitForReady("notes")
      const toolkit = yield* FleetToolkit.toolkit(manager, { callTimeout: "2 seconds" })
      const pending = yield* handle(toolkit, "notes__stuck", {}).pipe(Effect.forkChild({ startImmediately: true }))
      yield* Queue.take(arrived) // the call reached the server
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(pending.pollUnsafe(), "still waiting before its deadline")
      yield* TestClock.adjust("1 milli")
      const result = yield* Fiber.join(pending)
      assert.isTrue(result.isFailure)
      assert.strictEqual(result.result, `MCP server "notes" did not answer tools/call within 2000 ms.`)
    }))
})
