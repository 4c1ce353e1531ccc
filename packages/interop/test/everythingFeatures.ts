/**
 * server-everything's resources, templates, prompts, completion, subscriptions, logging and progress, checked
 * through the typed client methods (issue 15). Written once over the feature methods, run over each transport.
 */
import { assert } from "@effect/vitest"
import type { Features, McpError, Protocol, ProtocolFeatures } from "@mcp-fleet/transport"
import { Resources } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Fiber, Option, Stream } from "effect"

/** What the scenario needs of a client: the feature methods, and `callTool` with progress options. */
export interface Client extends Features.Features {
  readonly callTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: Features.FeatureOptions
  ) => Effect.Effect<Protocol.CallToolResult, McpError.CallToolError>
}

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

/** Every resource and template listed and read; every prompt rendered; completion; logging/setLevel. */
export const resourcesPromptsCompletion = (
  server: string,
  client: Client
): Effect.Effect<{ readonly resources: number; readonly templates: number }, unknown> =>
  Effect.gen(function*() {
    const listed = yield* client.listResources()
    assert.deepStrictEqual(listed.skipped, [])
    assert.isAbove(listed.resources.length, 0)
    for (const resource of listed.resources) {
      const read = yield* client.readResource(resource.uri)
      assert.isAbove(read.contents.length, 0, resource.uri)
      for (const content of read.contents) {
        assert.isAbove((yield* Resources.contentBytes(server, content)).length, 0, resource.uri)
      }
    }
    const templates = yield* client.listResourceTemplates()
    const uriTemplates = templates.resourceTemplates.map((t) => t.uriTemplate)
    assert.includeMembers(uriTemplates, [
      "demo://resource/dynamic/text/{resourceId}",
      "demo://resource/dynamic/blob/{resourceId}"
    ])
    const text = yield* client.readResource("demo://resource/dynamic/text/1")
    assert.isString(text.contents[0]?.["text"])
    const blob = yield* client.readResource("demo://resource/dynamic/blob/1")
    assert.isString(blob.contents[0]?.["blob"])
    assert.isAbove((yield* Resources.contentBytes(server, blob.contents[0]!)).length, 0)

    const prompts = yield* client.listPrompts()
    assert.deepStrictEqual(prompts.prompts.map((p) => p.name).sort(), [
      "args-prompt",
      "completable-prompt",
      "resource-prompt",
      "simple-prompt"
    ])
    const args: Record<string, Record<string, string>> = {
      "args-prompt": { city: "Paris" },
      "completable-prompt": { department: "Engineering", name: "Alice" },
      "resource-prompt": { resourceType: "Text", resourceId: "1" },
      "simple-prompt": {}
    }
    for (const prompt of prompts.prompts) {
      const rendered = yield* client.getPrompt(prompt.name, args[prompt.name])
      assert.isAbove(rendered.messages.length, 0, prompt.name)
    }
    const departments = yield* client.complete(
      { type: "ref/prompt", name: "completable-prompt" },
      { name: "department", value: "S" }
    )
    assert.deepStrictEqual([...departments.completion.values].sort(), ["Sales", "Support"])
    const team = yield* client.complete(
      { type: "ref/prompt", name: "completable-prompt" },
      { name: "name", value: "" },
      { arguments: { department: "Engineering" } }
    )
    assert.isAbove(team.completion.values.length, 0)
    yield* client.setLogLevel("debug")
    return { resources: listed.resources.length, templates: uriTemplates.length }
  })

/** Subscribe to a resource, have the server send updates, see one for that URI on its stream. */
export const subscribeAndUpdate = (client: Client): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const uri = "demo://resource/dynamic/text/1"
    const update = yield* Effect.forkChild(Stream.runHead(client.resourceUpdates(uri)), { startImmediately: true })
    yield* client.subscribeResource(uri)
    yield* client.callTool("toggle-subscriber-updates", {})
    const seen = yield* Fiber.join(update)
    assert.isTrue(Option.isSome(seen))
    assert.strictEqual(Option.getOrThrow(seen).uri, uri)
    yield* client.callTool("toggle-subscriber-updates", {})
    yield* client.unsubscribeResource(uri)
  })

/**
 * `trigger-long-running-operation` (2 s, 8 steps) under a 1 s timeout: it completes because each report resets
 * the deadline, every report before the result. Then the same with `maxTotalTimeout` 1 s: a RequestTimeout.
 */
export const progress = (client: Client): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const seen: Array<ProtocolFeatures.Progress> = []
    const result = yield* client.callTool("trigger-long-running-operation", { duration: 2, steps: 8 }, {
      timeout: "1 second",
      resetTimeoutOnProgress: true,
      onProgress: (report) => Effect.sync(() => seen.push(report))
    })
    assert.include(JSON.stringify(result.content), "Long running operation completed")
    assert.deepStrictEqual(seen.map((p) => p.progress), [1, 2, 3, 4, 5, 6, 7, 8])
    assert.strictEqual(seen[0]?.total, 8)
    const capped = yield* Effect.exit(client.callTool("trigger-long-running-operation", { duration: 4, steps: 16 }, {
      timeout: "1 second",
      resetTimeoutOnProgress: true,
      maxTotalTimeout: "1500 millis",
      onProgress: () => Effect.void
    }))
    const error = failureOf(capped)
    assert.strictEqual(error._tag, "RequestTimeout")
    assert.strictEqual(error._tag === "RequestTimeout" ? error.timeoutMs : 0, 1500)
  })
