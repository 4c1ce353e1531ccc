/**
 * Reads an HTTP response body with a byte cap: reading stops at the first chunk past the cap, and nothing past it
 * is kept. Used for JSON replies and for every error body (a 5xx included), so no body is ever buffered unbounded.
 * A body the server compressed is inflated as it is read (`Inflate`), and the cap applies to the inflated bytes.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Stream from "effect/Stream"
import * as Inflate from "./Inflate.ts"

/** A body read whole, or the size at which reading stopped. */
export type Bounded =
  | { readonly _tag: "Text"; readonly text: string }
  | {
    readonly _tag: "TooLarge"
    readonly bytes: number
    /** The body was compressed in this encoding: `bytes` counts what it inflated to. */
    readonly encoding?: Inflate.Format | undefined
  }

const decoder = new TextDecoder()

/**
 * Reads at most `maxBytes` bytes of the body. A `Content-Length` over the cap is refused before reading. The
 * caller owns the response's scope: closing it aborts whatever was not read.
 */
export const readBounded = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<Bounded, HttpClientError.HttpClientError> => {
  const declared = Number(response.headers["content-length"])
  if (Number.isFinite(declared) && declared > maxBytes) return Effect.succeed({ _tag: "TooLarge", bytes: declared })
  return Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let total = 0
    const body = Inflate.body(response)
    return Stream.runForEachWhile(body.stream, (chunk) =>
      Effect.sync(() => {
        total += chunk.length
        if (total > maxBytes) return false
        chunks.push(chunk)
        return true
      })).pipe(
        Effect.map((): Bounded => {
          if (total > maxBytes) return { _tag: "TooLarge", bytes: total, encoding: body.inflated() }
          if (chunks.length === 1) return { _tag: "Text", text: decoder.decode(chunks[0]) }
          const all = new Uint8Array(total)
          let at = 0
          for (const chunk of chunks) {
            all.set(chunk, at)
            at += chunk.length
          }
          return { _tag: "Text", text: decoder.decode(all) }
        })
      )
  })
}

/** The media type's essence: `application/json; charset=utf-8` → `application/json`. */
export const mediaType = (response: HttpClientResponse.HttpClientResponse): string =>
  (response.headers["content-type"] ?? "").split(";", 1)[0]!.trim().toLowerCase()
