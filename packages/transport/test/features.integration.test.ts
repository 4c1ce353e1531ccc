/**
 * The client features over stdio against the real fake server (`features` mode): resources, a blob read to bytes,
 * a subscription's update, prompts, completion, and `logging/setLevel` answered by a log entry that arrives both as
 * an Effect log entry (annotated) and on the typed stream; `report_progress` under a deadline shorter than the
 * call, kept alive by its progress. Waits on events only.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeServer } from "@mcp-fleet/testing"
import { McpClient, Resources } from "@mcp-fleet/transport"
import { Deferred, Effect, Exit, Fiber, Logger, Option, References, Stream } from "effect"

const fake = () => {
  const { args, command, env } = FakeServer.command({ modes: ["features"] })
  return McpClient.make({ command, args, env, name: "fake" })
}

describe("client features over stdio (fake server)", () => {
  it.live("resources, blob bytes, subscribe → updated, prompts, completion", () =>
    Effect.gen(function*() {
      const client = yield* fake()
      yield* client.awaitReady
      const { resources } = yield* client.listResources()
      assert.deepStrictEqual(resources.map((r) => r.uri), ["fake://text", "fake://blob"])
      const { resourceTemplates } = yield* client.listResourceTemplates()
      assert.deepStrictEqual(resourceTemplates.map((t) => t.uriTemplate), ["fake://item/{name}"])
      const blob = yield* client.readResource("fake://blob")
      assert.deepStrictEqual([...(yield* Resources.contentBytes("fake", blob.contents[0]!))], [0, 1, 2, 3, 4, 255])
      const updated = yield* Effect.forkChild(Stream.runHead(client.resourceUpdates("fake://text")), {
        startImmediately: true
      })
      yield* client.subscribeResource("fake://text")
      assert.deepStrictEqual(yield* Fiber.join(updated), Option.some({ uri: "fake://text" }))
      const prompt = yield* client.getPrompt("greet", { who: "Ada" })
      assert.deepStrictEqual(prompt.messages.map((m) => m.content["text"]), ["Hello, Ada!"])
      const completed = yield* client.complete({ type: "ref/prompt", name: "greet" }, { name: "who", value: "al" })
      assert.deepStrictEqual(completed.completion.values, ["alice", "alan"])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("setLogLevel: the server's entry is an annotated Effect log entry and a stream item", () =>
    Effect.gen(function*() {
      const logged: Array<{ level: string; message: unknown; logger: unknown }> = []
      const seen = Deferred.makeUnsafe<void>()
      const logger = Logger.make(({ fiber, logLevel, message }) => {
        const annotations = fiber.getRef(References.CurrentLogAnnotations)
        if (annotations["mcpLogLevel"] === undefined) return
        logged.push({ level: logLevel, message, logger: annotations["logger"] })
        Deferred.doneUnsafe(seen, Exit.void)
      })
      yield* Effect.gen(function*() {
        const client = yield* fake()
        yield* client.awaitReady
        const entry = yield* Effect.forkChild(Stream.runHead(client.logMessages), { startImmediately: true })
        yield* client.setLogLevel("warning")
        const streamed = yield* Fiber.join(entry)
        assert.strictEqual(Option.getOrThrow(streamed).data, "log level set to warning")
        yield* Deferred.await(seen)
        assert.deepStrictEqual(logged, [{
          level: "Warn",
          message: ["log level set to warning"],
          logger: "fake-mcp-server"
        }])
        assert.strictEqual(client.stats().logMessages, 1)
      }).pipe(Effect.scoped, Effect.provide(Logger.layer([logger])))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("report_progress: 8 steps of 150 ms under a 600 ms deadline complete, every report first", () =>
    Effect.gen(function*() {
      const client = yield* fake()
      yield* client.awaitReady
      const steps: Array<number> = []
      const result = yield* client.callTool("report_progress", { steps: 8, interval: 150 }, {
        timeout: "600 millis",
        resetTimeoutOnProgress: true,
        onProgress: (p) => Effect.sync(() => steps.push(p.progress))
      })
      assert.deepStrictEqual(result.structuredContent, { steps: 8 })
      assert.deepStrictEqual(steps, [1, 2, 3, 4, 5, 6, 7, 8])
      assert.strictEqual(client.stats().progressDelivered, 8)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
