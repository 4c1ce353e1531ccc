/**
 * The status page's routes on a real gateway over HTTP (in process, `NodeHttpServer` on a free port) in front of real
 * fake servers: its headers, its sign-in (the bearer token, or the page's cookie, which `/mcp` never takes), no secret
 * in its event stream even from a server that leaks its environment everywhere, `Redacted` values included, and its
 * streams ended at once when the gateway closes. The same page in a browser: packages/cli/test/statusPage.browser.
 */
import { NodeHttpClient, NodeHttpServer, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpGateway } from "@mcp-fleet/gateway"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { FakeHttpServer, FakeServer } from "@mcp-fleet/testing"
import { Effect, Exit, Fiber, Layer, Option, Redacted, Scope } from "effect"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import * as StatusRoutes from "../../src/status/StatusRoutes.ts"

const TOKEN = "status-token-7b3e19d2"
const ENV_SECRET = "env-secret-value-51c0"
const HEADER_SECRET = "header-secret-value-a4d9"
const URL_SECRET = "url-secret-value-0e6b"

/** The fleet: a server that leaks its env (a `Redacted` value) everywhere, a remote one with `Redacted` credentials. */
const fleet = (remote: string): Readonly<Record<string, ManagerOptions.ServerConfig>> => {
  const leaky = FakeServer.command({ modes: ["leak-env"] })
  return {
    leaky: { ...leaky, env: { ...leaky.env, API_KEY: Redacted.make(ENV_SECRET) } },
    remote: {
      url: Redacted.make(`${remote}?token=${URL_SECRET}`),
      headers: { authorization: Redacted.make(`Bearer ${HEADER_SECRET}`) }
    }
  }
}

/** The gateway's layers over `remote`'s fake server, on a free port. */
interface Options {
  readonly statusPage?: boolean
  /** Whether the gateway asks for the token (default true). */
  readonly tokens?: boolean
}

const stack = (remote: string, options: Options = {}) =>
  McpGateway.layerHttp().pipe(
    Layer.provideMerge(
      McpGateway.layerFleet({ servers: fleet(remote), reconnect: { initialDelay: "1 minute", maxAttempts: 1 } }, {
        tokens: options.tokens === false ? [] : [Redacted.make(TOKEN)],
        ...(options.statusPage === undefined ? {} : { statusPage: options.statusPage })
      })
    ),
    Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" }))
  )

const baseOf = Effect.map(
  HttpServer.HttpServer,
  (server) => `http://127.0.0.1:${"port" in server.address ? server.address.port : 0}`
)

const bearer = { authorization: `Bearer ${TOKEN}` }

/** One request; an event stream's body is not read (it would not end), only its status and headers. */
const get = (url: string, headers: Record<string, string> = {}, method = "GET") =>
  Effect.promise(async () => {
    const controller = new AbortController()
    const response = await fetch(url, { method, headers, signal: controller.signal })
    if (response.headers.get("content-type") === "text/event-stream") {
      controller.abort()
      return { status: response.status, headers: response.headers, text: "" }
    }
    return { status: response.status, headers: response.headers, text: await response.text() }
  })

/** An open event stream: read until `done(text)` says the text so far is enough. */
const openEvents = (url: string, headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const controller = new AbortController()
      const response = await fetch(url, { headers, signal: controller.signal })
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      return {
        response,
        controller,
        text: () => text,
        until: async (done: (text: string) => boolean) => {
          while (!done(text)) {
            const chunk = await reader.read()
            if (chunk.done) return { text, ended: true }
            text += decoder.decode(chunk.value, { stream: true })
          }
          return { text, ended: false }
        }
      }
    }),
    (events) => Effect.sync(() => events.controller.abort())
  )

/** A 2025-era host over HTTP with the token: initialize, then a call; its session id. */
const hostCalls = (base: string, tool: string) =>
  Effect.promise(async () => {
    const headers = { ...bearer, "content-type": "application/json", accept: "application/json" }
    const init = await fetch(`${base}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe-host", version: "9" } }
      })
    })
    await init.text()
    const session = init.headers.get("mcp-session-id")!
    const withSession = { ...headers, "mcp-session-id": session }
    await fetch(`${base}/mcp`, {
      method: "POST",
      headers: withSession,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
    }).then((r) => r.text())
    const call = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: withSession,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: tool, arguments: {} } })
    })
    return { session, answer: await call.text() }
  })

/** Runs `use` with the gateway up and both servers ready. */
const withGateway = <A>(
  use: (base: string) => Effect.Effect<A, never, Scope.Scope>,
  options: Options = {}
) =>
  Effect.gen(function*() {
    const remote = yield* Effect.orDie(FakeHttpServer.start())
    const context = yield* Layer.build(stack(remote.url, options))
    return yield* Effect.gen(function*() {
      const manager = yield* McpManager.McpManager
      yield* Effect.orDie(manager.waitForReady("leaky"))
      yield* Effect.orDie(manager.waitForReady("remote"))
      return yield* use(yield* baseOf)
    }).pipe(Effect.provide(context))
  }).pipe(Effect.scoped, Effect.provide([NodeHttpClient.layerUndici, NodeServices.layer]))

describe("the status page's routes", { timeout: 60_000 }, () => {
  it.live("every answer has the CSP and the usual headers; the page itself holds no data", () =>
    withGateway((base) =>
      Effect.gen(function*() {
        for (
          const [path, type] of [["/", "text/html"], ["/status.css", "text/css"], ["/status.js", "text/javascript"]]
        ) {
          const answer = yield* get(`${base}${path}`)
          assert.strictEqual(answer.status, 200, path)
          assert.include(answer.headers.get("content-type"), type!)
          assert.notInclude(answer.text, "leaky")
        }
        for (const path of ["/", "/status/events", "/status/session", "/status/nothing"]) {
          const answer = yield* get(`${base}${path}`)
          assert.strictEqual(answer.headers.get("content-security-policy"), StatusRoutes.CONTENT_SECURITY_POLICY, path)
          assert.strictEqual(answer.headers.get("x-content-type-options"), "nosniff", path)
          assert.strictEqual(answer.headers.get("referrer-policy"), "no-referrer", path)
          assert.strictEqual(answer.headers.get("x-frame-options"), "DENY", path)
        }
        assert.strictEqual((yield* get(`${base}/`, {}, "POST")).status, 405)
      })
    ))

  it.live("sign-in: the data needs the token or the page's cookie; the cookie is not the token and never opens /mcp", () =>
    withGateway((base) =>
      Effect.gen(function*() {
        assert.strictEqual((yield* get(`${base}/status/events`)).status, 401)
        assert.strictEqual((yield* get(`${base}/status/session`)).status, 401)
        assert.strictEqual(
          (yield* get(`${base}/status/session`, { authorization: `Bearer ${TOKEN}x` }, "POST")).status,
          401
        )
        const signIn = yield* get(`${base}/status/session`, bearer, "POST")
        assert.strictEqual(signIn.status, 200)
        const setCookie = signIn.headers.get("set-cookie")!
        assert.match(
          setCookie,
          /^mcp_fleet_status=v1\.\d+\.[\w-]{43}; Max-Age=43200; Path=\/status; HttpOnly; SameSite=Strict$/
        )
        assert.notInclude(setCookie, TOKEN)
        const cookie = { cookie: setCookie.split(";")[0]! }
        assert.strictEqual((yield* get(`${base}/status/session`, cookie)).status, 200)
        const events = yield* openEvents(`${base}/status/events`, cookie)
        assert.strictEqual(events.response.status, 200)
        assert.strictEqual(events.response.headers.get("content-type"), "text/event-stream")
        const { text } = yield* Effect.promise(() => events.until((t) => t.includes("event: state")))
        assert.isTrue(text.startsWith("retry: 1000\n\n"))
        // The cookie is the page's: /mcp and the other routes still want the token.
        const mcp = yield* get(`${base}/mcp`, { ...cookie, "content-type": "application/json" }, "POST")
        assert.strictEqual(mcp.status, 401)
        assert.strictEqual((yield* get(`${base}/readyz`, cookie)).status, 401)
        const tampered = { cookie: `${cookie.cookie.slice(0, -1)}${cookie.cookie.endsWith("A") ? "B" : "A"}` }
        assert.strictEqual((yield* get(`${base}/status/events`, tampered)).status, 401)
        // Signing out clears the cookie.
        const signOut = yield* get(`${base}/status/session`, cookie, "DELETE")
        assert.match(signOut.headers.get("set-cookie")!, /^mcp_fleet_status=; Max-Age=0; /)
      })
    ))

  it.live("no secret in the event stream: not a leaked env value, a Redacted header or URL token, a session id", () =>
    withGateway((base) =>
      Effect.gen(function*() {
        const events = yield* openEvents(`${base}/status/events`, bearer)
        yield* Effect.promise(() => events.until((t) => t.includes("event: metrics")))
        // The server answers every call with its whole environment; the host reads it, the page must not.
        const host = yield* hostCalls(base, "leaky__echo")
        assert.include(host.answer, "API_KEY=")
        const { text } = yield* Effect.promise(() =>
          events.until((t) => /"tool":"echo","calls":1,"errors":1/.test(t) && t.includes("probe-host"))
        )
        assert.include(text, "\"name\":\"remote\",\"state\":\"ready\"")
        assert.include(text, "\"url\":\"http://127.0.0.1:")
        for (const secret of [ENV_SECRET, HEADER_SECRET, URL_SECRET, TOKEN, host.session]) {
          assert.notInclude(text, secret)
        }
      })
    ))

  it.live("closing the gateway ends the open page streams at once (the server's graceful close waits on none)", () =>
    Effect.gen(function*() {
      const remote = yield* Effect.orDie(FakeHttpServer.start())
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(stack(remote.url), scope)
      const base = yield* baseOf.pipe(Effect.provide(context))
      const events = yield* openEvents(`${base}/status/events`, bearer)
      yield* Effect.promise(() => events.until((t) => t.includes("event: state")))
      const ending = yield* Effect.promise(() => events.until(() => false)).pipe(Effect.forkChild)
      // Node's graceful close would wait 20 s on an open response: bounded well below it.
      const closed = yield* Scope.close(scope, Exit.void).pipe(Effect.timeoutOption("10 seconds"))
      assert.isTrue(Option.isSome(closed), "the gateway did not close within 10 s")
      assert.isTrue((yield* Fiber.join(ending)).ended)
    }).pipe(Effect.scoped, Effect.provide([NodeHttpClient.layerUndici, NodeServices.layer])))

  it.live("without tokens (as /mcp): the data needs no sign-in, and the page is told so", () =>
    withGateway((base) =>
      Effect.gen(function*() {
        const session = yield* get(`${base}/status/session`)
        assert.strictEqual(session.status, 200)
        assert.deepStrictEqual(JSON.parse(session.text), { signedIn: true, required: false })
        assert.isNull((yield* get(`${base}/status/session`, {}, "POST")).headers.get("set-cookie"))
        const events = yield* openEvents(`${base}/status/events`, {})
        assert.strictEqual(events.response.status, 200)
        yield* Effect.promise(() => events.until((t) => t.includes("event: state")))
      }), { tokens: false }))

  it.live("statusPage: false: no page, no data routes", () =>
    withGateway((base) =>
      Effect.gen(function*() {
        assert.strictEqual((yield* get(`${base}/`, bearer)).status, 404)
        assert.strictEqual((yield* get(`${base}/status/events`, bearer)).status, 404)
      }), { statusPage: false }))
})
