/**
 * Property tests of the reader's line framer (`src/wire/Stdio/LineFramer.ts`): chunking never changes what it
 * reports, arbitrary bytes never make it throw, and it never holds more than `maxBytes` of an unfinished line.
 */
import { describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { FramerHandler } from "../../src/wire/Stdio/LineFramer.ts"
import { LineFramer } from "../../src/wire/Stdio/LineFramer.ts"
import { concatBytes, hostilePart, notificationLine as message } from "./arbitraries.ts"

type Event =
  | { readonly _tag: "line"; readonly text: string }
  | { readonly _tag: "oversize"; readonly bytes: number; readonly head: string; readonly tail: string }
  | { readonly _tag: "invalidUtf8"; readonly excerpt: string }

/** How much of an oversize line the framer keeps as its head and tail excerpts. */
const KEEP = 512

/**
 * Runs a framer over the chunks and returns everything it reported, in order. Under a cap below `KEEP` the head
 * excerpt can only hold what came before the cap was passed, which depends on the chunking: it is left out then.
 */
const frame = (maxBytes: number, chunks: ReadonlyArray<Uint8Array>): Array<Event> => {
  const events: Array<Event> = []
  const handler: FramerHandler = {
    line: (text) => events.push({ _tag: "line", text }),
    // The head and tail excerpts too: the reader reads the id of an oversize answer from them.
    oversize: (bytes, head, tail) => events.push({ _tag: "oversize", bytes, head: maxBytes < KEEP ? "" : head, tail }),
    invalidUtf8: (excerpt) => events.push({ _tag: "invalidUtf8", excerpt })
  }
  const framer = new LineFramer(maxBytes, handler)
  for (const chunk of chunks) {
    framer.push(chunk)
    if (framer.buffered > maxBytes) throw new Error(`buffered ${framer.buffered} > maxBytes ${maxBytes}`)
  }
  framer.end()
  return events
}

/** Cuts bytes at the given offsets (any order, duplicates allowed): every chunking of the stream is reachable. */
const cut = (bytes: Uint8Array, offsets: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(offsets.map((o) => (bytes.length === 0 ? 0 : o % (bytes.length + 1))))].sort((a, b) =>
    a - b
  )
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const point of [...points, bytes.length]) {
    // Copy, like a real pipe does: the framer must not depend on chunks sharing one buffer.
    chunks.push(bytes.slice(start, point))
    start = point
  }
  return chunks
}

const encoder = new TextEncoder()

/** A byte stream built from hostile pieces. */
const nastyBytes = fc.array(hostilePart, { maxLength: 30 }).map(concatBytes)

describe("LineFramer properties", () => {
  it("any chunking of a valid stream (\\n or \\r\\n, last newline optional) yields exactly its messages", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(message, fc.boolean()), { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.nat({ max: 64 }),
        (messages, finalNewline, offsets, slack) => {
          const text = messages
            .map(([m, crlf], i) => m + (i < messages.length - 1 || finalNewline ? (crlf ? "\r\n" : "\n") : ""))
            .join("")
          const bytes = encoder.encode(text)
          const longest = Math.max(...messages.map(([m]) => encoder.encode(m).length + 1))
          const events = frame(longest + slack, cut(bytes, offsets))
          const expected: Array<Event> = messages.map(([m]) => ({ _tag: "line", text: m }))
          if (JSON.stringify(events) !== JSON.stringify(expected)) {
            throw new Error(`got ${JSON.stringify(events).slice(0, 500)}`)
          }
        }
      ),
      { numRuns: 500 }
    )
  })

  it("arbitrary bytes under any chunking never throw and report what one whole chunk reports", () => {
    fc.assert(
      fc.property(
        nastyBytes,
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.oneof(fc.integer({ min: 1, max: 96 }), fc.integer({ min: KEEP, max: 1_024 })),
        (bytes, offsets, maxBytes) => {
          const whole = frame(maxBytes, [bytes])
          const chunked = frame(maxBytes, cut(bytes, offsets))
          if (JSON.stringify(chunked) !== JSON.stringify(whole)) {
            throw new Error(`chunked ${JSON.stringify(chunked)}\nwhole ${JSON.stringify(whole)}`)
          }
        }
      ),
      { numRuns: 1_000 }
    )
  })

  it("a line over maxBytes is reported once as oversize, with its byte count, head and tail, whatever the chunking", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 8, max: 200 }), fc.integer({ min: KEEP, max: 1_500 })),
        fc.integer({ min: 1, max: 2_000 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (maxBytes, excess, offsets) => {
          const line = "x".repeat(maxBytes + excess)
          const bytes = encoder.encode(`${line}\n{"ok":1}\n`)
          const events = frame(maxBytes, cut(bytes, offsets))
          const excerpt = line.slice(0, KEEP) // head and tail: the first and the last KEEP bytes (all "x")
          const expected = [
            { _tag: "oversize", bytes: line.length, head: maxBytes < KEEP ? "" : excerpt, tail: excerpt },
            { _tag: "line", text: "{\"ok\":1}" }
          ]
          if (JSON.stringify(events) !== JSON.stringify(expected)) throw new Error(`got ${JSON.stringify(events)}`)
        }
      ),
      { numRuns: 500 }
    )
  })
})
