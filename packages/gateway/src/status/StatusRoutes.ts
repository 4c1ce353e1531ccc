/**
 * The status page's routes on the gateway's HTTP server, beside `/mcp`, behind the same Host and Origin checks:
 *
 * - `GET /`, `/status.css`, `/status.js`: the page itself, static (`PageAssets`), the same bytes for everyone, with
 *   nothing of the fleet in it: it is served without the token, and asks for one when the data routes refuse it.
 * - `GET /status/session`: 200 when the request may read the data (the bearer token, the page's cookie, or no token
 *   configured), else 401. `POST /status/session` with `Authorization: Bearer <token>` sets the cookie
 *   (`PageCookie`); `DELETE` clears it.
 * - `GET /status/events`: Server-Sent Events (`StatusEvents`): a `state` event at once and after every change of the
 *   manager's health snapshot, a `metrics` event (hosts, calls) at once and at most once a second while they change.
 *
 * Every answer carries a strict Content-Security-Policy (`default-src 'self'`, no inline script or style, no frames),
 * `nosniff` and `Referrer-Policy: no-referrer`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Mac from "effect/crypto/Mac"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import type * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Engine } from "../server/Engine.ts"
import * as PageAssets from "./PageAssets.ts"
import * as PageCookie from "./PageCookie.ts"
import * as StatusEvents from "./StatusEvents.ts"
import * as StatusView from "./StatusView.ts"

/** The page's Content-Security-Policy: its own origin only, no inline code, never framed. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

/** The headers of every answer of the page's routes. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
}

/** The call window ages even without calls: its figures are looked at again this often. */
const AGING_EVERY = "5 seconds"

/** The page's routes. */
export interface StatusRoutes {
  /**
   * The answer when `path` is one of the page's, else `undefined`. `bearer`: the configured token the request
   * presented in `Authorization` (checked by the HTTP front as for `/mcp`), if any.
   */
  readonly handle: (
    request: HttpServerRequest.HttpServerRequest,
    path: string,
    bearer: Redacted.Redacted<string> | undefined
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined
  /**
   * Ends every open event stream (the pages see the stream lost, then reconnect to whatever listens next): run before
   * the HTTP server's graceful close, which would otherwise wait on them.
   */
  readonly close: Effect.Effect<void>
}

const respond = (body: string, contentType: string, options: { status?: number; cache?: string } = {}) =>
  HttpServerResponse.text(body, {
    status: options.status ?? 200,
    contentType,
    headers: { ...SECURITY_HEADERS, "cache-control": options.cache ?? "no-store" }
  })

const json = (body: unknown, status = 200) => respond(JSON.stringify(body), "application/json", { status })

const ASSETS: Readonly<Record<string, { readonly body: string; readonly type: string }>> = {
  "/": { body: PageAssets.html, type: "text/html; charset=utf-8" },
  "/status.css": { body: PageAssets.css, type: "text/css; charset=utf-8" },
  "/status.js": { body: PageAssets.js, type: "text/javascript; charset=utf-8" }
}

const unauthorized = () =>
  HttpServerResponse.text(JSON.stringify({ signedIn: false, required: true }), {
    status: 401,
    contentType: "application/json",
    headers: { ...SECURITY_HEADERS, "cache-control": "no-store", "www-authenticate": "Bearer realm=\"mcp-fleet\"" }
  })

const methodNotAllowed = (allow: string) =>
  HttpServerResponse.empty({ status: 405, headers: { ...SECURITY_HEADERS, allow } })

/** The routes over `engine`, whose HTTP front accepts `tokens`. The scope runs the aging ticker. */
export const make = Effect.fnUntraced(function*(engine: Engine, tokens: ReadonlyArray<Redacted.Redacted<string>>) {
  const scope = yield* Scope.Scope
  const cookie = yield* PageCookie.make(tokens).pipe(
    Effect.provide(Mac.layerWebCrypto.pipe(Layer.provide(SecureRandom.layerWebCrypto)))
  )
  const closed = yield* Deferred.make<void>()

  // The window's figures change as time passes: every open page hears of it (deduplicated per page below).
  yield* PubSub.publish(engine.activity, undefined).pipe(
    Effect.repeat(Schedule.spaced(AGING_EVERY)),
    Effect.forkIn(scope)
  )

  const allowed = (request: HttpServerRequest.HttpServerRequest, bearer: Redacted.Redacted<string> | undefined) =>
    !cookie.required || bearer !== undefined ? Effect.succeed(true) : cookie.verify(request.cookies[PageCookie.NAME])

  const renderMetrics = Effect.map(
    Clock.currentTimeMillis,
    (now) => StatusView.metrics({ hosts: engine.hosts(), gateway: engine.stats(), calls: engine.calls }, now)
  )

  /** The event stream of one page. */
  const events = () =>
    StatusEvents.stream({
      snapshots: engine.manager.snapshots,
      activity: Stream.fromPubSub(engine.activity),
      metrics: renderMetrics,
      closed: Deferred.await(closed)
    })

  const session = (
    request: HttpServerRequest.HttpServerRequest,
    bearer: Redacted.Redacted<string> | undefined
  ): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
    Effect.gen(function*() {
      switch (request.method) {
        case "GET":
          return (yield* allowed(request, bearer))
            ? json({ signedIn: true, required: cookie.required })
            : unauthorized()
        case "POST": {
          if (!cookie.required) return json({ signedIn: true, required: false })
          if (bearer === undefined) return unauthorized()
          const value = yield* cookie.issue(bearer)
          return yield* HttpServerResponse.setCookie(
            json({ signedIn: true, required: true }),
            PageCookie.NAME,
            value,
            { httpOnly: true, sameSite: "strict", path: "/status", maxAge: `${PageCookie.TTL_MS} millis` }
          ).pipe(Effect.orDie)
        }
        case "DELETE":
          return yield* HttpServerResponse.expireCookie(
            json({ signedIn: false, required: cookie.required }),
            PageCookie.NAME,
            { httpOnly: true, sameSite: "strict", path: "/status" }
          ).pipe(Effect.orDie)
        default:
          return methodNotAllowed("GET, POST, DELETE")
      }
    })

  const routes: StatusRoutes = {
    handle: (request, path, bearer) => {
      const asset = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined
      if (asset !== undefined) {
        if (request.method !== "GET" && request.method !== "HEAD") return Effect.succeed(methodNotAllowed("GET, HEAD"))
        return Effect.succeed(respond(asset.body, asset.type, { cache: "no-cache" }))
      }
      if (path === "/favicon.ico") return Effect.succeed(HttpServerResponse.empty({ status: 204 }))
      if (path === "/status/session") return session(request, bearer)
      if (path === "/status/events") {
        if (request.method !== "GET") return Effect.succeed(methodNotAllowed("GET"))
        return Effect.map(allowed(request, bearer), (ok) =>
          ok
            ? HttpServerResponse.stream(events(), {
              contentType: "text/event-stream",
              headers: { ...SECURITY_HEADERS, "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" }
            })
            : unauthorized())
      }
      if (path.startsWith("/status/")) return Effect.succeed(json({ error: "Not Found" }, 404))
      return undefined
    },
    close: Effect.asVoid(Deferred.succeed(closed, undefined))
  }
  return routes
})
