/**
 * Reads a `text/event-stream` body event by event with `Sse.makeParser` (not `Sse.decode`, which fails on a
 * `retry:` line before the event that follows it), with a size cap on each event.
 *
 * The stream's cursor (the last event id) and the server's `retry:` delay are written into a `Cursor` as they
 * arrive, so that whoever resumes the stream after a drop knows both even when the read ended in an error.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Sse from "effect/encoding/Sse"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as Stream from "effect/Stream"

/** Where a stream is: its last event id and the server's last `retry:` value. */
export interface Cursor {
  lastEventId: string | undefined
  retryMs: number | undefined
  /** Events seen on this stream since it was (re)opened. */
  events: number
  /** Events with data (messages) among them: a priming or keep-alive event is an event, not a message. */
  messages: number
}

/** A fresh cursor. */
export const cursor = (): Cursor => ({ lastEventId: undefined, retryMs: undefined, events: 0, messages: 0 })

/** What the reader reports for each event; returning `false` stops reading. */
export interface EventHandler {
  /** An event with data (priming and keep-alive events, which have none, are not reported). */
  readonly event: (name: string, data: string) => boolean
  /** An event over the cap: its data was dropped. Returning `false` stops reading. */
  readonly oversize: (bytes: number) => boolean
}

const encoder = new TextEncoder()

const byteLength = (text: string, limit: number): number =>
  // A string of n UTF-16 units is at least n and at most 3n UTF-8 bytes: encode only when it matters.
  text.length > limit || text.length * 3 <= limit ? text.length : encoder.encode(text).length

/**
 * Reads `body` until it ends, fails, or the handler returns `false`. Memory stays within about one event cap plus
 * one chunk: the parser refuses a pending event over `maxBytes`, and a dispatched one over it is dropped.
 */
export const read = (
  body: Stream.Stream<Uint8Array, HttpClientError.HttpClientError>,
  maxBytes: number,
  at: Cursor,
  handler: EventHandler
): Effect.Effect<void, HttpClientError.HttpClientError> =>
  Effect.suspend(() => {
    const decoder = new TextDecoder()
    let go = true
    const parser = Sse.makeParser((item) => {
      if (!go) return
      if (item._tag === "Retry") {
        at.retryMs = Duration.toMillis(item.duration)
        return
      }
      at.events++
      if (item.id !== undefined) at.lastEventId = item.id
      if (item.data === "") return
      at.messages++
      const bytes = byteLength(item.data, maxBytes)
      go = bytes > maxBytes ? handler.oversize(bytes) : handler.event(item.event, item.data)
    }, { maxEventSize: maxBytes })
    const feed = (text: string): boolean => {
      const error = parser.feed(text)
      if (error !== undefined && go) go = handler.oversize(maxBytes + 1)
      return go
    }
    return Stream.runForEachWhile(body, (chunk) => Effect.sync(() => feed(decoder.decode(chunk, { stream: true }))))
      .pipe(
        Effect.andThen(Effect.sync(() => {
          if (go) feed(decoder.decode())
        }))
      )
  })
