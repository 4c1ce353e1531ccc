/**
 * A remote server behind the fake OAuth authorization server, under the manager (issue 17), over real HTTP on
 * 127.0.0.1: the whole flow end to end with the headless prompt, and the `unauthorized` state when the user
 * must authorize (no prompt, a refresh refused mid-session): no crash loop, a typed error, the advice.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { AuthorizationPrompt, McpAuth, TokenStore } from "@mcp-fleet/auth"
import { type AuthServer, type AuthServerOptions, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { McpManager } from "@mcp-fleet/manager"
import { McpClient } from "@mcp-fleet/transport"
import {
  Cause,
  Context,
  Deferred,
  type Duration,
  Effect,
  Fiber,
  Layer,
  Logger,
  Option,
  References,
  Stream
} from "effect"
import { TestClock } from "effect/testing"

const authServer = (options: AuthServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => startAuthServer(options)),
    (server) => Effect.promise(() => server.close())
  )

const REDIRECT = "http://127.0.0.1:8976/callback"
const advice = (name: string) => `run \`mcp-fleet auth login ${name}\``

/** McpAuth with `prompt`, over `store` (the same store may be shared between a "login" and a manager). */
const authLayer = (
  prompt: Layer.Layer<AuthorizationPrompt.AuthorizationPrompt, never, never>,
  store: TokenStore.Service
) =>
  McpAuth.layer({ clientName: "mcp-fleet manager test", redirectUri: REDIRECT }).pipe(
    Layer.provide([prompt, Layer.succeed(TokenStore.TokenStore, store)]),
    Layer.provideMerge(NodeHttpClient.layerUndici)
  )
const headless = AuthorizationPrompt.layerHeadless.pipe(Layer.provide(NodeHttpClient.layerUndici))
const nobody = AuthorizationPrompt.layerUnavailable("this host cannot open a browser")
/** The headless prompt with a user who takes their time: it says when it is opened, then waits for `go`. */
const slowUser = (opened: Deferred.Deferred<void>, go: Deferred.Deferred<void>) =>
  Layer.effect(
    AuthorizationPrompt.AuthorizationPrompt,
    Effect.map(AuthorizationPrompt.AuthorizationPrompt, (prompt) => ({
      authorize: (request: AuthorizationPrompt.Request) =>
        Deferred.succeed(opened, undefined).pipe(
          Effect.andThen(Deferred.await(go)),
          Effect.andThen(prompt.authorize(request))
        )
    }))
  ).pipe(Layer.provide(headless))

const build = (
  server: AuthServer,
  prompt: Layer.Layer<AuthorizationPrompt.AuthorizationPrompt>,
  store: TokenStore.Service,
  requestTimeout: Duration.Input = "30 seconds"
) =>
  Effect.gen(function*() {
    const layer = McpManager.layer({
      servers: {
        linear: {
          url: server.mcpUrl,
          transport: "http",
          requestTimeout
        }
      },
      authorizationAdvice: advice,
      reconnect: { initialDelay: "1 millis", maxAttempts: 3 }
    }).pipe(Layer.provide([NodeServices.layer, authLayer(prompt, store)]))
    return Context.get(yield* Layer.build(layer), McpManager.McpManager)
  })

/** The bearer token of the latest request to the MCP endpoint that carried one. */
const currentToken = (server: AuthServer) =>
  String(
    server.requests.findLast((r) => r.path === "/mcp" && r.headers["authorization"] !== undefined)?.headers[
      "authorization"
    ]
  ).slice("Bearer ".length)

/** Every secret that crossed the wire: codes, verifiers, refresh tokens, client secrets (form or Basic), bearers. */
const secretsOf = (server: AuthServer): ReadonlyArray<string> =>
  server.requests.flatMap((r) => {
    const header = String(r.headers["authorization"] ?? "")
    const basic = header.startsWith("Basic ")
      ? Buffer.from(header.slice(6), "base64").toString("utf8").split(":").slice(1)
      : []
    const bearer = header.startsWith("Bearer ") ? [header.slice(7)] : []
    return [
      r.form["code"],
      r.form["code_verifier"],
      r.form["refresh_token"],
      r.form["client_secret"],
      ...basic,
      ...bearer
    ]
      .filter((x): x is string => x !== undefined && x !== "")
  })

/** Every log line at debug level and above, with its annotations and cause. */
const logged: Array<string> = []
const captureLogs = Layer.mergeAll(
  Logger.layer([Logger.make((options) => {
    const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
    logged.push(`${JSON.stringify(options.message)} ${JSON.stringify(annotations)} ${Cause.pretty(options.cause)}`)
  })]),
  Layer.succeed(References.MinimumLogLevel, "Debug")
)

const rpcMethods = (server: AuthServer) =>
  server.requests.flatMap((r) => {
    const method = (r.json as { method?: string } | undefined)?.method
    if (r.path === "/token") return [`token:${r.form["grant_type"]}`]
    if (r.path === "/authorize") return [`authorize:${r.query["scope"]}`]
    return method === undefined || method.startsWith("notifications/") ? [] : [method]
  })

describe("McpManager with a server behind OAuth", () => {
  it.live("401 → discovery → authorization → tools listed and called → token refreshed → 403 step-up → retried", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ challengeScope: "mcp:read" })
      const store = yield* TokenStore.makeMemory
      const manager = yield* build(server, headless, store)
      const seen: Array<string> = []
      yield* manager.changes.pipe(
        Stream.runForEach((c) => Effect.sync(() => seen.push(`${c.from}→${c.to}`))),
        Effect.forkScoped
      )
      const ready = yield* manager.waitForReady("linear")
      assert.deepStrictEqual(ready.tools.map((t) => t.name), ["whoami"])
      const first = yield* manager.call("linear", "whoami", {})
      assert.deepStrictEqual(first.content, [{ type: "text", text: "authorized" }])

      // The access token stops working (expired server-side): the call is answered 401, refreshed, retried once.
      const stale = currentToken(server)
      server.revoke(stale)
      const second = yield* manager.call("linear", "whoami", {})
      assert.deepStrictEqual(second.content, [{ type: "text", text: "authorized" }])
      assert.notStrictEqual(currentToken(server), stale)

      // The server now wants more scope for tools/call: 403 insufficient_scope → step-up → the call retried.
      server.requireScope("mcp:admin")
      const third = yield* manager.call("linear", "whoami", {})
      assert.deepStrictEqual(third.content, [{ type: "text", text: "authorized" }])

      assert.deepStrictEqual(rpcMethods(server), [
        "server/discover", // the era probe (protocol: auto, the default): 401
        "authorize:mcp:read",
        "token:authorization_code",
        "server/discover", // authorized now: not a modern server, so initialize follows
        "initialize",
        "tools/list",
        "tools/call",
        "tools/call", // 401: revoked
        "token:refresh_token",
        "tools/call",
        "tools/call", // 403 insufficient_scope
        "authorize:mcp:read mcp:admin",
        "token:authorization_code",
        "tools/call"
      ])
      const discovery = server.requests.map((r) => r.path).filter((p) => p.startsWith("/.well-known/"))
      assert.includeMembers(discovery, [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server"
      ])
      assert.strictEqual((yield* manager.serverHealth("linear")).state, "ready")
      // Never offline, never restarted: the refresh and the step-up happened inside calls.
      assert.deepStrictEqual(seen, ["starting→ready"])
      // Tokens, codes, verifiers and client secrets appear in no health record, status text or log line.
      const secrets = secretsOf(server)
      assert.isAtLeast(secrets.length, 10)
      assert.isTrue(server.requests.some((r) => String(r.headers["authorization"]).startsWith("Basic ")))
      const rendered = [JSON.stringify(manager.health()), manager.statusLines(), ...logged].join("\n")
      assert.isAtLeast(logged.length, 1)
      for (const secret of secrets) assert.notInclude(rendered, secret)
    }).pipe(Effect.scoped, Effect.provide(captureLogs)))

  // TestClock time: the reconnection backoff is advanced past before "no retries" is asserted (real HTTP needs no
  // clock; a retry would need the clock to move).
  it.effect("no prompt available: the server is unauthorized (not offline, not starting), with the advice; no retries", () =>
    Effect.gen(function*() {
      const server = yield* authServer({})
      const store = yield* TokenStore.makeMemory
      const manager = yield* build(server, nobody, store)
      const settled = yield* manager.changes.pipe(
        Stream.filter((c) => c.server === "linear" && c.to !== "starting"),
        Stream.runHead
      )
      assert.strictEqual(Option.getOrUndefined(settled)?.to, "unauthorized")
      // Every change from here on, then well past any backoff (1 ms, 3 attempts): nothing may move.
      const moves: Array<string> = []
      yield* manager.changes.pipe(
        Stream.filter((c) => c.server === "linear"),
        Stream.runForEach((c) => Effect.sync(() => moves.push(`${c.from} → ${c.to}`))),
        Effect.forkScoped
      )
      // The supervisor decides once the session has ended: wait for that end (the event it waits on), then move the
      // clock well past any backoff.
      const session = yield* manager.client("linear")
      yield* session.awaitTerminated
      yield* TestClock.adjust("1 minute")
      const health = yield* manager.serverHealth("linear")
      assert.strictEqual(health.state, "unauthorized")
      assert.strictEqual(health.attempt, 0)
      assert.isFalse(health.gaveUp)
      assert.include(health.lastError, "needs authorization: run `mcp-fleet auth login linear`")
      assert.include(health.lastError, "this host cannot open a browser")
      assert.include(
        manager.statusLines(),
        "linear: unauthorized · needs authorization: run `mcp-fleet auth login linear`"
      )
      const refused = yield* Effect.flip(manager.call("linear", "whoami", {}))
      assert.strictEqual(refused._tag, "ServerUnavailable")
      assert.include(refused.message, "needs authorization: run `mcp-fleet auth login linear`")
      const waited = yield* Effect.flip(manager.waitForReady("linear"))
      assert.strictEqual(waited._tag === "ServerNotReady" ? waited.state : waited._tag, "unauthorized")
      // One handshake request (the era probe), never retried on the backoff (a retry would have been due after 1 ms),
      // and no fallback to initialize: the refused authorization is final.
      assert.strictEqual(rpcMethods(server).filter((m) => m === "server/discover").length, 1)
      assert.strictEqual(rpcMethods(server).filter((m) => m === "initialize").length, 0)
      assert.notInclude(server.requests.map((r) => r.path), "/authorize")
      assert.deepStrictEqual(moves, [], "no change after the backoff")
    }).pipe(Effect.scoped))

  it.live("a refresh refused mid-session with nobody to ask: the call fails typed, the server goes unauthorized", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ revokedRefresh: true })
      const store = yield* TokenStore.makeMemory
      // `auth login`: authorize once with a prompt, into the store the manager then uses.
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient.make({ url: server.mcpUrl, transport: "http" })
        yield* client.awaitReady
      })).pipe(Effect.provide(authLayer(headless, store)))
      const manager = yield* build(server, nobody, store)
      yield* manager.waitForReady("linear")
      server.revoke(currentToken(server))
      const error = yield* Effect.flip(manager.call("linear", "whoami", {}))
      assert.strictEqual(error._tag, "AuthorizationRequired")
      assert.include(error.message, "this host cannot open a browser")
      const health = yield* manager.serverHealth("linear")
      assert.strictEqual(health.state, "unauthorized")
      assert.include(health.lastError, "run `mcp-fleet auth login linear`")
      // The next call fails fast, without another round trip.
      const before = server.requests.length
      const again = yield* Effect.flip(manager.call("linear", "whoami", {}))
      assert.strictEqual(again._tag, "ServerUnavailable")
      assert.strictEqual(server.requests.length, before)
      assert.strictEqual(rpcMethods(server).filter((m) => m === "token:refresh_token").length, 1)
    }).pipe(Effect.scoped))

  it.effect("a user slower at the browser than the era probe's deadline: the probe waits, then the server picks the era", () =>
    Effect.gen(function*() {
      const server = yield* authServer({ challengeScope: "mcp:read" })
      const store = yield* TokenStore.makeMemory
      const opened = yield* Deferred.make<void>()
      const go = yield* Deferred.make<void>()
      // protocol at its default (auto), the probe's deadline at its default (5 s), the request deadline 30 s.
      const manager = yield* build(server, slowUser(opened, go), store)
      yield* Deferred.await(opened)
      // The user takes 10 s in the browser: twice the probe's deadline. What the probe waits for is authorization,
      // not the server, so it must not fall back to initialize.
      yield* TestClock.adjust("10 seconds")
      yield* Deferred.succeed(go, undefined)
      const ready = yield* manager.waitForReady("linear")
      assert.deepStrictEqual(ready.protocol, { era: "legacy", version: "2025-11-25" })
      assert.deepStrictEqual(rpcMethods(server), [
        "server/discover", // 401: the browser opens, inside the probe
        "authorize:mcp:read",
        "token:authorization_code",
        "server/discover", // sent with the token: -32601 at once, the server's own answer
        "initialize",
        "tools/list"
      ])
    }).pipe(Effect.scoped))

  /** A fault, what the user reads, and how many times the probe is sent (the 403 loop: twice more, in one exchange). */
  const faults: ReadonlyArray<readonly [string, AuthServerOptions, string, number]> = [
    ["wrong issuer", { wrongIssuer: true }, "No authorization server metadata was found", 1],
    ["no PKCE advertised", { noPkce: true }, "does not advertise code_challenge_methods_supported", 1],
    ["a token endpoint answering HTML", { htmlToken: true }, "the response is not JSON (content type text/html)", 1],
    ["a 403 insufficient_scope loop", { scopeLoop: true }, "still answers HTTP 403 after 2 authorizations", 3],
    ["a slow token endpoint", { slowToken: true }, "the endpoint gave no answer within 30s", 1]
  ]
  for (const [fault, options, reason, initializes] of faults) {
    it.effect(`${fault}: unauthorized with the advice and the reason, no crash loop`, () =>
      Effect.gen(function*() {
        const server = yield* authServer(options)
        const store = yield* TokenStore.makeMemory
        // The request deadline is longer than the token endpoint's, so that the clock jump below expires only the latter.
        // The era is left at auto: the fault happens inside the era probe (server/discover is the first request).
        const manager = yield* build(server, headless, store, "5 minutes")
        const settled = yield* manager.changes.pipe(
          Stream.filter((c) => c.server === "linear" && c.to !== "starting"),
          Stream.runHead,
          Effect.forkChild
        )
        if (options.slowToken === true) {
          // The token request is in flight and will never be answered: its 30 s deadline passes.
          yield* Effect.promise(() => server.waitFor((r) => r.path === "/token"))
          yield* TestClock.adjust("30 seconds")
        }
        assert.strictEqual(Option.getOrUndefined(yield* Fiber.join(settled))?.to, "unauthorized")
        const health = yield* manager.serverHealth("linear")
        assert.include(health.lastError, "needs authorization: run `mcp-fleet auth login linear`")
        assert.include(health.lastError, reason)
        assert.strictEqual(health.attempt, 0)
        // The handshake's first request (the probe) is sent that many times, and a failed authorization is final: no
        // fallback to initialize, which would only authorize again (a second prompt or token request for one fault).
        assert.strictEqual(rpcMethods(server).filter((m) => m === "server/discover").length, initializes)
        assert.strictEqual(rpcMethods(server).filter((m) => m === "initialize").length, 0)
      }).pipe(Effect.scoped))
  }
})
