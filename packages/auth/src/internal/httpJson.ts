/**
 * One HTTP exchange whose answer should be JSON: the status, and the body parsed (or none). Every exchange
 * has a deadline, and bodies are read up to a cap, so a hostile or stuck peer can neither hang the flow nor
 * make it buffer without bound.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/** The most bytes of a metadata, registration or token response that are read. */
export const MAX_BODY_BYTES = 256 * 1024

/** The deadline of one exchange unless the caller gives another. */
export const DEFAULT_TIMEOUT: Duration.Input = "30 seconds"

export interface JsonReply {
  readonly status: number
  readonly contentType: string
  /** The parsed body; none when it was empty, too large or not JSON. */
  readonly body: Option.Option<unknown>
  /** The body was longer than `MAX_BODY_BYTES` (and was not read further). */
  readonly oversize: boolean
  /** The `DPoP-Nonce` header (RFC 9449 §8), when the server sent one. */
  readonly dpopNonce: string | undefined
}

/** The exchange did not complete: `reason` finishes the sentence "the endpoint …". */
export class ExchangeFailed extends Data.TaggedError("ExchangeFailed")<{
  readonly reason: string
  readonly cause?: unknown
}> {}

const parseJson = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Unknown))

/** Reads at most `MAX_BODY_BYTES`; none when the body is longer. */
const readCapped = Effect.fnUntraced(function*(stream: Stream.Stream<Uint8Array, unknown>) {
  const chunks: Array<Uint8Array> = []
  let size = 0
  yield* Stream.runForEachWhile(stream, (chunk) =>
    Effect.sync(() => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) return false
      chunks.push(chunk)
      return true
    }))
  if (size > MAX_BODY_BYTES) return Option.none<string>()
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.length
  }
  return Option.some(new TextDecoder().decode(bytes))
})

/** Sends `request` and reads its answer as JSON (a bad or oversize body is `body: none`, not a failure). */
export const exchangeJson: (
  request: HttpClientRequest.HttpClientRequest,
  timeout?: Duration.Input
) => Effect.Effect<JsonReply, ExchangeFailed, HttpClient.HttpClient> = Effect.fnUntraced(function*(
  request: HttpClientRequest.HttpClientRequest,
  // Read by the deadline below (the second argument), not by the exchange itself.
  _timeout?: Duration.Input
) {
  const client = yield* HttpClient.HttpClient
  const response = yield* client.execute(request)
  const text = yield* readCapped(response.stream)
  const contentType = response.headers["content-type"] ?? ""
  return {
    status: response.status,
    contentType,
    body: Option.flatMap(text, parseJson),
    oversize: Option.isNone(text),
    dpopNonce: response.headers["dpop-nonce"]
  }
}, (effect, _request, timeout = DEFAULT_TIMEOUT) =>
  effect.pipe(
    Effect.scoped,
    Effect.mapError((cause) => new ExchangeFailed({ reason: "could not be reached", cause })),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.fail(
          new ExchangeFailed({ reason: `gave no answer within ${Duration.format(Duration.fromInputUnsafe(timeout))}` })
        )
    })
  ))

/** GETs `url` and decodes a 2xx JSON answer with `decode`; none on any failure (the caller tries the next URL). */
export const fetchDocument = <A>(
  url: string,
  decode: (input: unknown) => Option.Option<A>
): Effect.Effect<Option.Option<A>, never, HttpClient.HttpClient> =>
  exchangeJson(HttpClientRequest.get(url).pipe(HttpClientRequest.acceptJson)).pipe(
    Effect.map((reply) =>
      reply.status >= 200 && reply.status < 300 ? Option.flatMap(reply.body, decode) : Option.none()
    ),
    Effect.catch(() => Effect.succeedNone)
  )
