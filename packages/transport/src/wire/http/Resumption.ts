/**
 * The event streams of a Streamable HTTP transport: reading one into the receiver, and opening one again with
 * `GET` (+ `Last-Event-ID` once it has one) whenever it drops, within the `Reconnects` rules. The server's own
 * stream (for what it sends unprompted) and a request's answer stream that dropped before its answer both go
 * through `resume`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Scope from "effect/Scope"
import type { Receiver } from "../Transport.ts"
import { mediaType } from "./Body.ts"
import * as Exchange from "./Exchange.ts"
import type { HttpSession } from "./HttpSession.ts"
import * as Inflate from "./Inflate.ts"
import * as Reconnects from "./Reconnects.ts"
import * as SseReader from "./SseReader.ts"

/** What the streams need of their transport. */
export interface Context {
  readonly client: HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>
  readonly url: URL
  readonly session: HttpSession
  readonly receiver: Receiver
  readonly maxMessageBytes: number
  /** Resumption attempts in a row that bring no event, before a stream is given up. */
  readonly maxResumeAttempts: number
}

/** A transport's streams. */
export interface Resumption {
  /** Reads an event stream into the receiver; stops when `done()` says the stream's purpose is met. */
  readonly events: (
    body: Inflate.Body,
    at: SseReader.Cursor,
    done: () => boolean,
    onOversize: (bytes: number) => boolean
  ) => Effect.Effect<void>
  /**
   * Opens a stream with GET (+ Last-Event-ID once it has one) and opens it again whenever it drops, until `done()`,
   * within the `Reconnects` rules: a wait of the server's `retry:` (at least 250 ms), at most 10 openings a minute
   * (a stream that used them without carrying a message is given up), a refused GET tried once more, and
   * `maxResumeAttempts` attempts in a row without an event. `giveUp` says why it stopped. A GET's status never
   * counts as a session loss: a POST finds that out. It stops too when the transport closes or the session is lost.
   * `answered` runs each time a GET has its answer: the stream is open, or the GET failed and is tried again (when it
   * is given up, `resume` returns after `giveUp`).
   */
  readonly resume: (
    at: SseReader.Cursor,
    done: () => boolean,
    giveUp: (reason: string) => void,
    who: Exchange.Origin,
    immediately: boolean,
    answered: Effect.Effect<void>
  ) => Effect.Effect<void>
}

/** The streams of the transport `context` describes. */
export const make = (context: Context): Resumption => {
  const { client, maxMessageBytes, receiver, session, url } = context

  const get = (lastEventId: string | undefined) => (target: URL) =>
    HttpClientRequest.get(target).pipe(HttpClientRequest.setHeaders(session.headers("get", lastEventId)))

  const events: Resumption["events"] = (body, at, done, onOversize) =>
    SseReader.read(body.stream, maxMessageBytes, at, {
      event: (name, data) => {
        if (name === "message") receiver.message(data)
        else receiver.diagnose(`skipped a server-sent event of type ${JSON.stringify(receiver.excerpt(name, 40))}`)
        return !done()
      },
      oversize: onOversize
    }).pipe(Effect.ignore)

  const resume: Resumption["resume"] = Effect.fnUntraced(function*(at, done, giveUp, who, immediately, answered) {
    const g = session.generation
    const stale = () => session.closed || done() || session.generation !== g
    const budget = Reconnects.budget()
    let refusals = 0
    for (let attempt = 0, first = immediately;; first = false) {
      if (!first) yield* Effect.sleep(Reconnects.delayMs(at.retryMs, attempt))
      if (stale()) return
      let turn = budget.next(yield* Clock.currentTimeMillis)
      while (turn._tag === "Wait") {
        yield* Effect.sleep(turn.ms)
        if (stale()) return
        turn = budget.next(yield* Clock.currentTimeMillis)
      }
      if (turn._tag === "GiveUp") return giveUp(turn.reason)
      const sentWith = session.id
      const seen = at.events
      const messages = at.messages
      const outcome = yield* Effect.scoped(Effect.gen(function*() {
        const response = yield* Exchange.execute(client, url, get(at.lastEventId), who)
        const status = response.status
        if (status < 200 || status >= 300) return status
        session.confirm(sentWith)
        if (mediaType(response) !== "text/event-stream") return "a GET answer that is not an event stream"
        yield* answered
        yield* events(Inflate.body(response), at, stale, (bytes) => {
          receiver.diagnose(`skipped a ${bytes}-byte event over the ${maxMessageBytes}-byte limit`)
          return true
        })
        return "dropped"
      })).pipe(Effect.catch((error) => Effect.succeed(error.message)))
      if (at.messages > messages) budget.carried(yield* Clock.currentTimeMillis)
      if (stale()) return
      if (outcome === 405) return giveUp("the server offers no GET stream (HTTP 405)")
      if (typeof outcome === "number" && Reconnects.isRefusal(outcome) && ++refusals >= Reconnects.MAX_REFUSALS) {
        return giveUp(`the server refused its GET ${refusals} times (HTTP ${outcome})`)
      }
      // A refused or failed GET that is tried again: its answer has come all the same.
      yield* answered
      attempt = at.events > seen ? 0 : attempt + 1
      if (attempt >= context.maxResumeAttempts) {
        const why = typeof outcome === "number" ? `HTTP ${outcome}` : outcome
        return giveUp(`${attempt} attempts in a row to open it failed (${why})`)
      }
    }
  })

  return { events, resume }
}
