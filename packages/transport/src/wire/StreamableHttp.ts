/**
 * The Streamable HTTP transport (MCP 2025-03-26 … 2025-11-25): one POST per message, answers as JSON or as an
 * event stream, an optional session, a GET stream for what the server sends by itself, and resumption.
 *
 * - **POST** carries one message with `Accept: application/json, text/event-stream`; a JSON answer and an event
 *   stream are both read (the media type's essence only), each within `maxMessageBytes` (per event for streams).
 * - **Session:** `Mcp-Session-Id` is taken from the initialize answer and sent on every later request; `close`
 *   sends `DELETE` (bounded; 405 is fine). `MCP-Protocol-Version` goes on every request after the handshake.
 * - **Session loss** (404, or 400 naming the session, for a POST that carried one) is reported once to the
 *   receiver, with whether a request had succeeded on that session; the receiver fails the calls in flight with the
 *   retryable `SessionExpired` and initializes again (on a backoff when sessions keep being lost unconfirmed).
 * - **GET stream:** opened once `notifications/initialized` is accepted; 405 means the server has none. The
 *   handshake waits for its first answer (`initialized`): a server that sends its requests only on this stream (the
 *   official SDK's, for a request not tied to one of the client's) drops what it sends while none is open. A GET never
 *   costs the session: a refused one (404 from an app that routes only POST) is tried once more, then given up. The
 *   reason it stopped is kept (`serverStream`) for the health record.
 * - **Resumption:** every stream keeps its own cursor (last event id, `retry:`). A stream that drops before its
 *   answer is resumed with `GET` + `Last-Event-ID` after the server's `retry:` delay (else a bounded backoff), never
 *   sooner than 250 ms and at most 10 times a minute (`Reconnects`). A drop is never a cancel; only `abandon`
 *   (deadline, interruption) aborts a request's exchange.
 * - **Answers** to the server's requests are POSTed a few at a time (`AnswerPool`).
 * - **Fallback:** when `initialize` is refused with 400/404/405 and no modern JSON-RPC error, `fallback` (if given:
 *   `AutoDetect`) takes it over; this wire knows nothing of the legacy one.
 *
 * No total timeout is put on a body: deadlines belong to the session's requests.
 *
 * @since 0.2.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { HttpStatusError } from "../HttpError.ts"
import { ConnectionFailed, SessionExpired, StreamEnded } from "../HttpError.ts"
import { MessageTooLarge, ProtocolError } from "../McpError.ts"
import * as AnswerPool from "./http/AnswerPool.ts"
import { mediaType, readBounded } from "./http/Body.ts"
import * as Exchange from "./http/Exchange.ts"
import { HttpSession } from "./http/HttpSession.ts"
import * as Inflate from "./http/Inflate.ts"
import * as Reconnects from "./http/Reconnects.ts"
import * as Resumption from "./http/Resumption.ts"
import * as SseReader from "./http/SseReader.ts"
import * as Url from "./http/Url.ts"
import * as UserHeaders from "./http/UserHeaders.ts"
import type { Ended, Frame, Notification, Receiver, Transport } from "./Transport.ts"

/**
 * @since 0.2.0
 * @category options
 */
export interface Options {
  readonly server: string
  readonly url: URL
  readonly headers: Readonly<Record<string, string | Redacted.Redacted<string>>>
  readonly maxMessageBytes: number
  /** Bound of a notification's or response's POST. */
  readonly notifyTimeoutMs: number
  /** Bound of the `DELETE` that ends the session at close. */
  readonly closeTimeoutMs: number
  /** Resumption attempts in a row that bring no event, before a stream is given up. */
  readonly maxResumeAttempts: number
  /**
   * Takes over an `initialize` this server refused the way a legacy HTTP+SSE server does (400/404/405 without a
   * modern JSON-RPC error): `AutoDetect` sends it over the legacy wire. `withinMs` is what is left of initialize's
   * deadline. Absent: the refusal fails the request, as any other.
   */
  readonly fallback?:
    | ((
      frame: Extract<Frame, { _tag: "Request" }>,
      refused: HttpStatusError,
      withinMs: number | undefined
    ) => Effect.Effect<void, never, HttpClient.HttpClient>)
    | undefined
}

/**
 * A live Streamable HTTP transport: the `Transport`, plus what only this wire has.
 *
 * @since 0.4.0
 * @category models
 */
export interface StreamableHttp extends Transport {
  readonly kind: "http"
  /** The server's session id (`Mcp-Session-Id`), once it gave one: read by tracing. */
  readonly sessionId: () => string | undefined
  /**
   * Why the transport stopped opening the server's own stream (the GET, for what the server sends unprompted), once
   * it has: `the server offers no GET stream (HTTP 405)`, a refusal, a stream that kept closing. `undefined` while it
   * is open or being opened.
   */
  readonly serverStream: () => string | undefined
  /**
   * A number that changes whenever the credentials the transport would send change (`McpAuth` refreshed or replaced
   * the token): another authorization context, in which no `cacheScope: "private"` list of the previous one is
   * served. `undefined` without `McpAuth`: one context for the transport's life.
   */
  readonly authorizationContext: Effect.Effect<number> | undefined
}

/** Codes of 2026-era JSON-RPC errors: a server answering with one is modern, so no fallback. */
const MODERN_CODES = new Set([-32020, -32021, -32022])

/** Own backoff between resumption attempts when the server gave no `retry:`: 1 s × 1.5ⁿ, at most 30 s. */
export const backoffMs: (attempt: number) => number = Reconnects.backoffMs

/**
 * Builds the transport. Nothing is sent until the session sends `initialize`. Needs `HttpClient` and a `Scope`
 * (closing it aborts every exchange; `close` also ends the session).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (
  options: Options,
  receiver: Receiver
) => Effect.Effect<StreamableHttp, never, Scope.Scope | HttpClient.HttpClient> = Effect.fnUntraced(function*(
  options: Options,
  receiver: Receiver
) {
  const { server, url } = options
  const client = HttpClient.withScope(yield* HttpClient.HttpClient)
  const fibers = yield* FiberSet.make()
  const run = yield* FiberSet.runtime(fibers)<HttpClient.HttpClient>()
  const ended = yield* Deferred.make<Ended>()
  const user = UserHeaders.prepare(options.headers, ["mcp-session-id"])
  const withNames = user.redacting
  const session = new HttpSession(user.plain)
  const streams = Resumption.make({
    client,
    url,
    session,
    receiver,
    maxMessageBytes: options.maxMessageBytes,
    maxResumeAttempts: options.maxResumeAttempts
  })
  const exchanges = new Map<number, Fiber.Fiber<unknown, unknown>>()
  /** Why the GET stream was given up, once it was (the health record's `serverStream`). */
  let serverStream: string | undefined
  const authorized = (identity: string) => session.authorized(identity)
  const readCredentials = yield* Exchange.credentialsNow(url)
  const answers = AnswerPool.make()

  const post = (frame: Frame, method: string) => (target: URL) =>
    HttpClientRequest.post(target).pipe(
      HttpClientRequest.setHeaders(session.headers(method === "initialize" ? "initialize" : "post")),
      // A modern request's own headers (`MCP-Protocol-Version` equal to its `_meta`, `Mcp-Method`…) come last.
      HttpClientRequest.setHeaders(frame._tag === "Request" ? frame.headers ?? {} : {}),
      HttpClientRequest.bodyText(frame.text, "application/json")
    )

  /** The session `sentWith` is gone: the receiver hears it once (not for an older session's, nor once closed). */
  const sessionLoss = (sentWith: string | undefined) => {
    const lost = session.lose(sentWith)
    if (lost !== undefined) receiver.sessionLost(lost.confirmed)
  }

  /**
   * The GET stream for server-initiated messages, opened again whenever it drops (within the `Reconnects` rules);
   * `answered` runs once its first GET has its answer.
   */
  const serverStreamOf = (answered: Effect.Effect<void>): Effect.Effect<void> =>
    Effect.suspend(() => {
      const at = SseReader.cursor()
      serverStream = undefined
      const g = session.generation
      return streams.resume(
        at,
        () => false,
        (reason) => {
          if (session.generation !== g) return
          serverStream = reason
          if (!reason.includes("405")) receiver.diagnose(`the GET stream stopped: ${reason}`)
        },
        { server, method: "GET stream" },
        true,
        answered
      )
    })

  const failed = (id: number) => (error: Parameters<Receiver["failRequest"]>[1]) =>
    Effect.sync(() => {
      if (receiver.isPending(id)) receiver.failRequest(id, error)
    })

  const exchange = (
    frame: Extract<Frame, { _tag: "Request" }>
  ): Effect.Effect<void, never, HttpClient.HttpClient> => {
    const who = { server, method: frame.method }
    const fail = failed(frame.id)
    const answered = () => !receiver.isPending(frame.id)
    const at = SseReader.cursor()
    return Effect.scoped(Effect.gen(function*() {
      const sentWith = frame.method === "initialize" ? undefined : session.id
      const response = yield* Exchange.execute(
        client,
        url,
        post(frame, frame.method),
        who,
        {
          authorizing: () => receiver.authorizing(frame.id),
          sent: () => receiver.sent(frame.id),
          credentials: authorized
        }
      )
      const status = response.status
      if (status < 200 || status >= 300) {
        const body = yield* Exchange.errorBody(response)
        if (body.id === frame.id) {
          session.confirm(sentWith)
          return receiver.message(body.text)
        }
        if (session.isLoss(status, body, sentWith)) {
          sessionLoss(sentWith)
          return yield* fail(new SessionExpired(who))
        }
        if (
          frame.method === "initialize" && options.fallback !== undefined &&
          (status === 400 || status === 404 || status === 405) &&
          (body.code === undefined || !MODERN_CODES.has(body.code))
        ) {
          const refused = Exchange.statusError(response, body, who, receiver.excerpt)
          return yield* options.fallback(frame, refused, receiver.timeLeft(frame.id))
        }
        return yield* fail(Exchange.statusError(response, body, who, receiver.excerpt))
      }
      if (frame.method === "initialize") session.initialized(response.headers["mcp-session-id"])
      else session.confirm(sentWith)
      const type = mediaType(response)
      if (type === "application/json") {
        const body = yield* readBounded(response, options.maxMessageBytes).pipe(
          Effect.mapError((error) =>
            new ConnectionFailed({ ...who, url: Url.redact(url), reason: Exchange.describe(error) })
          )
        )
        if (body._tag === "TooLarge") {
          return yield* fail(
            new MessageTooLarge({
              ...who,
              bytes: body.bytes,
              limit: options.maxMessageBytes,
              ...(body.encoding === undefined ? {} : { encoding: body.encoding })
            })
          )
        }
        receiver.message(body.text)
        if (!answered()) yield* fail(new ProtocolError({ ...who, detail: "the JSON reply did not answer it" }))
        return
      }
      if (type === "text/event-stream") {
        const events = Inflate.body(response)
        yield* streams.events(events, at, answered, (bytes) => {
          const encoding = events.inflated()
          receiver.failRequest(
            frame.id,
            new MessageTooLarge({
              ...who,
              bytes,
              limit: options.maxMessageBytes,
              ...(encoding === undefined ? {} : { encoding })
            })
          )
          return false
        })
        if (answered()) return
        // No resumption in the era (a request that carries its own version header is one of it, the probe's
        // included): the request is lost, and the session sends it again with a new id.
        if (!session.conduct.resumesStreams || frame.headers?.["mcp-protocol-version"] !== undefined) {
          return yield* fail(new StreamEnded({ ...who, reason: "the stream ended before the answer" }))
        }
        if (at.lastEventId === undefined) {
          return yield* fail(new StreamEnded({ ...who, reason: "it had no event id to resume from" }))
        }
        return yield* streams.resume(
          at,
          answered,
          (reason) => {
            if (receiver.isPending(frame.id)) receiver.failRequest(frame.id, new StreamEnded({ ...who, reason }))
          },
          who,
          false,
          Effect.void
        )
      }
      return yield* fail(
        status === 202 || status === 204
          ? new ProtocolError({ ...who, detail: `HTTP ${status} carried no answer` })
          : new ProtocolError({ ...who, detail: `an answer of type ${JSON.stringify(receiver.excerpt(type, 60))}` })
      )
    })).pipe(Effect.catch(fail), withNames)
  }

  /**
   * A notification or a response, bounded: whether the server accepted it. Only a session loss or a failure is
   * reported.
   */
  const deliver = (frame: Exclude<Frame, { _tag: "Request" }>): Effect.Effect<boolean> => {
    const method = frame._tag === "Notification" ? frame.method : "a response"
    const who = { server, method }
    const sentWith = session.id
    return Effect.scoped(Effect.gen(function*() {
      const response = yield* Exchange.execute(client, url, post(frame, method), who)
      if (response.status >= 200 && response.status < 300) {
        session.confirm(sentWith)
        return true
      }
      const body = yield* Exchange.errorBody(response)
      if (session.isLoss(response.status, body, sentWith)) sessionLoss(sentWith)
      else receiver.diagnose(Exchange.statusError(response, body, who, receiver.excerpt).message)
      return false
    })).pipe(
      Effect.catch((error) => Effect.as(Effect.sync(() => receiver.diagnose(error.message)), false)),
      Effect.timeoutOption(options.notifyTimeoutMs),
      Effect.map((accepted) => accepted._tag === "Some" && accepted.value),
      withNames
    )
  }

  /**
   * `notifications/initialized`, then (once the server accepted it) the GET stream, in one fiber of the transport;
   * completes once that GET has its first answer, or at once when the notification was not accepted.
   */
  const initialized = (frame: Notification): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (session.closed) return Effect.void
      const settled = Deferred.makeUnsafe<void>()
      const settle = Effect.asVoid(Deferred.done(settled, Exit.void))
      run(
        deliver(frame).pipe(
          Effect.flatMap((accepted) => accepted ? serverStreamOf(settle) : Effect.void),
          Effect.ensuring(settle),
          withNames
        )
      )
      return Deferred.await(settled)
    })

  const send = (frame: Frame): void => {
    if (session.closed) return
    if (frame._tag === "Response") {
      const bounded = answers.bounded(Effect.asVoid(deliver(frame)))
      if (bounded === undefined) {
        receiver.diagnose(`dropped an answer to a server request: ${AnswerPool.MAX_WAITING} answers already wait`)
      } else run(bounded)
      return
    }
    if (frame._tag !== "Request") {
      // Closing the request's stream (`abandon`) is the cancellation when the era says so (2026-07-28).
      if (
        session.conduct.cancelsByAbort && frame._tag === "Notification" && frame.method === "notifications/cancelled"
      ) {
        return
      }
      run(Effect.asVoid(deliver(frame)))
      return
    }
    const fiber = run(exchange(frame))
    exchanges.set(frame.id, fiber)
    fiber.addObserver(() => {
      if (exchanges.get(frame.id) === fiber) exchanges.delete(frame.id)
    })
  }

  const close: Effect.Effect<void> = Effect.uninterruptible(Effect.suspend(() => {
    if (session.closed) return Deferred.await(ended).pipe(Effect.asVoid)
    session.closed = true
    const ending = session.id
    const end = ending === undefined ? Effect.void : Effect.scoped(
      Exchange.execute(
        client,
        url,
        (target) => HttpClientRequest.delete(target).pipe(HttpClientRequest.setHeaders(session.headers("delete"))),
        { server, method: "DELETE" }
      )
    ).pipe(Effect.ignore, Effect.timeoutOption(options.closeTimeoutMs), withNames)
    return Effect.gen(function*() {
      yield* FiberSet.clear(fibers)
      yield* end
      yield* Deferred.succeed(ended, { reason: "the transport was closed" })
    })
  }))
  yield* Effect.addFinalizer(() => close)

  return {
    kind: "http" as const,
    send,
    abandon: (id) => exchanges.get(id)?.interruptUnsafe(),
    established: (version, how) => {
      session.version = version
      session.conduct = how
    },
    initialized,
    ended: Deferred.await(ended),
    sessionId: () => session.id,
    serverStream: () => serverStream,
    authorizationContext: readCredentials === undefined ? undefined : Effect.map(readCredentials, (identity) => {
      authorized(identity)
      return session.authorizationContext
    }),
    close
  } satisfies StreamableHttp
})
