/**
 * Every message type through the gateway (`@mcp-fleet/gateway` over HTTP, in process), in every pairing of eras:
 * the host (mcp-fleet's own client, `McpClient.http`) speaking 2025-11-25 or 2026-07-28 to the gateway, the gateway
 * speaking 2025-11-25 or 2026-07-28 to the upstream (the conformance fixture, `servers/conformance-upstream.mjs`, its
 * stdio child, the era pinned). Each pairing has one gateway and one host for all its tests.
 *
 * Nothing is silently dropped: lists, calls, progress, log entries, elicitation, sampling and roots (asked of the
 * host as server requests in the 2025 era, as input rounds in 2026-07-28, whichever era the upstream asked in),
 * resources read and subscribed (their updates), prompts, completion, cancellation.
 */
import { NodeHttpClient, NodeHttpServer, NodeServices } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { McpGateway } from "@mcp-fleet/gateway"
import { McpManager } from "@mcp-fleet/manager"
import type { Elicitation, Sampling } from "@mcp-fleet/transport"
import { McpClient, Roots, Subscriptions } from "@mcp-fleet/transport"
import { Context, Deferred, Effect, Fiber, Layer, Option, Stream } from "effect"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const fixture = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers", "conformance-upstream.mjs")

type Era = "legacy" | "modern"

/** The host: mcp-fleet's client in `era`, with handlers that answer recognisably. */
class Host extends Context.Service<Host, McpClient.McpClient>()("test/Host") {}

/** Accepts every form: its defaults, and "from the host" in each other string field it asks for. */
const elicitation: Elicitation.Service = {
  form: (request) =>
    Effect.succeed({
      action: "accept",
      content: {
        ...Object.fromEntries(
          Object.entries(request.requestedSchema.properties).flatMap(([name, field]) =>
            field["type"] === "string" ? [[name, "from the host"]] : []
          )
        ),
        ...request.values
      }
    })
}
const sampling: Sampling.Service = {
  createMessage: () =>
    Effect.succeed({ role: "assistant", content: { type: "text", text: "Paris, said the host" }, model: "host-model" })
}

/** The gateway in front of the fixture (upstream era pinned to `link`), and a host of `era` connected to it. */
const pairing = (era: Era, link: Era) =>
  Layer.effect(
    Host,
    Effect.gen(function*() {
      const manager = yield* McpManager.McpManager
      yield* manager.waitForReady("upstream")
      const address = (yield* HttpServer.HttpServer).address
      const port = "port" in address ? address.port : 0
      const roots = yield* Roots.make(["file:///tmp/mcp-fleet-gateway-root"])
      const client = yield* McpClient.make({
        url: `http://127.0.0.1:${port}/mcp`,
        name: `host-${era}`,
        protocol: era,
        transport: "http",
        logLevel: "debug",
        handlers: { elicitation, sampling, roots }
      })
      yield* client.awaitReady
      return client
    })
  ).pipe(
    Layer.provideMerge(McpGateway.layerHttp()),
    Layer.provideMerge(
      McpGateway.layerFleet({
        servers: { upstream: { command: process.execPath, args: [fixture, "stdio"], client: { protocol: link } } }
      }, { prefix: "conditional" })
    ),
    Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
    Layer.provide(NodeHttpClient.layerUndici),
    Layer.provide(NodeServices.layer)
  )

const textOf = (result: { readonly content: ReadonlyArray<Record<string, unknown>> }) =>
  result.content.map((block) => String(block["text"] ?? "")).join("")

for (const era of ["legacy", "modern"] as const) {
  for (const link of ["legacy", "modern"] as const) {
    describe(`host ${era}, upstream ${link}`, { timeout: 60_000 }, () => {
      layer(pairing(era, link), { timeout: 60_000 })((it) => {
        it.effect("tools/list: the upstream's tools under their own names (conditional prefix, one server), and fleet_status", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const names = (yield* host.listTools()).tools.map((tool) => tool.name)
            assert.include(names, "test_simple_text")
            assert.include(names, "json_schema_2020_12_tool")
            assert.include(names, "fleet_status")
          }))

        it.effect("tools/call: content passes as it came, isError included", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const image = yield* host.callTool("test_image_content", {})
            assert.strictEqual(image.content[0]?.["type"], "image")
            assert.strictEqual(image.content[0]?.["mimeType"], "image/png")
            const failed = yield* host.callTool("test_error_handling", {})
            assert.isTrue(failed.isError)
          }))

        it.effect("progress: each report reaches the host under its own token, before the result", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const seen: Array<number> = []
            const result = yield* host.callTool("test_tool_with_progress", {}, {
              onProgress: (progress) => Effect.sync(() => seen.push(progress.progress))
            })
            assert.deepStrictEqual(seen, [0, 50, 100])
            assert.isFalse(result.isError === true)
          }))

        it.effect("logging: the upstream's entries during a call reach the host", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const three = yield* Effect.forkChild(host.logMessages.pipe(Stream.take(3), Stream.runCollect))
            yield* host.callTool("test_tool_with_logging", {})
            const entries = yield* Fiber.join(three)
            assert.deepStrictEqual(entries.map((entry) => entry.data), [
              "Tool execution started",
              "Tool processing data",
              "Tool execution completed"
            ])
          }))

        it.effect("elicitation: the upstream's question reaches the host, its answer comes back", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const result = yield* host.callTool("test_elicitation", { message: "Who is asking?" })
            assert.include(textOf(result), "action=accept")
            assert.include(textOf(result), "from the host")
          }))

        it.effect("sampling: the upstream's request reaches the host, its completion comes back", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const result = yield* host.callTool("test_sampling", { prompt: "Capital of France?" })
            assert.include(textOf(result), "Paris, said the host")
          }))

        it.effect("roots: the upstream asks for the host's roots", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const result = yield* host.callTool("test_input_required_result_list_roots", {})
            assert.include(textOf(result), "file:///tmp/mcp-fleet-gateway-root")
          }))

        it.effect("several inputs at once (elicitation, sampling, roots) all answered", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const result = yield* host.callTool("test_input_required_result_multiple_inputs", {})
            assert.include(textOf(result), "1 root(s) visible")
          }))

        it.effect("resources: listed, read (direct and through a template), fleet://status readable", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const uris = (yield* host.listResources()).resources.map((resource) => resource.uri)
            assert.include(uris, "test://static-text")
            assert.include(uris, "fleet://status")
            const text = yield* host.readResource("test://static-text")
            assert.strictEqual(text.contents[0]?.["text"], "This is the content of the static text resource.")
            const templated = yield* host.readResource("test://template/42/data")
            assert.include(String(templated.contents[0]?.["text"]), "Data for ID: 42")
            const status = yield* host.readResource("fleet://status")
            assert.include(String(status.contents[0]?.["text"]), "upstream: ready")
          }))

        it.effect("resource subscription: the upstream's update reaches the subscribed host", () =>
          Effect.scoped(Effect.gen(function*() {
            const host = yield* Host
            // A 2026-07-28 host's subscriptions ride on its listen stream: subscribing renews the open one (a new
            // listen with the URI, acknowledged, then the old one closed), which the gateway serves as two streams.
            if (era === "modern") yield* host.listen(Subscriptions.allLists)
            const updated = yield* Deferred.make<void>()
            yield* host.resourceUpdates("test://watched-resource").pipe(
              Stream.runForEach(() => Deferred.succeed(updated, undefined)),
              Effect.forkScoped
            )
            yield* host.subscribeResource("test://watched-resource")
            yield* host.callTool("test_update_resource", {})
            yield* Deferred.await(updated)
            yield* host.unsubscribeResource("test://watched-resource")
          })))

        it.effect("prompts: listed and rendered with arguments; completion answered", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const names = (yield* host.listPrompts()).prompts.map((prompt) => prompt.name)
            assert.include(names, "test_prompt_with_arguments")
            const prompt = yield* host.getPrompt("test_prompt_with_arguments", { arg1: "a", arg2: "b" })
            assert.include(JSON.stringify(prompt.messages), "arg1='a', arg2='b'")
            const completion = yield* host.complete(
              { type: "ref/prompt", name: "test_prompt_with_arguments" },
              { name: "arg1", value: "x" }
            )
            assert.deepStrictEqual(completion.completion.values, [])
          }))

        it.effect("cancellation: the host's cancelled call is cancelled upstream", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const before = Number(textOf(yield* host.callTool("test_cancellations", {})))
            const started = yield* Deferred.make<void>()
            const call = yield* Effect.forkChild(host.callTool("test_wait", { ms: 60_000 }, {
              onProgress: () => Deferred.succeed(started, undefined).pipe(Effect.asVoid)
            }))
            yield* Deferred.await(started)
            yield* Fiber.interrupt(call)
            const after = yield* host.callTool("test_cancellations", { atLeast: before + 1 })
            assert.strictEqual(Number(textOf(after)), before + 1)
          }))

        it.effect("fleet_status: the manager's ledger, as the model reads it", () =>
          Effect.gen(function*() {
            const host = yield* Host
            const status = textOf(yield* host.callTool("fleet_status", {}))
            assert.include(status, "upstream: ready")
            assert.include(status, "gateway: ")
            assert.isTrue(Option.isSome(host.session()))
          }))
      })
    })
  }
}
