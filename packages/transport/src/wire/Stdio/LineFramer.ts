/**
 * Splits a byte stream into newline-terminated UTF-8 lines, over whole chunks, with a size cap.
 *
 * A line longer than `maxBytes` is never buffered whole: once it passes the cap its bytes are dropped and
 * only a short head and tail are kept, so the caller can still read the JSON-RPC `id` of the oversize
 * message and fail the matching request at once.
 *
 * The common case, a chunk that holds whole lines and nothing carried over, is decoded with one `TextDecoder`
 * call for all its complete lines (then split on `\n`), not one call per line: with many small answers per
 * chunk that call dominated the framer's cost. The result is the same line for line as decoding each line alone.
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

const BOM = 0xfeff

const strict = new TextDecoder("utf-8", { fatal: true })
// For many lines at once: a BOM is kept wherever it is, and then one leading BOM is dropped per line, as `strict`
// (which drops one at the start of what it decodes) does for a line decoded alone.
const strictKeepBom = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
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

/** Reports every line of `bytes`, which ends with a newline and holds no line over the cap. */
const decodeLines = (bytes: Uint8Array, handler: FramerHandler): void => {
  let text: string
  try {
    text = strictKeepBom.decode(bytes)
  } catch {
    // Some line is not valid UTF-8: decode line by line to report exactly that one.
    let start = 0
    for (let nl = bytes.indexOf(NEWLINE); nl !== -1; nl = bytes.indexOf(NEWLINE, start)) {
      decodeLine(bytes.subarray(start, nl), handler)
      start = nl + 1
    }
    return
  }
  let start = 0
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
    const end = nl > start && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl
    if (end > start) handler.line(text.charCodeAt(start) === BOM ? text.slice(start + 1, end) : text.slice(start, end))
    start = nl + 1
  }
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
      if (!this.discarding && this.size === 0 && chunk.length - start <= this.maxBytes) {
        // Nothing carried over, and the rest of the chunk fits the cap: so does every line in it.
        const last = chunk.lastIndexOf(NEWLINE)
        if (last >= start) decodeLines(chunk.subarray(start, last + 1), this.handler)
        if (last + 1 < chunk.length) this.accumulate(chunk.subarray(Math.max(start, last + 1)))
        return
      }
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
