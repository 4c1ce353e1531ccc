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

  push(chunk: Uint8Array): void {
    this.total += chunk.length
    if (this.maxLines <= 0) return
    const text = this.partial + decoder.decode(chunk, { stream: true })
    const pieces = text.split("\n")
    const last = pieces.pop() ?? ""
    for (const piece of pieces) this.add(piece)
    this.partial = last.length > this.maxLineChars ? last.slice(last.length - this.maxLineChars) : last
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

  private add(raw: string): void {
    const line = this.redact(raw.replace(/\r$/, ""))
    if (line.length === 0) return
    this.lines.push(line.length > this.maxLineChars ? `${line.slice(0, this.maxLineChars)}…` : line)
    if (this.lines.length > this.maxLines) this.lines.shift()
  }
}
