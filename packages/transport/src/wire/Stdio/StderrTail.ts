/**
 * Keeps the last lines a child wrote to stderr, bounded in count and in length, for diagnostics. Every line is
 * redacted (known secret values → `<redacted>`) before it is cut to length or kept: redact first, then cut. A line
 * longer than the bound was already cut before it ended (only its last `maxLineChars` characters are held while it
 * grows): a secret's piece against that cut is replaced too (`Redactor.fragment`).
 *
 * @internal
 */
import * as Redactor from "../../internal/Redactor.ts"

const decoder = new TextDecoder("utf-8")

/** @internal */
export class StderrTail {
  private readonly lines: Array<string> = []
  private partial = ""
  /** The held unfinished line lost its start to the bound. */
  private partialCut = false
  private total = 0

  readonly maxLines: number
  readonly maxLineChars: number

  private readonly redactor: Redactor.Redactor

  constructor(maxLines: number, maxLineChars: number, redactor: Redactor.Redactor = Redactor.none) {
    this.maxLines = maxLines
    this.maxLineChars = maxLineChars
    this.redactor = redactor
  }

  /** Adds a chunk; returns the lines it completed (as kept: non-empty, truncated), oldest first. */
  push(chunk: Uint8Array): ReadonlyArray<string> {
    this.total += chunk.length
    if (this.maxLines <= 0) return []
    const text = this.partial + decoder.decode(chunk, { stream: true })
    const pieces = text.split("\n")
    const last = pieces.pop() ?? ""
    const completed: Array<string> = []
    for (const [i, piece] of pieces.entries()) {
      const line = this.add(piece, i === 0 && this.partialCut)
      if (line !== undefined) completed.push(line)
    }
    const startCut = pieces.length === 0 && this.partialCut
    // Held from its end: a secret that starts before the bound and ends inside it loses its start here.
    this.partialCut = last.length > this.maxLineChars || startCut
    this.partial = last.length > this.maxLineChars ? last.slice(last.length - this.maxLineChars) : last
    return completed
  }

  /** Total bytes seen on stderr. */
  get bytes(): number {
    return this.total
  }

  /** The last lines, oldest first; an unfinished last line is included. */
  snapshot(): ReadonlyArray<string> {
    const trimmed = this.keep(this.partial.replace(/\r$/, ""), this.partialCut)
    if (trimmed.length === 0) return this.lines.slice()
    const out = [...this.lines, trimmed]
    return out.length > this.maxLines ? out.slice(out.length - this.maxLines) : out
  }

  /** A line as kept: redacted (its start as a cut when it lost it), then cut to `maxLineChars`. */
  private keep(raw: string, startCut: boolean): string {
    const line = this.redactor.fragment(raw, { start: startCut })
    if (line.length <= this.maxLineChars) return line
    return `${this.redactor.fragment(line.slice(0, this.maxLineChars), { end: true })}…`
  }

  private add(raw: string, startCut: boolean): string | undefined {
    const kept = this.keep(raw.replace(/\r$/, ""), startCut)
    if (kept.length === 0) return undefined
    this.lines.push(kept)
    if (this.lines.length > this.maxLines) this.lines.shift()
    return kept
  }
}
