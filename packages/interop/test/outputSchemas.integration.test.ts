/**
 * server-everything's `get-structured-content` (an `outputSchema` written by zod as draft-07) through the client and
 * through `McpManager`: its `structuredContent` is checked against that schema by default and passes; the check
 * runs on the manager's calls too (its discovery lists the tools).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import { McpClient } from "@mcp-fleet/transport"
import { Context, Effect, Layer } from "effect"
import * as ReferenceServers from "../src/ReferenceServers.ts"

const weather = { temperature: 73, conditions: "Sunny / Clear", humidity: 48 }

describe("server-everything's output schema", { timeout: 60_000 }, () => {
  it.live("McpClient: listed, called, the structuredContent checked against its draft-07 outputSchema", () =>
    Effect.gen(function*() {
      const { args, command, env } = ReferenceServers.command("everything", "/tmp")
      const client = yield* McpClient.make({ command, args, env, name: "everything" })
      yield* client.awaitReady
      const { tools } = yield* client.listTools()
      const tool = tools.find((t) => t.name === "get-structured-content")
      assert.strictEqual(tool?.outputSchema?.["$schema"], "http://json-schema.org/draft-07/schema#")
      const result = yield* client.callTool("get-structured-content", { location: "Los Angeles" })
      assert.deepStrictEqual(result.structuredContent, weather)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("McpManager: the same call, checked", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        McpManager.layer({ servers: { everything: ReferenceServers.command("everything", "/tmp") } }).pipe(
          Layer.provide(NodeServices.layer)
        )
      )
      const manager = Context.get(context, McpManager.McpManager)
      yield* manager.waitForReady("everything")
      const result = yield* manager.call("everything", "get-structured-content", { location: "Los Angeles" })
      assert.deepStrictEqual(result.structuredContent, weather)
    }).pipe(Effect.scoped))
})
