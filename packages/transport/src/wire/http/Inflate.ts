/**
 * A response body that a server compressed although the client never asked it to (no `Accept-Encoding` is sent):
 * `Content-Encoding: gzip` or `deflate` is inflated as it is read (`DecompressionStream`, a web standard), so the
 * byte caps apply to what the body decompresses to, and a gzip bomb stops at the cap with a message that says so
 * (issue 24: it once failed as "the JSON reply did not answer it").
 *
 * The header alone is not trusted: an `HttpClient` built on `fetch` has inflated the body already and keeps the
 * header. The first byte decides (a JSON or SSE text never starts with a gzip or zlib header byte). Other encodings
 * are read as they come.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Option from "effect/Option"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"

/** The encodings inflated here. */
export type Format = "gzip" | "deflate"

/** The encoding `Content-Encoding` names, when it is one this module inflates. */
const formatOf = (response: HttpClientResponse.HttpClientResponse): Format | undefined => {
  const value = (response.headers["content-encoding"] ?? "").trim().toLowerCase()
  return value === "gzip" || value === "x-gzip" ? "gzip" : value === "deflate" ? "deflate" : undefined
}

/** Whether a body's first byte starts a gzip member (0x1f 0x8b) or a zlib stream (CM 8, CINFO ≤ 7). */
const compressed = (first: number, format: Format): boolean =>
  format === "gzip" ? first === 0x1f : (first & 0x0f) === 8 && first >> 4 <= 7

/** A body as read: its bytes, and the encoding they were inflated from, once reading found them compressed. */
export interface Body {
  readonly stream: Stream.Stream<Uint8Array, HttpClientError.HttpClientError>
  readonly inflated: () => Format | undefined
}

/** The body of `response`, inflated when the server compressed it. */
export const body = (response: HttpClientResponse.HttpClientResponse): Body => {
  const format = formatOf(response)
  if (format === undefined) return { stream: response.stream, inflated: () => undefined }
  let inflated = false
  const stream = Stream.unwrap(Effect.map(
    Stream.peel(response.stream, Sink.head<Uint8Array>()),
    ([first, rest]): Stream.Stream<Uint8Array, HttpClientError.HttpClientError> => {
      if (Option.isNone(first)) return Stream.empty
      const whole = Stream.concat(Stream.make(first.value), rest)
      const byte = first.value[0]
      if (byte === undefined || !compressed(byte, format)) return whole
      inflated = true
      return Stream.fromReadableStream({
        evaluate: () => Stream.toReadableStream(whole).pipeThrough(new DecompressionStream(format)),
        onError: (cause) =>
          HttpClientError.isHttpClientError(cause) ? cause : new HttpClientError.HttpClientError({
            reason: new HttpClientError.DecodeError({
              request: response.request,
              response,
              cause,
              description: `its ${format} body could not be inflated`
            })
          })
      })
    }
  ))
  return { stream, inflated: () => (inflated ? format : undefined) }
}
