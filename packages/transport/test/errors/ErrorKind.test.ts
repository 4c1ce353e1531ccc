/**
 * `kind` on every error of the transport, read through `ErrorKind`: transient errors are retryable, so a caller can
 * write `Effect.retry({ while: ErrorKind.isRetryable })`; the others say whose fault they are (the server's, the
 * configuration's, the caller's) or why the user must act.
 */
import { assert, describe, it } from "@effect/vitest"
import { AuthError } from "@mcp-fleet/auth"
import { McpPeer } from "@mcp-fleet/testing"
import {
  EraError,
  ErrorKind,
  HttpError,
  McpClient,
  McpError,
  Roots,
  Sampling,
  Subscriptions
} from "@mcp-fleet/transport"
import { Deferred, Effect, Exit, Fiber, Schedule } from "effect"
import { TestClock } from "effect/testing"

const server = "s"
const method = "tools/call"

/** Every error class of the package, with the kind each case must carry. */
const table: ReadonlyArray<
  readonly [ErrorKind.Classified & { readonly _tag: string; readonly message: string }, ErrorKind.ErrorKind["_tag"]]
> = [
  [new McpError.ProcessExited({ server, code: 1, signal: null, stderrTail: [] }), "Transient"],
  [new McpError.RequestTimeout({ server, method, timeoutMs: 10 }), "Transient"],
  [new McpError.RemoteError({ server, method, code: -32001, remoteMessage: "Request timed out" }), "Transient"],
  [new McpError.RemoteError({ server, method, code: -32000, remoteMessage: "Connection closed" }), "Transient"],
  [new McpError.TooManyInFlight({ server, limit: 1 }), "Transient"],
  [new McpError.NotReady({ server, operation: "listTools" }), "Transient"],
  [new McpError.ErrIndexBuilding({ server, tool: "t" }), "Transient"],
  [new HttpError.ConnectionFailed({ server, method, url: "http://x", reason: "ECONNREFUSED" }), "Transient"],
  [new HttpError.HttpStatusError({ server, method, status: 500, detail: "" }), "Transient"],
  [new HttpError.HttpStatusError({ server, method, status: 502, detail: "" }), "Transient"],
  [new HttpError.HttpStatusError({ server, method, status: 503, detail: "", retryAfter: "1" }), "Transient"],
  [new HttpError.HttpStatusError({ server, method, status: 429, detail: "" }), "Transient"],
  [new HttpError.HttpStatusError({ server, method, status: 408, detail: "" }), "Transient"],
  [new HttpError.SessionExpired({ server, method }), "Transient"],
  [new HttpError.StreamEnded({ server, method, reason: "reset" }), "Transient"],
  [new Subscriptions.ListenFailed({ server, reason: "no-ack", detail: "" }), "Transient"],
  [new Subscriptions.ListenFailed({ server, reason: "ended", detail: "" }), "Transient"],
  [new HttpError.HttpStatusError({ server, method, status: 401, detail: "", wwwAuthenticate: "Bearer" }), "NeedsUser"],
  [new HttpError.AuthorizationRequired({ server, method, status: 401, reason: "no prompt" }), "NeedsUser"],
  [new McpError.RemoteError({ server, method, code: -32602, remoteMessage: "Unknown tool: t" }), "ServerFault"],
  [new McpError.RemoteError({ server, method, code: -32601, remoteMessage: "Method not found" }), "ServerFault"],
  [new McpError.RemoteError({ server, method, code: -32603, remoteMessage: "Internal error" }), "ServerFault"],
  [new McpError.ProtocolError({ server, method, detail: "bad" }), "ServerFault"],
  [new McpError.PageCapExceeded({ server, method: "tools/list", pages: 100 }), "ServerFault"],
  [new McpError.RepeatedCursor({ server, method: "tools/list", page: 2 }), "ServerFault"],
  [new McpError.MessageTooLarge({ server, method, bytes: 10, limit: 5 }), "ServerFault"],
  [
    new McpError.UnsupportedProtocolVersion({ server, answered: "1999-01-01", supported: ["2025-11-25"] }),
    "ServerFault"
  ],
  [new McpError.StructuredContentInvalid({ server, tool: "t", detail: "bad" }), "ServerFault"],
  [new McpError.CapabilityNotSupported({ server, method: "prompts/list", capability: "prompts" }), "ServerFault"],
  [new HttpError.HttpStatusError({ server, method, status: 400, detail: "" }), "ServerFault"],
  [new HttpError.HttpStatusError({ server, method, status: 403, detail: "" }), "ServerFault"],
  [new HttpError.HttpStatusError({ server, method, status: 404, detail: "" }), "ServerFault"],
  [new HttpError.RedirectRefused({ server, method, location: "http://elsewhere" }), "ServerFault"],
  [new HttpError.SessionsForgotten({ server, losses: 4 }), "ServerFault"],
  [new McpError.MessageTooLarge({ server, method, bytes: 10, limit: 5, encoding: "gzip" }), "ServerFault"],
  [new EraError.HeaderMismatch({ server, method, detail: "" }), "ServerFault"],
  [new EraError.InputRoundsExceeded({ server, method, rounds: 8 }), "ServerFault"],
  [new Subscriptions.ListenFailed({ server, reason: "legacy", detail: "" }), "ServerFault"],
  [new Subscriptions.ListenFailed({ server, reason: "refused", detail: "" }), "ServerFault"],
  [new McpError.SpawnError({ server, command: "x", reason: "ENOENT" }), "ConfigFault"],
  [new HttpError.InvalidUrl({ server, url: "file:///", reason: "not http" }), "ConfigFault"],
  [new EraError.MissingClientCapability({ server, method, detail: "" }), "ConfigFault"],
  [new EraError.InputUnavailable({ server, method, inputMethod: "roots/list", reason: "" }), "ConfigFault"],
  [new McpError.ClientClosed({ server, reason: "closed" }), "CallerFault"],
  [new McpError.InvalidParams({ server, method, detail: "cycle" }), "CallerFault"],
  [
    new McpError.UrlElicitationRequired({
      server,
      method,
      elicitations: [{ mode: "url", elicitationId: "e", url: "https://example.com", message: "m" }],
      outcome: "unhandled"
    }),
    "CallerFault"
  ],
  [new EraError.NotInEra({ server, method: "ping", protocolVersion: "2026-07-28" }), "CallerFault"],
  [new Roots.InvalidRoot({ uri: "x", reason: "not file://" }), "CallerFault"],
  [new Sampling.SamplingRefused({ server, reason: "policy" }), "CallerFault"]
]

describe("ErrorKind", () => {
  it("every error says what it means", () => {
    for (const [error, kind] of table) assert.strictEqual(error.kind._tag, kind, error.message)
  })

  it("isRetryable is true exactly for the transient ones; userAction gives the reason of those that need the user", () => {
    for (const [error, kind] of table) {
      assert.strictEqual(ErrorKind.isRetryable(error), kind === "Transient", error._tag)
      assert.strictEqual(ErrorKind.userAction(error) !== undefined, kind === "NeedsUser", error._tag)
    }
    assert.strictEqual(
      ErrorKind.userAction(new HttpError.AuthorizationRequired({ server, method, status: 401, reason: "no prompt" })),
      "no prompt"
    )
  })

  it("covers every error class of the package", () => {
    const tags = new Set(table.map(([e]) => e._tag))
    const classes = [
      ...Object.values(McpError),
      ...Object.values(HttpError),
      ...Object.values(EraError),
      Roots.InvalidRoot,
      Sampling.SamplingRefused,
      Subscriptions.ListenFailed
    ].filter(
      (value): value is typeof value & { readonly prototype: object } =>
        typeof value === "function" && "prototype" in value
    )
    for (const cls of classes) {
      assert.isTrue(Object.getOwnPropertyDescriptor(cls.prototype, "kind") !== undefined, cls.name)
      assert.isTrue(tags.has(cls.name), `${cls.name} has a case here`)
    }
  })

  it("one AuthorizationRequired: the transport's is auth's", () => {
    assert.strictEqual(HttpError.AuthorizationRequired, AuthError.AuthorizationRequired)
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
        Effect.retry({ while: ErrorKind.isRetryable, schedule: Schedule.spaced("1 second") }),
        Effect.forkChild
      )
      assert.strictEqual(yield* Deferred.await(firstFailure), "ErrIndexBuilding")
      // The server finishes starting: answer its initialize now.
      yield* McpPeer.awaitMethod(frames, "initialize")
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
        Effect.retry({ while: ErrorKind.isRetryable, schedule: Schedule.spaced("1 second") }),
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
        Effect.retry({ while: ErrorKind.isRetryable, schedule: Schedule.spaced("1 second") }),
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(calls, 1)
    }))
})
