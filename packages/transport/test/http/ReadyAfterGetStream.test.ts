/**
 * A 2025-11-25 Streamable HTTP session is ready only once `notifications/initialized` is accepted and the server's
 * own stream (the GET) has its first answer. A server that sends a request not tied to one of the client's (the
 * official SDK's `elicitation/create` from a tool) puts it on the GET stream and drops it when none is open: a
 * client that called the tool as soon as `initialize` was answered lost the elicitation, one run in five under load
 * (conformance `elicitation-sep1034-client-defaults`).
 *
 * - a GET held by the server: not ready, and no request of the caller reaches the server, until it is answered;
 * - a GET answered 405: ready at once (under `TestClock`, so the bound cannot be what made it ready);
 * - a GET that never answers: ready after the bound (the request deadline), under `TestClock`;
 * - a server request sent on the GET stream as soon as the caller's first request arrives is answered.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Sleeps } from "@mcp-fleet/testing"
import { Elicitation, McpClient } from "@mcp-fleet/transport"
import { Clock, Effect, Fiber } from "effect"
import type { HttpClient } from "effect/http/HttpClient"
import type { Scope } from "effect/Scope"
import { TestClock } from "effect/testing"
import type * as Http from "node:http"
import type { Recorded } from "./HttpPeer.ts"
import { callResult, event, json, openSse, serve } from "./HttpPeer.ts"
import { mcpPeer } from "./mcpPeer.ts"

const live = <A, E>(body: Effect.Effect<A, E, Scope | HttpClient>) =>
  body.pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici))

/** Waits for a real event, with a hang guard on the live clock (an event that never comes fails, not hangs). */
const guarded = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutOrElse(effect, {
    duration: "20 seconds",
    orElse: () => Effect.die(new Error("the awaited event did not happen"))
  })

const isGet = (r: Recorded) => r.method === "GET"
const isPost = (method: string) => (r: Recorded) => r.method === "POST" && r.message?.method === method
const indexOf = (requests: ReadonlyArray<Recorded>, check: (r: Recorded) => boolean) => requests.findIndex(check)

/** A server that holds its GET's answer until the test releases it (the response, to open as an event stream). */
const heldGet = () => {
  const held: Array<Http.ServerResponse> = []
  const { handler } = mcpPeer({
    override: (request, res) => {
      if (request.method !== "GET") return false
      held.push(res)
      return true
    }
  })
  return { handler, held }
}

describe("Streamable HTTP: ready once the GET stream has answered (2025-11-25)", () => {
  it.live("a held GET: not ready and no request of the caller sent until it is answered; then in order", () =>
    live(Effect.gen(function*() {
      const { handler, held } = heldGet()
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({ url: peer.url, transport: "http", protocol: "legacy" })
      // The caller's first request, made as soon as the client says it is ready.
      const listing = yield* Effect.andThen(client.awaitReady, client.listTools()).pipe(
        Effect.forkChild({ startImmediately: true })
      )
      yield* guarded(peer.waitFor(isGet))
      assert.strictEqual(client.readiness()._tag, "Starting", "not ready while the GET waits for its answer")
      assert.strictEqual(indexOf(peer.requests, isPost("tools/list")), -1, "no request of the caller before it")
      assert.isUndefined(listing.pollUnsafe(), "the caller still waits")

      openSse(held[0]!)
      const { tools } = yield* guarded(Fiber.join(listing))
      assert.deepStrictEqual(tools.map((t) => t.name), ["echo"])
      const order = [isPost("initialize"), isPost("notifications/initialized"), isGet, isPost("tools/list")]
        .map((check) => indexOf(peer.requests, check))
      assert.deepStrictEqual(order, [0, 1, 2, 3], "initialize, notifications/initialized, GET, then tools/list")
      held[0]!.end()
    })))

  it.effect("a GET answered 405: ready at once, the stream given up (TestClock: no bound can elapse)", () =>
    Effect.gen(function*() {
      const { handler } = mcpPeer({})
      const peer = yield* serve(handler)
      const sleeps = yield* Sleeps.make
      const client = yield* McpClient.http({ url: peer.url, transport: "http", protocol: "legacy" }).pipe(
        Effect.provideService(Clock.Clock, sleeps.clock)
      )
      yield* Sleeps.awaitEvent(client.awaitReady)
      assert.strictEqual(peer.requests.filter(isGet).length, 1)
      assert.strictEqual(client.serverStream(), "the server offers no GET stream (HTTP 405)")
      const { tools } = yield* Sleeps.awaitEvent(client.listTools())
      assert.deepStrictEqual(tools.map((t) => t.name), ["echo"])
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))

  it.effect("a GET that never answers: ready once the bound (the request deadline) has passed, not before", () =>
    Effect.gen(function*() {
      const BOUND_MS = 7_000
      const { handler, held } = heldGet()
      const peer = yield* serve(handler)
      const sleeps = yield* Sleeps.make
      const client = yield* McpClient.http({
        url: peer.url,
        transport: "http",
        protocol: "legacy",
        requestTimeout: `${BOUND_MS} millis`
      }).pipe(Effect.provideService(Clock.Clock, sleeps.clock))
      yield* Sleeps.awaitEvent(peer.waitFor(isGet))
      yield* TestClock.adjust(BOUND_MS - 1)
      assert.strictEqual(client.readiness()._tag, "Starting", "not ready 1 ms before the bound")
      yield* TestClock.adjust(1)
      yield* Sleeps.awaitEvent(client.awaitReady)
      const { tools } = yield* Sleeps.awaitEvent(client.listTools())
      assert.deepStrictEqual(tools.map((t) => t.name), ["echo"])
      assert.lengthOf(held, 1, "the GET still waits: the session went on without it")
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))

  it.live("a server request sent on the GET stream when the caller's first request arrives is answered", () =>
    live(Effect.gen(function*() {
      // As the official SDK server: the request goes on the GET stream, and is dropped when none is open.
      let stream: Http.ServerResponse | undefined
      let call: { readonly id: unknown; readonly res: Http.ServerResponse } | undefined
      let dropped = 0
      const { handler } = mcpPeer({
        override: (request, res) => {
          if (request.method === "GET") {
            openSse(res)
            stream = res
            return true
          }
          const message = request.message
          if (message?.method === "tools/call") {
            call = { id: message.id, res }
            if (stream === undefined) {
              dropped++
              return true // the call is never answered
            }
            stream.write(event({
              event: "message",
              data: JSON.stringify({
                jsonrpc: "2.0",
                id: "ask-1",
                method: "elicitation/create",
                params: {
                  mode: "form",
                  message: "Your name?",
                  requestedSchema: {
                    type: "object",
                    properties: { name: { type: "string", default: "Ada" } }
                  }
                }
              })
            }))
            return true
          }
          if (message?.id === "ask-1" && call !== undefined) {
            res.writeHead(202).end()
            const answer = (message as { readonly result?: { readonly content?: { readonly name?: string } } }).result
            json(call.res, callResult(call.id, `hello ${answer?.content?.name}`))
            return true
          }
          return false
        }
      })
      const peer = yield* serve(handler)
      const client = yield* McpClient.http({
        url: peer.url,
        transport: "http",
        protocol: "legacy",
        handlers: { elicitation: Elicitation.acceptDefaults }
      })
      // Called as soon as the client says it is ready: the GET stream is open by then.
      yield* guarded(client.awaitReady)
      const called = yield* guarded(client.callTool("greet", {}, { timeout: "1 hour" }))
      assert.deepStrictEqual(called.content, [{ type: "text", text: "hello Ada" }])
      assert.strictEqual(dropped, 0)
      stream?.end()
    })))
})
