/**
 * One HTTP exchange of a transport: sending a request with same-origin redirects only, and turning what comes
 * back into the transport's typed errors (unreachable server, refused redirect, HTTP status with its bounded body).
 *
 * @internal
 */
import * as McpAuth from "@mcp-fleet/auth/McpAuth"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { ConnectionFailed, HttpStatusError, RedirectRefused } from "../../HttpError.ts"
import * as JsonRpc from "../JsonRpc.ts"
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
            new ConnectionFailed({ ...who, url: Url.redact(target), reason: JsonRpc.excerpt(describe(error)) })
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

/** Challenges (a 401, then a 403 step-up) answered per exchange before its status is returned to the caller. */
const MAX_CHALLENGES = 2

/**
 * Sends `build(url)` and follows redirects while they stay on the origin of `url` (see `executeOnce`). When the
 * program provides `McpAuth`, every request carries its Authorization header, and a 401 or 403 goes to
 * `McpAuth.onChallenge` (discovery, authorization, refresh or step-up) and the request is sent again; when
 * authorization cannot be completed, the reason is logged and the 401/403 is returned as it came.
 */
export const execute = (
  client: HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>,
  url: URL,
  build: (url: URL) => HttpClientRequest.HttpClientRequest,
  who: Origin
): Effect.Effect<HttpClientResponse.HttpClientResponse, ConnectionFailed | RedirectRefused, Scope.Scope> =>
  Effect.gen(function*() {
    const found = yield* Effect.serviceOption(McpAuth.McpAuth)
    if (Option.isNone(found)) return yield* executeOnce(client, url, build, who)
    const auth = found.value
    const server = url.href
    const send = Effect.gen(function*() {
      const headers = yield* auth.headers(server)
      return yield* executeOnce(client, url, (target) => {
        let request = build(target)
        for (const [name, value] of Object.entries(headers)) {
          request = HttpClientRequest.setHeader(request, name, Redacted.value(value))
        }
        return request
      }, who)
    })
    let response = yield* send
    for (
      let challenges = 0;
      challenges < MAX_CHALLENGES && (response.status === 401 || response.status === 403);
      challenges++
    ) {
      const answered = yield* auth.onChallenge(server, {
        status: response.status,
        wwwAuthenticate: response.headers["www-authenticate"]
      }).pipe(
        Effect.as(true),
        Effect.catch((error) =>
          Effect.logWarning("Authorization could not be completed").pipe(
            Effect.annotateLogs({ server: who.server, reason: error.message }),
            Effect.as(false)
          )
        )
      )
      if (!answered) return response
      response = yield* send
    }
    if (response.status < 400) yield* auth.onSuccess(server)
    return response
  })

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
      const text = body.text
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

/** The typed error of a non-success status, with `WWW-Authenticate` and `Retry-After` kept. */
export const statusError = (
  response: HttpClientResponse.HttpClientResponse,
  body: ErrorBody,
  who: Origin
): HttpStatusError => {
  const wwwAuthenticate = response.headers["www-authenticate"]
  const retryAfter = response.headers["retry-after"]
  const detail = body.remoteMessage !== undefined
    ? `${body.code} ${JsonRpc.excerpt(body.remoteMessage)}`
    : JsonRpc.excerpt(body.text.trim())
  return new HttpStatusError({
    ...who,
    status: response.status,
    detail,
    ...(wwwAuthenticate !== undefined ? { wwwAuthenticate: JsonRpc.excerpt(wwwAuthenticate, 400) } : {}),
    ...(retryAfter !== undefined ? { retryAfter: JsonRpc.excerpt(retryAfter, 64) } : {})
  })
}
