/**
 * Issue 26, item 1: the ledger never reports a count it has not finished discovering. A server whose `prompts/list`
 * is slow is `ready` with its tools, and its line says `prompts: listing…` until the prompts are listed; then the
 * count appears, and `snapshots` sees the change (it is not a state transition).
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { always, build, fleetSpawner, until } from "./fleetPeers.ts"

const tools = { tools: [{ name: "t", inputSchema: { type: "object" } }] }

describe("a server whose prompts/list is slow", () => {
  it.effect("is ready with 'prompts: listing…', never without the count; the count follows on snapshots", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const asked = yield* Deferred.make<void>()
      const { layer } = fleetSpawner({
        docs: always({
          initialize: { capabilities: { tools: {}, resources: {}, prompts: {} } },
          onRequest: (msg, peer) => {
            switch (msg.method) {
              case "tools/list":
                return Effect.succeed(tools)
              case "resources/list":
                return Effect.succeed({ resources: [{ uri: "docs://a", name: "a" }] })
              case "resources/templates/list":
                return Effect.succeed({ resourceTemplates: [] })
              case "prompts/list":
                // Answered only once the test releases it, on a fiber of its own: the peer keeps serving.
                return Deferred.succeed(asked, undefined).pipe(
                  Effect.andThen(Deferred.await(release)),
                  Effect.andThen(peer.send({ jsonrpc: "2.0", id: msg.id, result: { prompts: [{ name: "p" }] } })),
                  Effect.forkDetach,
                  Effect.as(undefined)
                )
              default:
                return Effect.succeed(undefined)
            }
          }
        })
      })
      const manager = yield* build({ servers: { docs: { command: "docs" } } }, layer)
      yield* manager.waitForReady("docs")
      yield* Deferred.await(asked)
      // Ready, its resources listed, its prompts not: the line marks them pending rather than leave them out.
      const listed = yield* until(manager, "docs", (h) => h.resources !== undefined)
      assert.deepStrictEqual(listed.listing, ["prompts"])
      assert.strictEqual(listed.prompts, undefined)
      assert.strictEqual(
        manager.statusLines().split("\n")[1],
        "docs: ready · 1 tool (0 curated, 1 external) · prompts: listing… · 1 resource"
      )
      yield* Deferred.succeed(release, undefined)
      const done = yield* until(manager, "docs", (h) => h.prompts !== undefined)
      assert.strictEqual(done.listing, undefined)
      assert.strictEqual(
        manager.statusLines().split("\n")[1],
        "docs: ready · 1 tool (0 curated, 1 external) · 1 prompt · 1 resource"
      )
    }))

  it.effect("a failed listing says 'not listed' rather than leaving the kind out", () =>
    Effect.gen(function*() {
      const { layer } = fleetSpawner({
        docs: always({
          initialize: { capabilities: { tools: {}, prompts: {} } },
          onRequest: (msg) =>
            Effect.succeed(
              msg.method === "tools/list" ? tools : msg.method === "prompts/list" ? { prompts: 7 } : undefined
            )
        })
      })
      const manager = yield* build({ servers: { docs: { command: "docs" } } }, layer)
      yield* manager.waitForReady("docs")
      const failed = yield* until(manager, "docs", (h) => h.listErrors?.prompts !== undefined)
      assert.strictEqual(failed.listing, undefined)
      assert.strictEqual(
        manager.statusLines().split("\n")[1],
        "docs: ready · 1 tool (0 curated, 1 external) · prompts: not listed"
      )
    }))
})
