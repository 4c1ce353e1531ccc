/**
 * Server → client requests answered by the client's handlers, over the session layer (an in-memory transport):
 * capabilities derived from the handlers, roots and their change notification, and every way a handler can go
 * wrong (failure, defect, timeout, cancellation, a method without a handler) ending in a reply, never in a dead
 * connection.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation, Roots, Sampling } from "@mcp-fleet/transport"
import { Deferred, Effect, Stream } from "effect"
import { TestClock } from "effect/testing"
import { memoryPeer } from "./memoryTransport.ts"
import type { MemoryPeer } from "./memoryTransport.ts"

const text = (t: string): Sampling.CreateMessageResult => ({
  role: "assistant",
  content: { type: "text", text: t },
  model: "scripted",
  stopReason: "endTurn"
})

const sampling: Sampling.Service = { createMessage: () => Effect.succeed(text("hi")) }

/** A ping answered next proves the connection still reads and nothing else was sent before it. */
const stillAlive = (peer: MemoryPeer, id: string) =>
  Effect.gen(function*() {
    yield* peer.deliver({ jsonrpc: "2.0", id, method: "ping" })
    const reply = yield* peer.next
    assert.deepStrictEqual(reply, { jsonrpc: "2.0", id, result: {} })
    assert.isTrue(peer.session.isAlive())
  })

describe("server requests (session, in-memory)", () => {
  it.effect("no handlers: capabilities {} and every request -32601, counted as unhandled", () =>
    Effect.gen(function*() {
      const peer = yield* memoryPeer()
      assert.deepStrictEqual(peer.initialize.params?.["capabilities"], {})
      yield* peer.deliver({ jsonrpc: "2.0", id: 1, method: "roots/list" })
      assert.deepStrictEqual(yield* peer.next, {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32601, message: "Method not found: roots/list" }
      })
      assert.strictEqual(peer.session.stats().handlers?.unhandled, 1)
    }))

  it.effect("capabilities are derived from the handlers present; explicit ones are kept", () =>
    Effect.gen(function*() {
      const roots = yield* Roots.make([])
      const peer = yield* memoryPeer({ roots, sampling, elicitation: Elicitation.acceptDefaults }, {
        experimental: { x: {} }
      })
      assert.deepStrictEqual(peer.initialize.params?.["capabilities"], {
        experimental: { x: {} },
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {} }
      })
      const both = yield* memoryPeer({ elicitation: Elicitation.declineAll })
      assert.deepStrictEqual(both.initialize.params?.["capabilities"], { elicitation: { form: {}, url: {} } })
    }))

  it.effect("a capability not handled is -32601 even when another is (sampling without a handler)", () =>
    Effect.gen(function*() {
      const peer = yield* memoryPeer({ elicitation: Elicitation.acceptDefaults })
      yield* peer.deliver({
        jsonrpc: "2.0",
        id: "s",
        method: "sampling/createMessage",
        params: { messages: [], maxTokens: 1 }
      })
      const reply = yield* peer.next
      assert.strictEqual(reply.error?.code, -32601)
      assert.strictEqual(peer.session.stats().handlers?.unhandled, 1)
      yield* stillAlive(peer, "after")
    }))

  it.effect("roots/list answers the current roots; set() sends roots/list_changed, and the next list is new", () =>
    Effect.gen(function*() {
      const roots = yield* Roots.make([{ uri: "file:///work", name: "work" }])
      const peer = yield* memoryPeer({ roots })
      yield* peer.deliver({ jsonrpc: "2.0", id: 1, method: "roots/list" })
      assert.deepStrictEqual((yield* peer.next).result, { roots: [{ uri: "file:///work", name: "work" }] })
      yield* roots.set(["file:///other"])
      assert.deepStrictEqual(yield* peer.next, { jsonrpc: "2.0", method: "notifications/roots/list_changed" })
      yield* peer.deliver({ jsonrpc: "2.0", id: 2, method: "roots/list" })
      assert.deepStrictEqual((yield* peer.next).result, { roots: [{ uri: "file:///other" }] })
      assert.strictEqual(peer.session.stats().handlers?.answered, 2)
    }))

  it.effect("a root that is not file:// is refused by set and changes nothing", () =>
    Effect.gen(function*() {
      const roots = yield* Roots.make(["file:///a"])
      const error = yield* Effect.flip(roots.set(["file:///b", "https://example.com/x"]))
      assert.strictEqual(error._tag, "InvalidRoot")
      assert.match(error.message, /https:/)
      assert.deepStrictEqual(yield* roots.list, [{ uri: "file:///a" }])
      assert.strictEqual((yield* Effect.flip(Roots.make(["not a uri"])))._tag, "InvalidRoot")
    }))

  it.effect("a handler failure is a -32603 reply (no details sent) and the connection goes on", () =>
    Effect.gen(function*() {
      const peer = yield* memoryPeer({ sampling: { createMessage: () => Effect.fail("the model is down at /srv/x") } })
      yield* peer.deliver({
        jsonrpc: "2.0",
        id: 7,
        method: "sampling/createMessage",
        params: { messages: [{ role: "user", content: { type: "text", text: "q" } }], maxTokens: 5 }
      })
      const reply = yield* peer.next
      assert.deepStrictEqual(reply.error, { code: -32603, message: "The client's sampling handler failed." })
      assert.strictEqual(peer.session.stats().handlers?.failed, 1)
      yield* stillAlive(peer, "p")
    }))

  it.effect("a handler defect is a -32603 reply too, and the connection goes on", () =>
    Effect.gen(function*() {
      const peer = yield* memoryPeer({ roots: { list: Effect.die(new Error("boom")), changes: Stream.empty } })
      yield* peer.deliver({ jsonrpc: "2.0", id: 3, method: "roots/list" })
      assert.deepStrictEqual((yield* peer.next).error, { code: -32603, message: "The client's roots handler failed." })
      assert.strictEqual(peer.session.stats().handlers?.failed, 1)
      yield* stillAlive(peer, "p")
    }))

  it.effect("a slow handler is bounded by its own timeout (TestClock): -32001, and the reader never waited", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const peer = yield* memoryPeer({
        sampling: {
          createMessage: () => Effect.andThen(Deferred.succeed(started, undefined), Effect.never),
          timeout: "2 seconds"
        }
      })
      yield* peer.deliver({
        jsonrpc: "2.0",
        id: "slow",
        method: "sampling/createMessage",
        params: { messages: [], maxTokens: 5 }
      })
      yield* Deferred.await(started)
      // While the handler runs, the connection answers the server's ping: the handler is not on the reader.
      yield* stillAlive(peer, "during")
      yield* TestClock.adjust("1999 millis")
      yield* stillAlive(peer, "not yet")
      yield* TestClock.adjust("1 millis")
      const reply = yield* peer.next
      assert.strictEqual(reply.id, "slow")
      assert.deepStrictEqual(reply.error, {
        code: -32001,
        message: "The client's sampling handler did not answer within 2000 ms."
      })
      assert.strictEqual(peer.session.stats().handlers?.timedOut, 1)
    }))

  it.effect("the server's notifications/cancelled interrupts the handler and no reply is sent", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const peer = yield* memoryPeer({
        sampling: {
          createMessage: () =>
            Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
              Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
            )
        }
      })
      yield* peer.deliver({
        jsonrpc: "2.0",
        id: 9,
        method: "sampling/createMessage",
        params: { messages: [], maxTokens: 1 }
      })
      yield* Deferred.await(started)
      yield* peer.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } })
      yield* Deferred.await(interrupted)
      yield* stillAlive(peer, "after")
      assert.strictEqual(peer.session.stats().handlers?.cancelled, 1)
    }))

  it.effect("sampling: the handler sees the server's name and params; a refusal is the spec's -1", () =>
    Effect.gen(function*() {
      const seen: Array<Sampling.Request> = []
      const peer = yield* memoryPeer({
        sampling: {
          createMessage: (request) => {
            seen.push(request)
            return request.params.systemPrompt === "refuse"
              ? Effect.fail(new Sampling.SamplingRefused({ server: request.server, reason: "not allowed" }))
              : Effect.succeed(text("answer"))
          }
        }
      })
      const params = { messages: [{ role: "user", content: { type: "text", text: "q" } }], maxTokens: 9 }
      yield* peer.deliver({ jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params })
      assert.deepStrictEqual((yield* peer.next).result, { ...text("answer") })
      yield* peer.deliver({
        jsonrpc: "2.0",
        id: 2,
        method: "sampling/createMessage",
        params: { ...params, systemPrompt: "refuse" }
      })
      assert.deepStrictEqual((yield* peer.next).error, {
        code: -1,
        message: "User rejected sampling request: not allowed"
      })
      assert.deepStrictEqual(seen.map((r) => [r.server, r.params.maxTokens]), [["memory", 9], ["memory", 9]])
      yield* peer.deliver({ jsonrpc: "2.0", id: 3, method: "sampling/createMessage", params: { maxTokens: "x" } })
      assert.strictEqual((yield* peer.next).error?.code, -32602)
      assert.deepStrictEqual(peer.session.stats().handlers, {
        answered: 1,
        unhandled: 0,
        invalid: 1,
        refused: 1,
        failed: 0,
        timedOut: 0,
        cancelled: 0
      })
    }))

  it.effect("elicitation: defaults filled before the handler; answers checked against the schema", () =>
    Effect.gen(function*() {
      const seen: Array<Elicitation.Content> = []
      const answers: Array<Elicitation.Answer> = [
        { action: "accept", content: { name: "Ann", age: 41 } },
        { action: "accept", content: { name: "Ann", age: "old" } },
        { action: "decline" },
        { action: "cancel" }
      ]
      const peer = yield* memoryPeer({
        elicitation: {
          form: (request) => {
            seen.push(request.values)
            return Effect.succeed(answers[seen.length - 1]!)
          }
        }
      })
      const params = {
        message: "who are you?",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", default: "John Doe" },
            age: { type: "integer", minimum: 0 },
            verified: { type: "boolean", default: true }
          },
          required: ["name"]
        }
      }
      for (const id of [1, 2, 3, 4]) yield* peer.deliver({ jsonrpc: "2.0", id, method: "elicitation/create", params })
      assert.deepStrictEqual((yield* peer.next).result, { action: "accept", content: { name: "Ann", age: 41 } })
      assert.deepStrictEqual((yield* peer.next).error, {
        code: -32603,
        message: "The client's answer does not match the requested schema."
      })
      assert.deepStrictEqual((yield* peer.next).result, { action: "decline" })
      assert.deepStrictEqual((yield* peer.next).result, { action: "cancel" })
      assert.deepStrictEqual(seen[0], { name: "John Doe", verified: true })
      yield* peer.deliver({
        jsonrpc: "2.0",
        id: 5,
        method: "elicitation/create",
        params: { mode: "url", message: "sign in", elicitationId: "e1", url: "https://example.com/login" }
      })
      assert.deepStrictEqual((yield* peer.next).error, {
        code: -32602,
        message: "This client does not support URL-mode elicitation."
      })
    }))

  it.effect("elicitation URL mode: the handler gets the URL and id; accept carries no content", () =>
    Effect.gen(function*() {
      const urls: Array<Elicitation.UrlRequest> = []
      const peer = yield* memoryPeer({
        elicitation: {
          url: (request) => Effect.sync(() => urls.push(request)).pipe(Effect.as({ action: "accept" as const }))
        }
      })
      assert.deepStrictEqual(peer.initialize.params?.["capabilities"], { elicitation: { url: {} } })
      yield* peer.deliver({
        jsonrpc: "2.0",
        id: 1,
        method: "elicitation/create",
        params: { mode: "url", message: "pay", elicitationId: "e9", url: "https://example.com/pay" }
      })
      assert.deepStrictEqual((yield* peer.next).result, { action: "accept" })
      // `completion` (the server's notifications/elicitation/complete for e9) is an effect: compared apart.
      assert.deepStrictEqual(urls.map(({ completion: _, ...rest }) => rest), [{
        _tag: "Url",
        server: "memory",
        message: "pay",
        elicitationId: "e9",
        url: "https://example.com/pay"
      }])
      assert.isDefined(urls[0]?.completion)
      yield* peer.deliver({
        jsonrpc: "2.0",
        id: 2,
        method: "elicitation/create",
        params: { message: "form?", requestedSchema: { type: "object", properties: {} } }
      })
      assert.strictEqual((yield* peer.next).error?.code, -32602)
    }))
})
