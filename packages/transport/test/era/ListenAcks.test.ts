/**
 * Issue 24, "protocol details": `subscriptions/listen` acknowledgements are matched by the `subscriptionId` they
 * name (the listen request's id). Before, any acknowledgement settled whichever listen was waiting: a late one of a
 * listen the client had given up on, or another one of the listen a renewal replaces, settled the next listen with
 * the wrong filter. Through a session (`session/Open.ts`) over an in-memory modern server, under `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Subscriptions } from "@mcp-fleet/transport"
import { Deferred, Effect, Fiber, Queue } from "effect"
import { TestClock } from "effect/testing"
import { modern, result, type Sent, session } from "./memoryPeer.ts"

const acknowledged = (listen: Sent, notifications: Subscriptions.Filter) => ({
  jsonrpc: "2.0",
  method: "notifications/subscriptions/acknowledged",
  params: { notifications, _meta: { "io.modelcontextprotocol/subscriptionId": listen.id } }
})

describe("subscriptions/listen acknowledgements (issue 24)", () => {
  it.effect("a late acknowledgement of a listen given up does not settle the next listen; its own does", () =>
    Effect.gen(function*() {
      const listens = yield* Queue.unbounded<{ readonly sent: Sent; readonly reply: (message: unknown) => void }>()
      const { client } = yield* session(
        modern((sent, reply) => {
          if (sent.method === "subscriptions/listen") Queue.offerUnsafe(listens, { sent, reply })
          else reply(result(sent, { resultType: "complete" }))
        }),
        { protocol: "modern" }
      )
      yield* client.awaitReady

      // The first listen is never acknowledged in time: given up after its 1 s.
      const first = yield* client.listen({ promptsListChanged: true }, { timeout: "1 second" }).pipe(
        Effect.scoped,
        Effect.flip,
        Effect.forkChild({ startImmediately: true })
      )
      const a = yield* Queue.take(listens)
      yield* TestClock.adjust(1000)
      const given = yield* Fiber.join(first)
      assert.strictEqual(given._tag === "ListenFailed" ? given.reason : given._tag, "no-ack")

      const opened = yield* Deferred.make<Subscriptions.Filter>()
      const second = yield* client.listen({ toolsListChanged: true }).pipe(
        Effect.flatMap((listening) => Deferred.succeed(opened, listening.honoured)),
        Effect.andThen(Effect.never),
        Effect.scoped,
        Effect.forkChild({ startImmediately: true })
      )
      const b = yield* Queue.take(listens)
      assert.notStrictEqual(a.sent.id, b.sent.id)
      // The server acknowledges the first listen late, then the second one: each ack names its listen.
      a.reply(acknowledged(a.sent, { promptsListChanged: true }))
      b.reply(acknowledged(b.sent, { toolsListChanged: true }))
      assert.deepStrictEqual(yield* Deferred.await(opened), { toolsListChanged: true })
      yield* Fiber.interrupt(second)
    }).pipe(Effect.scoped))
})
