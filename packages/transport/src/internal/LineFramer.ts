/**
 * Splits a byte stream into newline-terminated UTF-8 lines, over whole chunks, with a size cap.
 *
 * A line longer than `maxBytes` is never buffered whole: once it passes the cap its bytes are dropped and
 * only a short head and tail are kept, so the caller can still read the JSON-RPC `id` of the oversize
 * message and fail the matching request at once.
 *
 * @internal
 */

/** What the framer reports. Called synchronously from `push` / `end`. */
export interface FramerHandler {
  readonly line: (text: string) => void
  readonly oversize: (bytes: number, head: string, tail: string) => void
  readonly invalidUtf8: (excerpt: string) => void
}

const NEWLINE = 10
const CR = 13
const KEEP = 512

const strict = new TextDecoder("utf-8", { fatal: true })
const lenient = new TextDecoder("utf-8")

const decodeLine = (bytes: Uint8Array, handler: FramerHandler): void => {
  let end = bytes.length
  if (end > 0 && bytes[end - 1] === CR) end--
  if (end === 0) return
  const view = end === bytes.length ? bytes : bytes.subarray(0, end)
  let text: string
  try {
    text = strict.decode(view)
  } catch {
    handler.invalidUtf8(lenient.decode(view.subarray(0, 200)))
    return
  }
  handler.line(text)
}

/** @internal */
export class LineFramer {
  private parts: Array<Uint8Array> = []
  private size = 0
  private discarding = false
  private discarded = 0
  private head = ""
  private tail: Uint8Array = new Uint8Array(0)

  readonly maxBytes: number
  private readonly handler: FramerHandler

  constructor(maxBytes: number, handler: FramerHandler) {
    this.maxBytes = maxBytes
    this.handler = handler
  }

  /** Feeds one chunk; every complete line in it is reported before this returns. */
  push(chunk: Uint8Array): void {
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start)
      if (nl === -1) {
        this.accumulate(chunk.subarray(start))
        return
      }
      const piece = chunk.subarray(start, nl)
      start = nl + 1
      if (this.discarding) {
        this.keepTail(piece)
        this.discarded += piece.length
        this.finishOversize()
        continue
      }
      if (this.size === 0) {
        if (piece.length > this.maxBytes) {
          this.beginOversize(piece)
          this.finishOversize()
        } else {
          decodeLine(piece, this.handler)
        }
        continue
      }
      if (this.size + piece.length > this.maxBytes) {
        this.beginOversize(piece)
        this.finishOversize()
        continue
      }
      this.parts.push(piece)
      const line = concat(this.parts, this.size + piece.length)
      this.parts = []
      this.size = 0
      decodeLine(line, this.handler)
    }
  }

  /** The stream ended: a last line without a newline is still reported (or reported oversize). */
  end(): void {
    if (this.discarding) {
      this.finishOversize()
      return
    }
    if (this.size > 0) {
      const line = concat(this.parts, this.size)
      this.parts = []
      this.size = 0
      decodeLine(line, this.handler)
    }
  }

  /** Bytes held for an unfinished line (bounded by `maxBytes`). */
  get buffered(): number {
    return this.size
  }

  private accumulate(piece: Uint8Array): void {
    if (this.discarding) {
      this.keepTail(piece)
      this.discarded += piece.length
      return
    }
    if (this.size + piece.length > this.maxBytes) {
      this.beginOversize(piece)
      return
    }
    // Copy: the chunk's buffer may be reused by the producer.
    this.parts.push(piece.slice())
    this.size += piece.length
  }

  private beginOversize(piece: Uint8Array): void {
    // The head and the tail excerpts span every part of the line seen so far, so an id that falls across a
    // chunk boundary is still readable.
    const head = new Uint8Array(Math.min(KEEP, this.size + piece.length))
    let filled = 0
    for (const part of [...this.parts, piece]) {
      if (filled >= head.length) break
      const take = part.subarray(0, head.length - filled)
      head.set(take, filled)
      filled += take.length
    }
    this.head = lenient.decode(head)
    this.tail = new Uint8Array(0)
    for (const part of this.parts) this.keepTail(part)
    this.keepTail(piece)
    this.discarded = this.size + piece.length
    this.parts = []
    this.size = 0
    this.discarding = true
  }

  private keepTail(piece: Uint8Array): void {
    if (piece.length >= KEEP) {
      this.tail = piece.slice(piece.length - KEEP)
      return
    }
    const merged = new Uint8Array(Math.min(KEEP, this.tail.length + piece.length))
    const fromOld = merged.length - piece.length
    merged.set(this.tail.subarray(this.tail.length - fromOld), 0)
    merged.set(piece, fromOld)
    this.tail = merged
  }

  private finishOversize(): void {
    const tail = lenient.decode(this.tail)
    const bytes = this.discarded
    this.discarding = false
    this.discarded = 0
    this.tail = new Uint8Array(0)
    const head = this.head
    this.head = ""
    this.handler.oversize(bytes, head, tail)
  }
}

const concat = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(size)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
