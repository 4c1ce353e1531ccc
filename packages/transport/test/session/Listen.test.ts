import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import { TestClock } from "effect/testing"
import { ProcessExited, RemoteError, type RequestError } from "../../src/McpError.ts"
import * as Listen from "../../src/session/Listen.ts"

/** A listener whose `send` is held open until the test settles `answer`; `sent` and `interrupted` are latches. */
const harness = Effect.gen(function*() {
  const sent = yield* Deferred.make<unknown>()
  const answer = yield* Deferred.make<unknown, RequestError>()
  const interrupted = yield* Deferred.make<void>()
  // The id of the last listen sent: its acknowledgement names it.
  let id = 0
  const listener = Listen.make({
    server: "s",
    send: (params, onId) =>
      Effect.suspend(() => {
        onId(++id)
        return Deferred.succeed(sent, params)
      }).pipe(
        Effect.andThen(Deferred.await(answer)),
        Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
      )
  })
  const ack = (notifications: unknown) =>
    listener.observe({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications, _meta: { [Listen.SUBSCRIPTION_ID]: id } }
    })
  return { sent, answer, interrupted, listener, ack }
})

describe("Listen", () => {
  it.effect("sends the filter, resolves with the honoured subset on the ack, and closing the scope cancels it", () =>
    Effect.gen(function*() {
      const h = yield* harness
      const scope = yield* Scope.make()
      const opening = yield* h.listener.open({ toolsListChanged: true, promptsListChanged: true }, 1000).pipe(
        Scope.provide(scope),
        Effect.forkChild
      )
      assert.deepStrictEqual(yield* Deferred.await(h.sent), {
        notifications: { toolsListChanged: true, promptsListChanged: true }
      })
      // Another notification is not the start.
      h.listener.observe({ method: "notifications/tools/list_changed", params: {} })
      h.ack({ toolsListChanged: true, bogus: 1, resourceSubscriptions: ["a://b", 3] })
      const listening = yield* Fiber.join(opening)
      assert.deepStrictEqual(listening.honoured, { toolsListChanged: true, resourceSubscriptions: ["a://b"] })
      assert.isFalse(yield* Deferred.isDone(h.interrupted))
      yield* Scope.close(scope, Exit.void)
      yield* Deferred.await(h.interrupted)
    }))

  it.effect("no acknowledgement within the timeout is ListenFailed no-ack (TestClock), and the request is cancelled", () =>
    Effect.gen(function*() {
      const h = yield* harness
      const opening = yield* h.listener.open({ toolsListChanged: true }, 5000).pipe(
        Effect.scoped,
        Effect.flip,
        Effect.forkChild
      )
      yield* Deferred.await(h.sent)
      yield* TestClock.adjust(4999)
      assert.isUndefined(opening.pollUnsafe())
      yield* TestClock.adjust(1)
      const failed = yield* Fiber.join(opening)
      assert.strictEqual(failed.reason, "no-ack")
      yield* Deferred.await(h.interrupted)
      // A late ack is ignored.
      h.ack({ toolsListChanged: true })
    }))

  it.effect("a JSON-RPC error before the ack is refused; an answer before it is ended", () =>
    Effect.gen(function*() {
      const refused = yield* harness
      const r = yield* refused.listener.open({}, 1000).pipe(Effect.scoped, Effect.flip, Effect.forkChild)
      yield* Deferred.await(refused.sent)
      yield* Deferred.fail(
        refused.answer,
        new RemoteError({ server: "s", method: "subscriptions/listen", code: -32601, remoteMessage: "nope" })
      )
      assert.strictEqual((yield* Fiber.join(r)).reason, "refused")

      const ended = yield* harness
      const e = yield* ended.listener.open({}, 1000).pipe(Effect.scoped, Effect.flip, Effect.forkChild)
      yield* Deferred.await(ended.sent)
      yield* Deferred.succeed(ended.answer, {})
      assert.strictEqual((yield* Fiber.join(e)).reason, "ended")
    }))

  it.effect("after the ack, `ended` reports a graceful end or a drop", () =>
    Effect.gen(function*() {
      const graceful = yield* harness
      yield* Effect.scoped(Effect.gen(function*() {
        const opening = yield* graceful.listener.open({ toolsListChanged: true }, 1000).pipe(Effect.forkChild)
        yield* Deferred.await(graceful.sent)
        graceful.ack({ toolsListChanged: true })
        const listening = yield* Fiber.join(opening)
        yield* Deferred.succeed(graceful.answer, {})
        assert.deepStrictEqual(yield* listening.ended, { _tag: "Ended" })
      }))
      const dropped = yield* harness
      yield* Effect.scoped(Effect.gen(function*() {
        const opening = yield* dropped.listener.open({ toolsListChanged: true }, 1000).pipe(Effect.forkChild)
        yield* Deferred.await(dropped.sent)
        dropped.ack({ toolsListChanged: true })
        const listening = yield* Fiber.join(opening)
        const gone = new ProcessExited({ server: "s", code: 1, signal: null, stderrTail: [] })
        yield* Deferred.fail(dropped.answer, gone)
        const end = yield* listening.ended
        assert.strictEqual(end._tag, "Dropped")
      }))
    }))
})
