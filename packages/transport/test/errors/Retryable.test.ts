/**
 * `isRetryable` on every error of the transport: transient errors say `true`, permanent ones `false`, so a caller
 * can write `Effect.retry({ while: (e) => e.isRetryable })`.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpPeer } from "@mcp-fleet/testing"
import { HttpError, McpClient, McpError } from "@mcp-fleet/transport"
import { Deferred, Effect, Exit, Fiber, Schedule } from "effect"
import { TestClock } from "effect/testing"

const server = "s"
const method = "tools/call"

const transient: ReadonlyArray<{ readonly isRetryable: boolean; readonly _tag: string }> = [
  new McpError.ProcessExited({ server, code: 1, signal: null, stderrTail: [] }),
  new McpError.RequestTimeout({ server, method, timeoutMs: 10 }),
  new McpError.RemoteError({ server, method, code: -32001, remoteMessage: "Request timed out" }),
  new McpError.RemoteError({ server, method, code: -32000, remoteMessage: "Connection closed" }),
  new McpError.TooManyInFlight({ server, limit: 1 }),
  new McpError.NotReady({ server, operation: "listTools" }),
  new McpError.ErrIndexBuilding({ server, tool: "t" }),
  new HttpError.ConnectionFailed({ server, method, url: "http://x", reason: "ECONNREFUSED" }),
  new HttpError.HttpStatusError({ server, method, status: 500, detail: "" }),
  new HttpError.HttpStatusError({ server, method, status: 502, detail: "" }),
  new HttpError.HttpStatusError({ server, method, status: 503, detail: "", retryAfter: "1" }),
  new HttpError.HttpStatusError({ server, method, status: 429, detail: "" }),
  new HttpError.HttpStatusError({ server, method, status: 408, detail: "" }),
  new HttpError.SessionExpired({ server, method }),
  new HttpError.StreamEnded({ server, method, reason: "reset" })
]

const permanent: ReadonlyArray<{ readonly isRetryable: boolean; readonly _tag: string }> = [
  new McpError.SpawnError({ server, command: "x", reason: "ENOENT" }),
  new McpError.ClientClosed({ server, reason: "closed" }),
  new McpError.RemoteError({ server, method, code: -32602, remoteMessage: "Unknown tool: t" }),
  new McpError.RemoteError({ server, method, code: -32601, remoteMessage: "Method not found" }),
  new McpError.RemoteError({ server, method, code: -32603, remoteMessage: "Internal error" }),
  new McpError.ProtocolError({ server, method, detail: "bad" }),
  new McpError.PageCapExceeded({ server, method: "tools/list", pages: 100 }),
  new McpError.RepeatedCursor({ server, method: "tools/list", page: 2 }),
  new McpError.MessageTooLarge({ server, method, bytes: 10, limit: 5 }),
  new McpError.MessageTooLarge({ server, method, bytes: 10, limit: 5, encoding: "gzip" }),
  new McpError.UnsupportedProtocolVersion({ server, answered: "1999-01-01", supported: ["2025-11-25"] }),
  new McpError.InvalidParams({ server, method, detail: "cycle" }),
  new McpError.StructuredContentInvalid({ server, tool: "t", detail: "bad" }),
  new McpError.CapabilityNotSupported({ server, method: "prompts/list", capability: "prompts" }),
  new HttpError.HttpStatusError({ server, method, status: 400, detail: "" }),
  new HttpError.HttpStatusError({ server, method, status: 401, detail: "", wwwAuthenticate: "Bearer" }),
  new HttpError.HttpStatusError({ server, method, status: 403, detail: "" }),
  new HttpError.HttpStatusError({ server, method, status: 404, detail: "" }),
  new HttpError.RedirectRefused({ server, method, location: "http://elsewhere" }),
  new HttpError.AuthorizationRequired({ server, method, status: 401, reason: "no prompt" }),
  new HttpError.SessionsForgotten({ server, losses: 4 }),
  new HttpError.InvalidUrl({ server, url: "file:///", reason: "not http" })
]

describe("isRetryable", () => {
  it("is true for every transient error", () => {
    for (const error of transient) assert.isTrue(error.isRetryable, `${error._tag} should be transient`)
  })

  it("is false for every permanent error", () => {
    for (const error of permanent) assert.isFalse(error.isRetryable, `${error._tag} should be permanent`)
  })

  it("covers every error class of the package", () => {
    const tags = new Set([...transient, ...permanent].map((e) => e._tag))
    const classes = [...Object.values(McpError), ...Object.values(HttpError)].filter(
      (value): value is typeof value & { readonly prototype: object } =>
        typeof value === "function" && "prototype" in value
    )
    for (const cls of classes) {
      assert.isTrue(Object.getOwnPropertyDescriptor(cls.prototype, "isRetryable") !== undefined, cls.name)
      assert.isTrue(tags.has(cls.name), `${cls.name} has a case here`)
    }
  })

  it.effect("Effect.retry({ while: isRetryable }) waits out ErrIndexBuilding, then the call succeeds", () =>
    Effect.gen(function*() {
      const { layer, frames, peer } = yield* McpPeer.controlled({
        initialize: "never",
        onRequest: (msg) => Effect.succeed(msg.method === "tools/call" ? McpPeer.echoResult("done") : undefined)
      })
      const client = yield* McpClient.make({ command: "indexer" }).pipe(Effect.provide(layer))
      const firstFailure = yield* Deferred.make<string>()
      let attempts = 0
      const fiber = yield* client.callTool("search", {}).pipe(
        Effect.tapError((e) => Effect.andThen(Effect.sync(() => attempts++), Deferred.succeed(firstFailure, e._tag))),
        Effect.retry({ while: (e) => e.isRetryable, schedule: Schedule.spaced("1 second") }),
        Effect.forkChild
      )
      assert.strictEqual(yield* Deferred.await(firstFailure), "ErrIndexBuilding")
      // The server finishes starting: answer its initialize now.
      const isInitialize = (f: unknown): f is McpPeer.Message =>
        typeof f === "object" && f !== null && "method" in f && f.method === "initialize"
      yield* McpPeer.eventually(() => frames.some(isInitialize), "the initialize request arrived")
      const init = frames.find((f): f is McpPeer.Message =>
        typeof f === "object" && f !== null && "method" in f && f.method === "initialize"
      )!
      const handle = yield* peer
      yield* handle.send({
        jsonrpc: "2.0",
        id: init.id,
        result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "p", version: "1" } }
      })
      yield* client.awaitReady
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "\"done\"" }])
      assert.strictEqual(attempts, 1)
    }))

  it.effect("a timed-out call is retried and the second attempt is answered", () =>
    Effect.gen(function*() {
      let calls = 0
      const arrived = yield* Deferred.make<void>()
      const layer = McpPeer.layer({
        onRequest: (msg) =>
          Effect.gen(function*() {
            if (msg.method !== "tools/call") return undefined
            calls++
            if (calls === 1) {
              yield* Deferred.succeed(arrived, undefined)
              return undefined // the first call is never answered
            }
            return McpPeer.echoResult("second")
          })
      })
      const client = yield* McpClient.make({ command: "slow", requestTimeout: "5 seconds" }).pipe(
        Effect.provide(layer)
      )
      yield* client.awaitReady
      const fiber = yield* client.callTool("t", {}).pipe(
        Effect.retry({ while: (e) => e.isRetryable, schedule: Schedule.spaced("1 second") }),
        Effect.forkChild
      )
      yield* Deferred.await(arrived)
      yield* TestClock.adjust("5 seconds")
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "\"second\"" }])
      assert.strictEqual(calls, 2)
    }))

  it.effect("a permanent error (unknown tool, -32602) is not retried", () =>
    Effect.gen(function*() {
      let calls = 0
      const layer = McpPeer.layer({
        onRequest: (msg, peer) =>
          Effect.gen(function*() {
            if (msg.method !== "tools/call") return undefined
            calls++
            yield* peer.send({ jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: "Unknown tool: t" } })
            return undefined
          })
      })
      const client = yield* McpClient.make({ command: "x" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const exit = yield* client.callTool("t", {}).pipe(
        Effect.retry({ while: (e) => e.isRetryable, schedule: Schedule.spaced("1 second") }),
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(calls, 1)
    }))
})
