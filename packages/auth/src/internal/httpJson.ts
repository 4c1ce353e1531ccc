/**
 * One HTTP exchange whose answer should be JSON: the status, and the body parsed (or why it is not JSON).
 * Bodies are capped so a hostile peer cannot make us buffer without bound.
 */
import { Effect, Option, Schema } from "effect"
import { HttpClient, type HttpClientError, HttpClientRequest } from "effect/http"

/** The most bytes of a metadata, registration or token response that are read. */
export const MAX_BODY_CHARS = 256 * 1024

export interface JsonReply {
  readonly status: number
  readonly contentType: string
  /** The parsed body; none when it was empty, too large or not JSON. */
  readonly body: Option.Option<unknown>
}

const parseJson = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Unknown))

/** Sends `request` and reads its answer as JSON (never fails on a bad body: `body` is then none). */
export const exchangeJson = (
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<JsonReply, HttpClientError.HttpClientError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(request)
    const text = yield* response.text
    const contentType = response.headers["content-type"] ?? ""
    const body = text.length > MAX_BODY_CHARS ? Option.none() : parseJson(text)
    return { status: response.status, contentType, body }
  }).pipe(Effect.scoped)

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
