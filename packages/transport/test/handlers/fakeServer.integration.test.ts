/**
 * Server → client requests against the real fake server (a child process): its `server_request` tool sends
 * `roots/list`, `elicitation/create` and `sampling/createMessage` to the client and answers with the client's
 * reply, so each check reads what the server received. Over every transport that runs on the session.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeHttpServer } from "@mcp-fleet/testing"
import type { ClientHandlers, Sampling } from "@mcp-fleet/transport"
import { Elicitation, McpClient, Roots } from "@mcp-fleet/transport"
import { Effect, Layer, Predicate } from "effect"
import type { Scope } from "effect"
import type { HttpClient } from "effect/http"
import type { ChildProcessSpawner } from "effect/process"

const layer = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)

/** A ready client of a fresh fake server over `transport`. */
type Connect = (
  handlers: ClientHandlers.ClientHandlers
) => Effect.Effect<
  McpClient.McpClient,
  unknown,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | HttpClient.HttpClient
>

const transports: ReadonlyArray<readonly [string, Connect]> = [
  ["http", (handlers) =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.start()
      const client = yield* McpClient.make({ url: server.url, transport: "http", name: "fake", handlers })
      yield* client.awaitReady
      return client
    })]
]

/** What the server received back for one request it sent: `{ id, result }` or `{ id, error }`. */
const ask = (client: McpClient.McpClient, method: string, params?: object) =>
  Effect.map(
    client.callTool("server_request", { method, ...(params === undefined ? {} : { params }) }),
    (result) => {
      const reply = Predicate.isObject(result.structuredContent) ? result.structuredContent : {}
      const error = reply["error"]
      return {
        result: reply["result"],
        code: typeof error === "object" && error !== null && "code" in error ? error.code : undefined
      }
    }
  )

for (const [transport, connect] of transports) {
  describe(`handlers against the fake server (${transport})`, { timeout: 30_000 }, () => {
    it.live("roots, elicitation with defaults, sampling: each answered; an undeclared method is -32601", () =>
      Effect.gen(function*() {
        const roots = yield* Roots.make([{ uri: "file:///srv/data", name: "data" }])
        const sampling: Sampling.Service = {
          createMessage: (request) =>
            Effect.succeed({
              role: "assistant",
              content: { type: "text", text: `for ${request.server}: ${request.params.maxTokens}` },
              model: "scripted"
            })
        }
        const client = yield* connect({ roots, sampling, elicitation: Elicitation.acceptDefaults })
        assert.deepStrictEqual((yield* ask(client, "roots/list")).result, {
          roots: [{ uri: "file:///srv/data", name: "data" }]
        })
        const elicited = yield* ask(client, "elicitation/create", {
          message: "defaults?",
          requestedSchema: { type: "object", properties: { n: { type: "integer", default: 7 } } }
        })
        assert.deepStrictEqual(elicited.result, { action: "accept", content: { n: 7 } })
        const sampled = yield* ask(client, "sampling/createMessage", { messages: [], maxTokens: 12 })
        assert.deepStrictEqual(sampled.result, {
          role: "assistant",
          content: { type: "text", text: "for fake: 12" },
          model: "scripted"
        })
        assert.strictEqual((yield* ask(client, "tasks/list")).code, -32601)
        assert.deepStrictEqual(client.stats().handlers?.answered, 3)
      }).pipe(Effect.scoped, Effect.provide(layer)))
  })
}
