/**
 * Both of the manager's shutdown paths join every fiber of every client (seed constraint 13; issue 11, item 10):
 * when `forceClose` or the layer's scope close returns, each client's reader, writer, stderr, exit, initialize and
 * deadline fibers are done. The servers are processes no signal ends, so no fiber can finish by itself.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import type { FakeSpawner } from "@mcp-fleet/testing"
import { McpPeer } from "@mcp-fleet/testing"
import type { McpClient } from "@mcp-fleet/transport"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { fleetSpawner, toolServer } from "./fleetPeers.ts"

const names = ["a", "b", "c"] as const

const running = (client: McpClient.McpClient) =>
  Object.entries(client.stats().fibersDone).filter(([, done]) => !done).map(([name]) => name)

const stuckFleet = (scope: Scope.Scope) =>
  Effect.gen(function*() {
    const { layer } = fleetSpawner(
      Object.fromEntries(names.map((name) => [name, (_: number, peer: FakeSpawner.Peer) =>
        toolServer(name, () => ["t"], { ignoreEof: true })(peer)]
      )),
      { unkillable: true }
    )
    const context = yield* Layer.build(
      McpManager.layer({
        servers: Object.fromEntries(
          names.map((name) => [name, { command: name, client: { shutdownGrace: 1_000, killGrace: 1_000 } }])
        )
      }).pipe(Layer.provide(layer))
    ).pipe(Scope.provide(scope))
    const manager = Context.get(context, McpManager.McpManager)
    const clients = yield* Effect.forEach(names, (name) =>
      Effect.andThen(manager.waitForReady(name), manager.client(name)))
    for (const client of clients) {
      assert.isNotEmpty(running(client), "the fibers run before the close")
    }
    return { manager, clients }
  })

describe("both manager shutdown paths drain every client's fibers", () => {
  it.effect("forceClose: every fiber of every client is done when it returns", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { clients, manager } = yield* stuckFleet(scope)
      const left = yield* McpPeer.closeWhileClockPasses(manager.forceClose, () => clients.flatMap(running))
      assert.deepStrictEqual(left, [], "fibers still running when forceClose returned")
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("the layer's scope close: every fiber of every client is done when it returns", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { clients } = yield* stuckFleet(scope)
      const left = yield* McpPeer.closeWhileClockPasses(Scope.close(scope, Exit.void), () => clients.flatMap(running))
      assert.deepStrictEqual(left, [], "fibers still running when the scope close returned")
    }))
})
