/**
 * Keeps the last lines a child wrote to stderr, bounded in count and in length, for diagnostics. Every line goes
 * through `redact` (known secret values → `<redacted>`) before it is cut to length or kept.
 *
 * @internal
 */

const decoder = new TextDecoder("utf-8")

/** @internal */
export class StderrTail {
  private readonly lines: Array<string> = []
  private partial = ""
  private total = 0

  readonly maxLines: number
  readonly maxLineChars: number

  private readonly redact: (text: string) => string

  constructor(maxLines: number, maxLineChars: number, redact: (text: string) => string = (text) => text) {
    this.maxLines = maxLines
    this.maxLineChars = maxLineChars
    this.redact = redact
  }

  /** Adds a chunk; returns the lines it completed (as kept: non-empty, truncated), oldest first. */
  push(chunk: Uint8Array): ReadonlyArray<string> {
    this.total += chunk.length
    if (this.maxLines <= 0) return []
    const text = this.partial + decoder.decode(chunk, { stream: true })
    const pieces = text.split("\n")
    const last = pieces.pop() ?? ""
    const completed: Array<string> = []
    for (const piece of pieces) {
      const line = this.add(piece)
      if (line !== undefined) completed.push(line)
    }
    this.partial = last.length > this.maxLineChars ? last.slice(last.length - this.maxLineChars) : last
    return completed
  }

  /** Total bytes seen on stderr. */
  get bytes(): number {
    return this.total
  }

  /** The last lines, oldest first; an unfinished last line is included. */
  snapshot(): ReadonlyArray<string> {
    const trimmed = this.redact(this.partial.replace(/\r$/, ""))
    if (trimmed.length === 0) return this.lines.slice()
    const out = [...this.lines, trimmed]
    return out.length > this.maxLines ? out.slice(out.length - this.maxLines) : out
  }

  private add(raw: string): string | undefined {
    const line = this.redact(raw.replace(/\r$/, ""))
    if (line.length === 0) return undefined
    const kept = line.length > this.maxLineChars ? `${line.slice(0, this.maxLineChars)}…` : line
    this.lines.push(kept)
    if (this.lines.length > this.maxLines) this.lines.shift()
    return kept
  }
}
