/**
 * `subscriptions/listen` over stdio against the fake server's modern era (a real process): resource subscriptions
 * ride on the listen (`resourceSubscriptions`; the fake answers `resources/subscribe` with -32601 in this era), an
 * open listen is renewed when they change, `notifications/resources/updated` reaches `resourceUpdates`, and closing
 * the listen's scope cancels it on the server (`notifications/cancelled`). The fake's `touch` tool says how many
 * listen streams it notified: the server's own count, not a guess. With the fake's `ttl`, every list is answered
 * from the cache within it, and a list_changed on the listen drops its own list.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeServer } from "@mcp-fleet/testing"
import { McpClient, Subscriptions } from "@mcp-fleet/transport"
import { Effect, Exit, Fiber, Scope, Stream } from "effect"

const modern = (ttl?: number) => {
  const { args, command, env } = FakeServer.command({ modes: ["modern"], ttl })
  return McpClient.make({ command, args, env, name: "fake-modern", protocol: "auto" })
}

const touched = (client: McpClient.McpClient, uri: string) =>
  Effect.map(client.callTool("touch", { uri }), (result) => result.structuredContent)

describe("subscriptions/listen over stdio (fake server, modern)", { timeout: 30_000 }, () => {
  it.live("a subscription renews the open listen; updates reach resourceUpdates; closing the scope cancels", () =>
    Effect.gen(function*() {
      const client = yield* modern()
      const session = yield* client.awaitReady
      assert.strictEqual(session.era, "modern")
      const scope = yield* Scope.make()
      const listening = yield* client.listen(Subscriptions.allLists).pipe(Scope.provide(scope))
      assert.deepStrictEqual(listening.honoured, Subscriptions.allLists)
      const ended = yield* Effect.forkChild(listening.ended)
      // Nothing subscribed yet: the server notifies no stream.
      assert.deepStrictEqual(yield* touched(client, "fake://readme"), { sent: 0 })

      yield* client.subscribeResource("fake://readme")
      const update = yield* client.resourceUpdates("fake://readme").pipe(
        Stream.take(1),
        Stream.runCollect,
        Effect.forkChild
      )
      // Exactly one stream has it: the renewed listen; the one it replaced was cancelled.
      assert.deepStrictEqual(yield* touched(client, "fake://readme"), { sent: 1 })
      const [received] = yield* Fiber.join(update)
      assert.strictEqual(received?.uri, "fake://readme")
      // The renewal did not end the listen.
      assert.isUndefined(ended.pollUnsafe())

      yield* client.unsubscribeResource("fake://readme")
      assert.deepStrictEqual(yield* touched(client, "fake://readme"), { sent: 0 })

      yield* client.subscribeResource("fake://other")
      assert.deepStrictEqual(yield* touched(client, "fake://other"), { sent: 1 })
      yield* Scope.close(scope, Exit.void)
      // Closed: notifications/cancelled reached the server, which dropped the stream before the next request.
      assert.deepStrictEqual(yield* touched(client, "fake://other"), { sent: 0 })

      // A listen opened after a subscription carries it from the start.
      const next = yield* client.listen(Subscriptions.allLists)
      assert.deepStrictEqual(next.honoured, { ...Subscriptions.allLists, resourceSubscriptions: ["fake://other"] })
      assert.deepStrictEqual(yield* touched(client, "fake://other"), { sent: 1 })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("every list is cached for its ttlMs; a list_changed on the listen drops its own list only", () =>
    Effect.gen(function*() {
      const client = yield* modern(60_000)
      yield* client.awaitReady
      yield* client.listen(Subscriptions.allLists)
      const lists = Effect.all([client.listTools(), client.listPrompts(), client.listResources()])
      // Requests sent per list method (a list of several pages sends one per page).
      const sent = () => {
        const requests = client.stats().requests
        return [requests["tools/list"] ?? 0, requests["prompts/list"] ?? 0, requests["resources/list"] ?? 0]
      }
      yield* lists
      const first = sent()
      assert.isTrue(first.every((n) => n > 0))
      yield* lists
      assert.deepStrictEqual(sent(), first)
      assert.deepStrictEqual(client.stats().listCache?.lastFromCache, {
        "tools/list": true,
        "prompts/list": true,
        "resources/list": true
      })
      // The change arrives on the listen; its notification is seen (an event) before the lists are asked again.
      const changed = yield* client.notifications.pipe(
        Stream.filter((n) => n.method === "notifications/prompts/list_changed"),
        Stream.take(1),
        Stream.runDrain,
        Effect.forkChild
      )
      yield* client.callTool("change_tools", { list: "prompts" })
      yield* Fiber.join(changed)
      yield* lists
      assert.deepStrictEqual(sent(), [first[0], first[1]! + 1, first[2]])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
