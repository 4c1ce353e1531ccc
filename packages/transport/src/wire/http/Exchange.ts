/**
 * One HTTP exchange of a transport: sending a request with same-origin redirects only, and turning what comes
 * back into the transport's typed errors (unreachable server, refused redirect, HTTP status with its bounded body).
 *
 * @internal
 */
import * as Dpop from "@mcp-fleet/auth/Dpop"
import * as McpAuth from "@mcp-fleet/auth/McpAuth"
import * as WwwAuthenticate from "@mcp-fleet/auth/WwwAuthenticate"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { AuthorizationRequired, ConnectionFailed, HttpStatusError, RedirectRefused } from "../../HttpError.ts"
import * as JsonRpc from "../../internal/JsonRpc.ts"
import { mediaType, readBounded } from "./Body.ts"
import * as Url from "./Url.ts"

/** Redirect hops followed at most. */
const MAX_REDIRECTS = 5
/** Most bytes read of an error body (it is only read for its message). */
const ERROR_BODY_BYTES = 64 * 1024

/** Who is asking, for the errors. */
export interface Origin {
  readonly server: string
  readonly method: string
}

/** The deepest useful text of an HTTP client failure: `connect ECONNREFUSED 127.0.0.1:9`, `other side closed`. */
export const describe = (error: HttpClientError.HttpClientError): string => {
  const parts: Array<string> = []
  let cause: unknown = "cause" in error.reason ? error.reason.cause : undefined
  for (let depth = 0; depth < 4 && typeof cause === "object" && cause !== null; depth++) {
    const message = "message" in cause && typeof cause.message === "string" ? cause.message : undefined
    const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined
    const text = message ?? code
    if (text !== undefined && text !== "" && !parts.includes(text)) parts.push(text)
    cause = "cause" in cause ? cause.cause : undefined
  }
  const description = "description" in error.reason ? error.reason.description : undefined
  if (parts.length === 0) return description ?? error.reason._tag
  return parts[parts.length - 1]!
}

/**
 * Sends `build(url)` once and follows redirects while they stay on the origin of `url` (307/308 keep the method and
 * body; 301/302/303 are followed for GET only). The response lives in the caller's scope: closing it aborts the
 * request and releases the connection.
 */
const executeOnce = (
  client: HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>,
  url: URL,
  build: (url: URL) => HttpClientRequest.HttpClientRequest,
  who: Origin
): Effect.Effect<HttpClientResponse.HttpClientResponse, ConnectionFailed | RedirectRefused, Scope.Scope> => {
  const loop = (
    target: URL,
    hops: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, ConnectionFailed | RedirectRefused, Scope.Scope> => {
    const request = build(target)
    return client.execute(request).pipe(
      Effect.catch((error) =>
        error.response !== undefined
          ? Effect.succeed(error.response)
          : Effect.fail(
            // Cut (after its secrets are replaced) by the session, as every transport failure is (`Scrub.failure`).
            new ConnectionFailed({ ...who, url: Url.redact(target), reason: describe(error) })
          )
      ),
      Effect.flatMap((response) => {
        const location = response.headers.location
        const status = response.status
        const follows = status === 307 || status === 308 ||
          ((status === 301 || status === 302 || status === 303) && request.method === "GET")
        if (!follows || location === undefined) return Effect.succeed(response)
        const next = Url.sameOrigin(location, target)
        if (next === undefined || hops >= MAX_REDIRECTS) {
          return Effect.fail(new RedirectRefused({ ...who, location: Url.redact(new URL(location, target)) }))
        }
        return loop(next, hops + 1)
      })
    )
  }
  return loop(url, 0)
}

/**
 * A set of `McpAuth` credentials as one text, to see when they change: compared, never shown. A DPoP proof is not
 * part of it: it is made afresh for every request (new `jti`), while the credentials stay the same.
 */
export const identityOf = (headers: Readonly<Record<string, Redacted.Redacted<string>>>): string =>
  Object.entries(headers).filter(([name]) => name.toLowerCase() !== "dpop")
    .map(([name, value]) => `${name.toLowerCase()}: ${Redacted.value(value)}`).sort().join("\n")

/**
 * With `McpAuth` in the context: an effect that reads the credentials it would put on a request to `url` now (as
 * `identityOf` text). Without it: `undefined` (the credentials never change).
 */
export const credentialsNow = (url: URL): Effect.Effect<Effect.Effect<string> | undefined> =>
  Effect.map(
    Effect.serviceOption(McpAuth.McpAuth),
    (found) => Option.isNone(found) ? undefined : Effect.map(found.value.headers(url.href), identityOf)
  )

/** Challenges (a 401, then a 403 step-up) answered per exchange before its status is returned to the caller. */
const MAX_CHALLENGES = 2

/**
 * The credentials `McpAuth` put on the request a response answers: its error body is scrubbed of them, so that a
 * server echoing "invalid token <token>" cannot leak it into an error or a log.
 */
const sentCredentials = new WeakMap<HttpClientResponse.HttpClientResponse, ReadonlyArray<string>>()

/** A 401, or a 403 that asks for more scope (any other 403 is a refusal that authorization cannot change). */
const isChallenge = (response: HttpClientResponse.HttpClientResponse): boolean => {
  if (response.status === 401) return true
  if (response.status !== 403) return false
  const header = response.headers["www-authenticate"]
  return (Option.getOrUndefined(WwwAuthenticate.bearer(header)) ?? Option.getOrUndefined(Dpop.challenge(header)))
    ?.error === "insufficient_scope"
}

/** What the caller of `execute` hears of the exchange's phases (see `execute`). */
export interface Phases {
  readonly authorizing: () => void
  readonly sent: () => void
  readonly credentials?: ((identity: string) => void) | undefined
}

/**
 * Sends `build(url)` and follows redirects while they stay on the origin of `url` (see `executeOnce`). When the
 * program provides `McpAuth`, every request carries its Authorization header, and a 401 (or a 403
 * `insufficient_scope`) goes to `McpAuth.onChallenge` (discovery, authorization, refresh or step-up) and the
 * request is sent again, at most twice; when authorization cannot be completed the exchange fails with
 * `AuthorizationRequired` (why, without secrets). Without `McpAuth` a 401 is returned as it came.
 *
 * `phases` hears when the exchange waits for `McpAuth` (a token request, the user's browser) and when the request
 * then goes out with its credentials, so that the caller's deadline measures the server and not the OAuth flow; and
 * (`phases.credentials`) what those credentials were, so that the caller sees when they change (another
 * authorization context, for `cacheScope: "private"` results).
 *
 * `credentials` is the server whose credentials the request carries (default `url`): the legacy HTTP+SSE transport
 * POSTs to the endpoint its server named, with the configured server's tokens, never with those of whatever server
 * the endpoint's path belongs to.
 */
export const execute: (
  client: HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>,
  url: URL,
  build: (url: URL) => HttpClientRequest.HttpClientRequest,
  who: Origin,
  phases?: Phases,
  credentials?: URL
) => Effect.Effect<
  HttpClientResponse.HttpClientResponse,
  ConnectionFailed | RedirectRefused | AuthorizationRequired,
  Scope.Scope
> = Effect.fnUntraced(function*(
  client: HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>,
  url: URL,
  build: (url: URL) => HttpClientRequest.HttpClientRequest,
  who: Origin,
  phases?: Phases,
  credentials: URL = url
) {
  const found = yield* Effect.serviceOption(McpAuth.McpAuth)
  if (Option.isNone(found)) return yield* executeOnce(client, url, build, who)
  const auth = found.value
  const server = credentials.href
  // A DPoP proof names the request's method and URL (the URL it goes to, not the server whose credentials it carries).
  const target = { method: build(url).method, url: url.href }
  const send = Effect.gen(function*() {
    phases?.authorizing()
    const headers = yield* auth.headers(server, target)
    phases?.sent()
    phases?.credentials?.(identityOf(headers))
    const sent = Object.values(headers).flatMap((value) => {
      const text = Redacted.value(value)
      const token = /^\s*\S+\s+(\S+)\s*$/.exec(text)?.[1]
      return token === undefined ? [text] : [text, token]
    })
    const response = yield* executeOnce(client, url, (target) => {
      let request = build(target)
      for (const [name, value] of Object.entries(headers)) {
        request = HttpClientRequest.setHeader(request, name, Redacted.value(value))
      }
      return request
    }, who)
    if (sent.length > 0 && response.status >= 400) sentCredentials.set(response, sent)
    return response
  })
  let response = yield* send
  for (let challenges = 0; challenges < MAX_CHALLENGES && isChallenge(response); challenges++) {
    const status = response.status
    phases?.authorizing()
    yield* auth.onChallenge(server, {
      status,
      wwwAuthenticate: response.headers["www-authenticate"],
      dpopNonce: response.headers["dpop-nonce"]
    }).pipe(
      Effect.mapError((error) => new AuthorizationRequired({ ...who, status, reason: error.reason }))
    )
    response = yield* send
  }
  if (isChallenge(response)) {
    return yield* new AuthorizationRequired({
      ...who,
      status: response.status,
      reason: `the server still answers HTTP ${response.status} after ${MAX_CHALLENGES} authorizations.`
    })
  }
  if (response.status < 400) yield* auth.onSuccess(server, { dpopNonce: response.headers["dpop-nonce"] })
  return response
})

/** `text` without the credentials that went with the request `response` answers. */
const scrubSent = (response: HttpClientResponse.HttpClientResponse, text: string): string => {
  const sent = sentCredentials.get(response)
  if (sent === undefined) return text
  let clean = text
  for (const secret of [...sent].sort((a, b) => b.length - a.length)) clean = clean.replaceAll(secret, "***")
  return clean
}

/** What an error body said, when it is a JSON-RPC error (`code` and `message`). */
export interface ErrorBody {
  readonly text: string
  readonly code: number | undefined
  readonly remoteMessage: string | undefined
  /** The id of the JSON-RPC error, when it names one (2026-era servers answer 400s this way). */
  readonly id: JsonRpc.Id | undefined
}

/** Reads an error body, bounded; a body that cannot be read is an empty one. */
export const errorBody = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<ErrorBody> =>
  readBounded(response, ERROR_BODY_BYTES).pipe(
    Effect.map((body): ErrorBody => {
      if (body._tag === "TooLarge") {
        return { text: "", code: undefined, remoteMessage: undefined, id: undefined }
      }
      const text = scrubSent(response, body.text)
      if (mediaType(response) !== "application/json" && !text.trimStart().startsWith("{")) {
        return { text, code: undefined, remoteMessage: undefined, id: undefined }
      }
      const msg = JsonRpc.classify(text)
      return msg._tag === "Error"
        ? { text, code: msg.code, remoteMessage: msg.message, id: msg.id ?? undefined }
        : { text, code: undefined, remoteMessage: undefined, id: undefined }
    }),
    Effect.orElseSucceed((): ErrorBody => ({ text: "", code: undefined, remoteMessage: undefined, id: undefined }))
  )

/**
 * The typed error of a non-success status, with `WWW-Authenticate` and `Retry-After` kept. Its texts are the
 * session's excerpts (`Receiver.excerpt`): the secrets in the body and the headers are replaced before they are cut.
 */
export const statusError = (
  response: HttpClientResponse.HttpClientResponse,
  body: ErrorBody,
  who: Origin,
  excerpt: (text: string, max?: number) => string
): HttpStatusError => {
  const wwwAuthenticate = Option.map(
    Option.fromNullishOr(response.headers["www-authenticate"]),
    (text) => scrubSent(response, text)
  ).pipe(Option.getOrUndefined)
  const retryAfter = response.headers["retry-after"]
  const detail = body.remoteMessage !== undefined
    ? `${body.code} ${excerpt(body.remoteMessage)}`
    : excerpt(body.text.trim())
  return new HttpStatusError({
    ...who,
    status: response.status,
    detail,
    ...(wwwAuthenticate !== undefined ? { wwwAuthenticate: excerpt(wwwAuthenticate, 400) } : {}),
    ...(retryAfter !== undefined ? { retryAfter: excerpt(retryAfter, 64) } : {})
  })
}
