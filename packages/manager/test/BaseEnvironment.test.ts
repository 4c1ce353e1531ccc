/**
 * The manager passes the application's `BaseEnvironment` (the transport's) on to every server it spawns, and
 * reads no environment itself (issue 11, item 9).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import { BaseEnvironment } from "@mcp-fleet/transport"
import { Effect, Layer } from "effect"
import { always, fleetSpawner } from "./fleetPeers.ts"

describe("the manager's children get the application's base environment", () => {
  it.effect("a BaseEnvironment provided to the manager's layer reaches every spawn, under the server's env", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ a: always({}), b: always({}) })
      yield* Layer.build(
        McpManager.layer({ servers: { a: { command: "a", env: { HOME: "/a" } }, b: { command: "b" } } }).pipe(
          Layer.provide([layer, BaseEnvironment.layer({ PATH: "/bin", HOME: "/h", OTHER: "x" })])
        )
      )
      assert.deepStrictEqual(spawned.peers.a![0]!.command.options.env, { PATH: "/bin", HOME: "/a" })
      assert.deepStrictEqual(spawned.peers.b![0]!.command.options.env, { PATH: "/bin", HOME: "/h" })
    }))

  it.effect("without one, a server gets exactly its env", () =>
    Effect.gen(function*() {
      const { layer, spawned } = fleetSpawner({ a: always({}) })
      yield* Layer.build(
        McpManager.layer({ servers: { a: { command: "a", env: { K: "v" } } } }).pipe(Layer.provide(layer))
      )
      assert.deepStrictEqual(spawned.peers.a![0]!.command.options.env, { K: "v" })
    }))
})
