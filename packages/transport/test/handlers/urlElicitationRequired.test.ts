/**
 * `-32042` (URL elicitation required, 2025-11-25) through `McpClient.make` against an in-memory peer: a typed
 * `UrlElicitationRequired` carrying the elicitations when the client cannot complete them; with a URL-mode handler,
 * each one handed to it and the request sent again once; a server that asks again is not looped on; the handler's
 * timeout on the `TestClock`; and `notifications/elicitation/complete` reaching the handler that waits for it.
 */
import { assert, describe, it } from "@effect/vitest"
import { ErrorKind, McpClient, McpError } from "@mcp-fleet/transport"
import type { Elicitation } from "@mcp-fleet/transport"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { failureOf, framesWith, responses } from "../faults/helpers.ts"
import { awaitFrames, awaitMethod, controlledPeer, echoResult } from "../peers.ts"
import type { Message } from "../peers.ts"

const signIn = {
  mode: "url" as const,
  elicitationId: "e-1",
  url: "https://auth.example.com/connect?elicitationId=e-1",
  message: "Authorize access to your files."
}
const pay = { mode: "url" as const, elicitationId: "e-2", url: "https://pay.example.com/x", message: "Pay 1 €." }

const required = (elicitations: ReadonlyArray<unknown>) => ({
  code: -32042,
  message: "This request requires more information.",
  data: { elicitations }
})

/** A peer whose answers to `method` come from `answers`, one per request (the last one repeated). */
const peerAnswering = (
  answers: ReadonlyArray<{ readonly error: unknown } | { readonly result: unknown }>,
  method = "tools/call"
) => {
  let calls = 0
  return controlledPeer({
    onRequest: (msg: Message, peer) =>
      msg.method === method
        ? Effect.andThen(
          peer.send({ jsonrpc: "2.0", id: msg.id, ...answers[Math.min(calls++, answers.length - 1)]! }),
          Effect.succeed(undefined)
        )
        : Effect.succeed(undefined)
  })
}

const accepting = (seen: Array<Elicitation.UrlRequest>): Elicitation.Service => ({
  url: (request) => Effect.sync(() => seen.push(request)).pipe(Effect.as({ action: "accept" as const }))
})

describe("-32042: URL elicitation required", () => {
  it.effect("without a URL handler: UrlElicitationRequired carrying the elicitations, the request sent once", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* peerAnswering([{ error: required([signIn, pay]) }])
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("files", {})))
      assert.instanceOf(error, McpError.UrlElicitationRequired)
      if (!(error instanceof McpError.UrlElicitationRequired)) return
      assert.deepStrictEqual(error.elicitations, [signIn, pay])
      assert.strictEqual(error.outcome, "unhandled")
      assert.strictEqual(error.method, "tools/call")
      assert.strictEqual(error.kind._tag, "CallerFault")
      assert.isFalse(ErrorKind.isRetryable(error))
      assert.isUndefined(ErrorKind.userAction(error), "the server itself stays usable: not NeedsUser")
      assert.strictEqual(
        error.message,
        "MCP server \"server\" needs the user to complete 2 URL elicitation(s) (auth.example.com, pay.example.com) before tools/call can proceed: this client has no URL-mode elicitation handler."
      )
      assert.strictEqual(framesWith(frames, "tools/call").length, 1)
    }))

  it.effect("with a URL handler: each elicitation is handed to it in order, then the request is sent again once", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* peerAnswering([{ error: required([signIn, pay]) }, {
        result: echoResult("done")
      }])
      const seen: Array<Elicitation.UrlRequest> = []
      const client = yield* McpClient.make({ command: "server", handlers: { elicitation: accepting(seen) } }).pipe(
        Effect.provide(layer)
      )
      yield* client.awaitReady
      const result = yield* client.callTool("files", { path: "/" })
      assert.deepStrictEqual(result.content, echoResult("done").content)
      assert.deepStrictEqual(
        seen.map(({ elicitationId, message, server, url }) => ({ server, elicitationId, url, message })),
        [signIn, pay].map(({ elicitationId, message, url }) => ({ server: "server", elicitationId, url, message }))
      )
      const sent = framesWith(frames, "tools/call")
      assert.strictEqual(sent.length, 2)
      assert.deepStrictEqual(sent[1]?.params, sent[0]?.params, "the same request, sent again")
      assert.notStrictEqual(sent[1]?.id, sent[0]?.id)
    }))

  it.effect("a server that asks again after the retry: UrlElicitationRequired (repeated), no third request", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* peerAnswering(
        [{ error: required([signIn]) }, { error: required([pay]) }],
        "resources/read"
      )
      const seen: Array<Elicitation.UrlRequest> = []
      const client = yield* McpClient.make({ command: "server", handlers: { elicitation: accepting(seen) } }).pipe(
        Effect.provide(layer)
      )
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.request("resources/read", { uri: "file:///a" })))
      assert.instanceOf(error, McpError.UrlElicitationRequired)
      if (!(error instanceof McpError.UrlElicitationRequired)) return
      assert.strictEqual(error.outcome, "repeated")
      assert.deepStrictEqual(error.elicitations, [pay], "the elicitations the last answer asked for")
      assert.strictEqual(error.method, "resources/read")
      assert.deepStrictEqual(seen.map((r) => r.elicitationId), ["e-1"])
      assert.strictEqual(framesWith(frames, "resources/read").length, 2, "sent, then retried once: no third time")
    }))

  it.effect("declined or cancelled: UrlElicitationRequired with that outcome, and no retry", () =>
    Effect.gen(function*() {
      for (const action of ["decline", "cancel"] as const) {
        const { frames, layer } = yield* peerAnswering([{ error: required([signIn, pay]) }])
        let asked = 0
        const client = yield* McpClient.make({
          command: "server",
          handlers: { elicitation: { url: () => Effect.sync(() => asked++).pipe(Effect.as({ action })) } }
        }).pipe(Effect.provide(layer))
        yield* client.awaitReady
        const error = failureOf(yield* Effect.exit(client.callTool("files", {})))
        assert.strictEqual(error._tag, "UrlElicitationRequired")
        assert.strictEqual(
          error instanceof McpError.UrlElicitationRequired ? error.outcome : undefined,
          action === "decline" ? "declined" : "cancelled"
        )
        assert.strictEqual(asked, 1, "the second elicitation is not asked once the first is refused")
        assert.strictEqual(framesWith(frames, "tools/call").length, 1)
      }
    }))

  it.effect("a handler that never answers is bounded by its timeout (TestClock): failed, no retry", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* peerAnswering([{ error: required([signIn]) }])
      const started = yield* Deferred.make<void>()
      const client = yield* McpClient.make({
        command: "server",
        handlers: {
          elicitation: {
            url: () => Effect.andThen(Deferred.succeed(started, undefined), Effect.never),
            timeout: "1 minute"
          }
        }
      }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const call = yield* Effect.forkChild(Effect.exit(client.callTool("files", {})), { startImmediately: true })
      yield* Deferred.await(started)
      yield* TestClock.adjust("59 seconds")
      assert.isUndefined(call.pollUnsafe(), "still with the handler before its timeout")
      yield* TestClock.adjust("1 second")
      const error = failureOf(yield* Fiber.join(call))
      assert.strictEqual(error instanceof McpError.UrlElicitationRequired ? error.outcome : undefined, "failed")
      assert.strictEqual(framesWith(frames, "tools/call").length, 1)
    }))

  it.effect("a -32042 that names no URL elicitations stays the server's RemoteError", () =>
    Effect.gen(function*() {
      for (
        const data of [
          undefined,
          { elicitations: [] },
          { elicitations: [{ ...signIn, mode: "form" }] },
          { elicitations: [{ ...signIn, url: "/relative" }] },
          { elicitations: [{ mode: "url", url: signIn.url, message: "m" }] }
        ]
      ) {
        const { layer } = yield* peerAnswering([{ error: { code: -32042, message: "more", data } }])
        const client = yield* McpClient.make({ command: "server", handlers: { elicitation: accepting([]) } }).pipe(
          Effect.provide(layer)
        )
        yield* client.awaitReady
        const error = failureOf(yield* Effect.exit(client.callTool("files", {})))
        assert.strictEqual(error._tag, "RemoteError")
      }
    }))

  it.effect("the retry waits for what the handler waits for: notifications/elicitation/complete of its id", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* peerAnswering([{ error: required([signIn]) }, {
        result: echoResult("done")
      }])
      const waiting = yield* Deferred.make<void>()
      const client = yield* McpClient.make({
        command: "server",
        handlers: {
          elicitation: {
            url: (request) =>
              Deferred.succeed(waiting, undefined).pipe(
                Effect.andThen(request.completion ?? Effect.never),
                Effect.as({ action: "accept" as const })
              )
          }
        }
      }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const call = yield* Effect.forkChild(client.callTool("files", {}), { startImmediately: true })
      yield* Deferred.await(waiting)
      const p = yield* peer
      // Another id, then the completion of ours: only ours completes the wait (unknown ids are ignored).
      yield* p.send({
        jsonrpc: "2.0",
        method: "notifications/elicitation/complete",
        params: { elicitationId: "other" }
      })
      yield* p.send({ jsonrpc: "2.0", id: "ping-1", method: "ping" })
      yield* awaitFrames(frames, () => responses(frames).some((r) => r.id === "ping-1"))
      assert.strictEqual(framesWith(frames, "tools/call").length, 1, "not retried on another id's completion")
      yield* p.send({ jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId: "e-1" } })
      const result = yield* Fiber.join(call)
      assert.deepStrictEqual(result.content, echoResult("done").content)
      yield* awaitMethod(frames, "tools/call", 2)
    }))

  it.effect("elicitation/create in URL mode: the handler's completion follows the server's notification", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({})
      const client = yield* McpClient.make({
        command: "server",
        handlers: {
          elicitation: {
            url: (request) => Effect.as(request.completion ?? Effect.never, { action: "accept" as const })
          }
        }
      }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const p = yield* peer
      yield* p.send({
        jsonrpc: "2.0",
        id: "u",
        method: "elicitation/create",
        params: { mode: "url", message: "pay", elicitationId: "e-9", url: "https://pay.example.com/9" }
      })
      yield* p.send({ jsonrpc: "2.0", id: "ping-1", method: "ping" })
      yield* awaitFrames(frames, () => responses(frames).some((r) => r.id === "ping-1"))
      assert.isFalse(responses(frames).some((r) => r.id === "u"), "no answer before the completion")
      yield* p.send({ jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId: "e-9" } })
      yield* awaitFrames(frames, () => responses(frames).some((r) => r.id === "u"))
      assert.deepStrictEqual(responses(frames).find((r) => r.id === "u")?.result, { action: "accept" })
      assert.strictEqual(client.stats().handlers.answered, 1)
    }))
})
