/**
 * server-everything's resources, templates, prompts, completion, subscribe/update and progress through the typed
 * client (issue 15), over stdio and over Streamable HTTP (the session layer both share). Every process is checked
 * gone once its scope has closed.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mcp-fleet/transport"
import { Effect, Layer } from "effect"
import * as HttpPeers from "../src/HttpPeers.ts"
import * as Scenario from "./everythingFeatures.ts"
import { withServer } from "./support.ts"

const layer = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)

const withEverything = <A, E>(use: (client: McpClient.McpClient) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const peer = yield* HttpPeers.start("everything-streamable")
    const client = yield* McpClient.http({ url: peer.url, transport: "http", name: "everything" })
    yield* client.awaitReady
    return yield* use(client)
  }).pipe(Effect.scoped, Effect.provide(layer))

describe("server-everything features over Streamable HTTP", { timeout: 60_000 }, () => {
  it.live("every resource and template read, every prompt rendered, completion, logging/setLevel", () =>
    withEverything((client) =>
      Effect.map(Scenario.resourcesPromptsCompletion("everything", client), (counts) => {
        assert.isAbove(counts.resources, 0)
      })
    ))

  it.live("resource subscribe: an update for that URI arrives on its stream", () =>
    withEverything(Scenario.subscribeAndUpdate))

  it.live("long-running operation: progress resets a shorter deadline; maxTotalTimeout cuts it off", () =>
    withEverything(Scenario.progress))
})

const overStdio = <A, E>(use: (client: McpClient.McpClient) => Effect.Effect<A, E>) =>
  withServer("everything", ({ client }) => Effect.andThen(client.awaitReady, use(client))).pipe(
    Effect.map((closed) => {
      assert.isFalse(closed.processLeft, "the server process is gone")
      return closed.result
    }),
    Effect.provide(NodeServices.layer)
  )

describe("server-everything features over stdio", { timeout: 60_000 }, () => {
  it.live("every resource and template read, every prompt rendered, completion, logging/setLevel", () =>
    overStdio((client) => Scenario.resourcesPromptsCompletion("everything", client)))

  it.live("resource subscribe: an update for that URI arrives on its stream", () =>
    overStdio(Scenario.subscribeAndUpdate))

  it.live("long-running operation: progress resets a shorter deadline; maxTotalTimeout cuts it off", () =>
    overStdio(Scenario.progress))
})
