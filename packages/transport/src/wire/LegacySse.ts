/**
 * The deprecated HTTP+SSE transport (MCP 2024-11-05), still served by many deployed servers.
 *
 * The client opens a GET event stream at the URL; its first event, `endpoint`, names where to POST messages (it
 * must be on the URL's origin: `UrlPolicy`'s rule for an SSE endpoint); every answer and server message then
 * arrives as a `message` event on that one stream. The stream is the session: when it ends, the transport has
 * ended. Every request of the session, the POSTs to the endpoint included, carries the credentials of the
 * configured server (its URL), whatever path the endpoint names.
 *
 * `make` returns at once and connects in the background; messages sent before the endpoint is known wait for it,
 * and fail with the connection's error if it never comes (bounded by `connectTimeoutMs`).
 *
 * A request's POST is only an acknowledgement (202); its answer comes on the stream. The POST is aborted once the
 * answer has arrived, and any POST is aborted when no acknowledgement came within `notifyTimeoutMs` (a request then
 * keeps waiting for its answer on the stream, within its own deadline): a server that never answers POSTs once held
 * one socket per call until close.
 *
 * @since 0.2.0
 */
import * as UrlPolicy from "@mcp-fleet/auth/UrlPolicy"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { ConnectionFailed } from "../HttpError.ts"
import { ProtocolError } from "../McpError.ts"
import * as AnswerPool from "./http/AnswerPool.ts"
import { mediaType } from "./http/Body.ts"
import * as Exchange from "./http/Exchange.ts"
import * as Inflate from "./http/Inflate.ts"
import * as SseReader from "./http/SseReader.ts"
import * as Url from "./http/Url.ts"
import * as UserHeaders from "./http/UserHeaders.ts"
import type { Ended, Frame, Receiver, RequestFailure, Transport } from "./Transport.ts"

/**
 * @since 0.2.0
 * @category options
 */
export interface Options {
  readonly server: string
  readonly url: URL
  readonly headers: Readonly<Record<string, string | Redacted.Redacted<string>>>
  readonly maxMessageBytes: number
  /** How long the `endpoint` event may take to arrive. */
  readonly connectTimeoutMs: number
  /** Bound of a notification's or response's POST, and of the wait for any POST's acknowledgement. */
  readonly notifyTimeoutMs: number
  /** What a request waiting for the endpoint fails with when connecting fails (default: the connect error). */
  readonly connectFailure?: ((method: string, error: RequestFailure) => RequestFailure) | undefined
}

type Connecting = { readonly _tag: "Connecting"; readonly queue: Array<Frame> }
type State = Connecting | { readonly _tag: "Open"; readonly endpoint: URL } | { readonly _tag: "Ended" }

/**
 * Builds the transport and starts connecting. Needs `HttpClient` and a `Scope` (closing it ends the stream).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (
  options: Options,
  receiver: Receiver
) => Effect.Effect<Transport, never, Scope.Scope | HttpClient.HttpClient> = Effect.fnUntraced(function*(
  options: Options,
  receiver: Receiver
) {
  const { server, url } = options
  const client = HttpClient.withScope(yield* HttpClient.HttpClient)
  const fibers = yield* FiberSet.make()
  const run = yield* FiberSet.runtime(fibers)<HttpClient.HttpClient>()
  const ended = yield* Deferred.make<Ended>()
  const user = UserHeaders.prepare(options.headers)
  const userHeaders = user.plain
  const withNames = user.redacting

  let state: State = { _tag: "Connecting", queue: [] }
  const exchanges = new Map<number, Fiber.Fiber<unknown, unknown>>()
  const answers = AnswerPool.make()

  const end = (reason: string) => {
    if (state._tag === "Ended") return
    state = { _tag: "Ended" }
    Deferred.doneUnsafe(ended, Exit.succeed({ reason }))
  }

  /** Connecting failed: every request waiting for the endpoint fails with `error`, and the transport ends. */
  const refuse = (error: (method: string) => RequestFailure) => {
    if (state._tag !== "Connecting") return
    const queue = state.queue
    end(error("the SSE stream").message)
    for (const frame of queue) {
      if (frame._tag !== "Request") continue
      const cause = error(frame.method)
      receiver.failRequest(frame.id, options.connectFailure?.(frame.method, cause) ?? cause)
    }
  }

  const postTo = (endpoint: URL, frame: Frame): Effect.Effect<void> => {
    const method = frame._tag === "Response" ? "a response" : frame.method
    const who = { server, method }
    const body = Effect.scoped(Effect.gen(function*() {
      const response = yield* Exchange.execute(
        client,
        endpoint,
        (target) =>
          HttpClientRequest.post(target).pipe(
            HttpClientRequest.setHeaders(userHeaders),
            HttpClientRequest.bodyText(frame.text, "application/json")
          ),
        who,
        undefined,
        url
      )
      if (response.status >= 200 && response.status < 300) return
      const error = Exchange.statusError(response, yield* Exchange.errorBody(response), who, receiver.excerpt)
      if (frame._tag === "Request") receiver.failRequest(frame.id, error)
      else receiver.diagnose(error.message)
    }))
    return body.pipe(
      Effect.catch((error) =>
        Effect.sync(() => {
          if (frame._tag === "Request") {
            if (receiver.isPending(frame.id)) receiver.failRequest(frame.id, error)
          } else receiver.diagnose(error.message)
        })
      ),
      Effect.timeoutOption(options.notifyTimeoutMs),
      Effect.flatMap((acknowledged) =>
        Option.isSome(acknowledged) || frame._tag !== "Request" || !receiver.isPending(frame.id)
          ? Effect.void
          : Effect.sync(() =>
            receiver.diagnose(
              `the server did not acknowledge the POST of ${method} within ${options.notifyTimeoutMs} ms; it was aborted, and the answer may still come on the stream`
            )
          )
      ),
      withNames
    )
  }

  /** The POSTs of requests whose answer has come on the stream are aborted (their acknowledgement is moot). */
  const abortAnswered = () => {
    for (const [id, fiber] of exchanges) {
      if (receiver.isPending(id)) continue
      exchanges.delete(id)
      fiber.interruptUnsafe()
    }
  }

  const dispatch = (endpoint: URL, frame: Frame) => {
    if (frame._tag === "Response") {
      // Answers to the server's requests go a few at a time (`AnswerPool`).
      const bounded = answers.bounded(postTo(endpoint, frame))
      if (bounded === undefined) {
        receiver.diagnose(`dropped an answer to a server request: ${AnswerPool.MAX_WAITING} answers already wait`)
      } else run(bounded)
      return
    }
    const fiber = run(postTo(endpoint, frame))
    if (frame._tag !== "Request") return
    exchanges.set(frame.id, fiber)
    fiber.addObserver(() => {
      if (exchanges.get(frame.id) === fiber) exchanges.delete(frame.id)
    })
  }

  const onEndpoint = (data: string): boolean => {
    if (state._tag !== "Connecting") return true
    const verdict = UrlPolicy.judge("SSE endpoint", data.trim(), url)
    if (verdict._tag === "Refused") {
      refuse((method) =>
        new ProtocolError({
          server,
          method,
          detail: `its endpoint event named ${
            JSON.stringify(UrlPolicy.show(data.trim(), url))
          }, refused: ${verdict.reason}`
        })
      )
      return false
    }
    const endpoint = verdict.url
    const queue = state.queue
    state = { _tag: "Open", endpoint }
    timer.interruptUnsafe()
    for (const frame of queue) dispatch(endpoint, frame)
    return true
  }

  const connect = Effect.scoped(Effect.gen(function*() {
    const who = { server, method: "the SSE stream" }
    const response = yield* Exchange.execute(
      client,
      url,
      (target) =>
        HttpClientRequest.get(target).pipe(
          HttpClientRequest.setHeaders({ ...userHeaders, accept: "text/event-stream" })
        ),
      who
    )
    if (response.status < 200 || response.status >= 300) {
      const body = yield* Exchange.errorBody(response)
      return refuse((method) => Exchange.statusError(response, body, { server, method }, receiver.excerpt))
    }
    if (mediaType(response) !== "text/event-stream") {
      return refuse((method) =>
        new ProtocolError({ server, method, detail: "the SSE endpoint did not answer with an event stream" })
      )
    }
    yield* SseReader.read(Inflate.body(response).stream, options.maxMessageBytes, SseReader.cursor(), {
      event: (name, data) => {
        if (state._tag === "Connecting") {
          if (name === "endpoint") return onEndpoint(data)
          refuse((method) =>
            new ProtocolError({ server, method, detail: `the SSE stream began with a ${name} event, not endpoint` })
          )
          return false
        }
        if (name === "message") {
          receiver.message(data)
          if (exchanges.size > 0) abortAnswered()
        }
        return true
      },
      oversize: (bytes) => {
        receiver.diagnose(`skipped a ${bytes}-byte event over the ${options.maxMessageBytes}-byte limit`)
        return true
      }
    }).pipe(
      Effect.mapError((error) =>
        new ConnectionFailed({ ...who, url: Url.redact(url), reason: Exchange.describe(error) })
      )
    )
    refuse((method) =>
      new ConnectionFailed({
        server,
        method,
        url: Url.redact(url),
        reason: "the SSE stream ended before its endpoint event"
      })
    )
    end("the server ended the SSE stream")
  })).pipe(
    Effect.catch((error) =>
      Effect.sync(() => {
        refuse(() => error)
        end(error.message)
      })
    ),
    withNames
  )
  const connection = run(connect)
  const timer = run(
    Effect.sleep(options.connectTimeoutMs).pipe(Effect.andThen(Effect.sync(() => {
      if (state._tag !== "Connecting") return
      refuse((method) =>
        new ConnectionFailed({
          server,
          method,
          url: Url.redact(url),
          reason: `no endpoint event within ${options.connectTimeoutMs} ms`
        })
      )
      connection.interruptUnsafe()
    })))
  )

  const send = (frame: Frame): void => {
    if (state._tag === "Connecting") state.queue.push(frame)
    else if (state._tag === "Open") dispatch(state.endpoint, frame)
  }

  return {
    kind: "sse",
    send,
    abandon: (id) => exchanges.get(id)?.interruptUnsafe(),
    established: () => {},
    // The stream is this wire's first exchange: nothing opens after the handshake.
    initialized: (frame) => Effect.sync(() => send(frame)),
    ended: Deferred.await(ended),
    close: Effect.suspend(() => {
      end("the transport was closed")
      return FiberSet.clear(fibers)
    })
  } satisfies Transport
})
