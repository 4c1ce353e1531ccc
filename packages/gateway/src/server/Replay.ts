/**
 * The SSE streams of one 2025-era session, numbered and kept so that a host that lost a connection resumes where it
 * was (SEP-1699, `Last-Event-ID` on a `GET`): the session's own `GET` stream, and each `POST` answered with a
 * stream (its messages, then the answer).
 *
 * - Event ids are `<prefix>-<n>`, the prefix given when the stream is opened (the replica's scheme,
 *   `Sealed.EventIds`: it names the replica, the stream and, for a request's stream, the request); `n` = 0 is the
 *   priming event (an id, the `retry:` delay, no data), messages count from 1. A resumed response replays the events
 *   after the one named, then carries on with the stream, and only that stream (never another stream's messages).
 *   An id this session does not keep (another replica's, one forgotten) is not found here: what to do then is the
 *   caller's (`Sealed.resumedElsewhere`).
 * - A stream's messages are kept whether or not a response is attached: a `POST` whose client went away still gets
 *   its answer written down, for the `GET` that resumes it. Bounded: the last `maxEvents` events of a stream and the
 *   last `maxStreams` streams of a session (ended ones go first).
 * - One response at a time per stream: a second one takes over (the first ends).
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"

const encoder = new TextEncoder()

/** How long a 2025-era client should wait before reconnecting a dropped stream (the SSE `retry:` field). */
export const RETRY_MS = 1_000

/** One resumable stream. */
export interface Resumable {
  /** The prefix of its event ids. */
  readonly id: string
  /** Numbers and keeps a message, and writes it to the attached response, if any. */
  readonly send: (message: Record<string, unknown>) => void
  /** No more messages (a `POST` stream's answer was sent; the session closed): attached responses end. */
  readonly end: () => void
  /** A response is attached now. */
  readonly attached: () => boolean
  /**
   * An HTTP response body for this stream: the priming event then every message (`after` undefined), or the
   * events after number `after` (a resumption); then what comes, until the stream ends or the client leaves.
   */
  readonly body: (after: number | undefined) => Stream.Stream<Uint8Array>
  /** The number of the last event (0: only the priming one). */
  readonly last: () => number
}

/** The streams of one session. */
export interface Streams {
  /** A new stream whose event ids are `<prefix>-<n>` (`prefix` unique to the stream). */
  readonly open: (prefix: string) => Resumable
  /** The stream and the event number a `Last-Event-ID` names, if this session still keeps them. */
  readonly find: (lastEventId: string) => { readonly stream: Resumable; readonly after: number } | undefined
  /** Ends every stream (the session is closing). */
  readonly endAll: () => void
}

/** `<prefix>-<n>`: the prefix may hold `-` itself (base64url), the number is what follows the last one. */
const EVENT_ID = /^(.+)-(\d{1,15})$/

/** The streams of a new session. */
export const make = (limits: { readonly maxStreams: number; readonly maxEvents: number }): Streams => {
  const streams = new Map<string, Resumable & { readonly ended: () => boolean }>()

  const open = (id: string): Resumable => {
    const events: Array<{ readonly n: number; readonly bytes: Uint8Array }> = []
    let next = 1
    let ended = false
    let sink: Queue.Queue<Uint8Array, Cause.Done> | undefined

    const send = (message: Record<string, unknown>) => {
      if (ended) return
      const n = next++
      const bytes = encoder.encode(`id: ${id}-${n}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`)
      events.push({ n, bytes })
      if (events.length > limits.maxEvents) events.shift()
      if (sink !== undefined) Queue.offerUnsafe(sink, bytes)
    }
    const end = () => {
      ended = true
      if (sink !== undefined) Queue.endUnsafe(sink)
    }
    const body = (after: number | undefined): Stream.Stream<Uint8Array> =>
      Stream.unwrap(Effect.map(Queue.unbounded<Uint8Array, Cause.Done>(), (queue) => {
        if (sink !== undefined) Queue.endUnsafe(sink)
        sink = queue
        if (after === undefined) Queue.offerUnsafe(queue, encoder.encode(`id: ${id}-0\nretry: ${RETRY_MS}\ndata: \n\n`))
        for (const event of events) if (event.n > (after ?? 0)) Queue.offerUnsafe(queue, event.bytes)
        if (ended) Queue.endUnsafe(queue)
        return Stream.fromQueue(queue).pipe(
          Stream.ensuring(Effect.sync(() => {
            if (sink === queue) sink = undefined
          }))
        )
      }))
    const stream = { id, send, end, body, attached: () => sink !== undefined, last: () => next - 1, ended: () => ended }
    streams.set(id, stream)
    if (streams.size > limits.maxStreams) {
      const oldest = [...streams.values()].find((s) => s.ended()) ?? streams.values().next().value
      if (oldest !== undefined) {
        oldest.end()
        streams.delete(oldest.id)
      }
    }
    return stream
  }

  return {
    open,
    find: (lastEventId) => {
      const match = EVENT_ID.exec(lastEventId.trim())
      const stream = match === null ? undefined : streams.get(match[1]!)
      return stream === undefined ? undefined : { stream, after: Number(match![2]) }
    },
    endAll: () => {
      for (const stream of streams.values()) stream.end()
    }
  }
}
