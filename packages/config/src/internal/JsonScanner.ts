/**
 * A small hand-written JSON scanner that validates RFC 8259 text — plus the two JSONC extensions VS Code's
 * `mcp.json` uses, comments (`// …`, `/* … *\/`) and trailing commas — and finds duplicate object keys.
 *
 * Why not `jsonc-parser`: its parser recurses (deep nesting overflows the call stack), assigns keys with
 * `obj[key] = value` (a server named `__proto__` would replace the object's prototype), recovers from errors
 * instead of stopping at the first, and does not report duplicate keys. This scanner reports the exact offset of
 * the first problem, and the `blanks` it returns turn JSONC into JSON of the same length for `JSON.parse`, so
 * every offset (and line number) stays that of the file. Its offsets agree with `JSON.parse`'s where V8 gives one,
 * except for an unquoted word followed by a string (`"a": n"x"`): V8 points at the string, the scanner at the word.
 *
 * `JSON.parse` silently keeps the last of two equal keys; for a config file that is a silent overwrite of a
 * server. The scanner walks the text once with an explicit stack (deep nesting cannot overflow the call stack),
 * tracks line numbers, decodes key escapes (so `"a"` and `"\u0061"` are the same key, as for `JSON.parse`) and
 * reports every repeated key with the lines of both occurrences. It never builds the parsed value and never
 * copies string contents into its results except decoded keys.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"

/**
 * One step of a JSON path: an object key or an array index.
 *
 * @since 0.1.0
 * @category models
 */
export type PathSegment = string | number

/**
 * A key that occurs twice in the same object.
 *
 * `path` leads to the object that holds the key (empty for the top-level object). Lines are 1-based.
 *
 * @since 0.1.0
 * @category models
 */
export interface DuplicateKey {
  readonly path: ReadonlyArray<PathSegment>
  readonly key: string
  readonly firstLine: number
  readonly secondLine: number
}

/**
 * A range of the text (`[start, end)`, UTF-16 offsets) that is a comment or a trailing comma: blanking it (see
 * {@link blank}) leaves plain JSON with every other character where it was.
 *
 * @since 0.1.0
 * @category models
 */
export interface Blank {
  readonly start: number
  readonly end: number
}

/**
 * What a successful scan found: every duplicate key (in document order of the second occurrence), and the
 * comments and trailing commas to blank before `JSON.parse`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Scanned {
  readonly duplicates: ReadonlyArray<DuplicateKey>
  readonly blanks: ReadonlyArray<Blank>
}

/**
 * Why the text is not JSON, and where (a 0-based UTF-16 offset into the text).
 *
 * `reason` describes what was expected; it never quotes the text itself.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyntaxIssue {
  readonly offset: number
  readonly reason: string
}

/**
 * A 1-based line and column (the column counts UTF-16 code units, as editors do).
 *
 * @since 0.1.0
 * @category models
 */
export interface Position {
  readonly line: number
  readonly column: number
}

/**
 * Converts a 0-based offset into a 1-based line and column. Lines end at `\n` (so `\r\n` counts once).
 *
 * @since 0.1.0
 * @category positions
 */
export const lineColumn = (text: string, offset: number): Position => {
  const end = Math.max(0, Math.min(offset, text.length))
  let line = 1
  let lineStart = 0
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === LF) {
      line++
      lineStart = i + 1
    }
  }
  return { line, column: end - lineStart + 1 }
}

/**
 * Scans `text` as one JSONC value: succeeds with every duplicate key and the ranges to blank, or fails with the
 * first syntax issue.
 *
 * @since 0.1.0
 * @category scanning
 */
export const scan = (text: string): Result.Result<Scanned, SyntaxIssue> => new Scanner(text).run()

/**
 * Replaces every blank range with spaces, keeping line breaks (so a block comment's lines stay lines): the
 * result is plain JSON of the same length as `text`.
 *
 * @since 0.1.0
 * @category scanning
 */
export const blank = (text: string, blanks: ReadonlyArray<Blank>): string => {
  if (blanks.length === 0) return text
  let out = ""
  let at = 0
  for (const { end, start } of blanks) {
    out += text.slice(at, start) + text.slice(start, end).replace(/[^\r\n]/g, " ")
    at = end
  }
  return out + text.slice(at)
}

// ---------------------------------------------------------------------------------------------------------------

const LF = 0x0a
const CR = 0x0d
const TAB = 0x09
const SPACE = 0x20
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const MINUS = 0x2d
const PLUS = 0x2b
const DOT = 0x2e
const ZERO = 0x30
const NINE = 0x39
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const SLASH = 0x2f
const STAR = 0x2a

/** A path kept as a linked list so entering a container is O(1); materialized only for a report. */
interface PathNode {
  readonly parent: PathNode | undefined
  readonly segment: PathSegment
}

interface ObjectFrame {
  readonly kind: "object"
  readonly path: PathNode | undefined
  readonly keys: Map<string, number>
  key: string
}

interface ArrayFrame {
  readonly kind: "array"
  readonly path: PathNode | undefined
  index: number
}

type Frame = ObjectFrame | ArrayFrame

type State = "value" | "valueOrEnd" | "valueOrTrailingEnd" | "keyOrEnd" | "keyOrTrailingEnd" | "afterValue"

class SyntaxFailure {
  readonly issue: SyntaxIssue
  constructor(issue: SyntaxIssue) {
    this.issue = issue
  }
}

const materialize = (node: PathNode | undefined): ReadonlyArray<PathSegment> => {
  const out: Array<PathSegment> = []
  for (let n = node; n !== undefined; n = n.parent) out.push(n.segment)
  return out.reverse()
}

const isDigit = (c: number): boolean => c >= ZERO && c <= NINE

const hexValue = (c: number): number => {
  if (c >= ZERO && c <= NINE) return c - ZERO
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10
  return -1
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "\"": "\"",
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t"
}

class Scanner {
  private i = 0
  private line = 1
  private readonly stack: Array<Frame> = []
  private readonly duplicates: Array<DuplicateKey> = []
  private readonly blanks: Array<Blank> = []
  private lastComma = -1
  private readonly text: string

  constructor(text: string) {
    this.text = text
  }

  run(): Result.Result<Scanned, SyntaxIssue> {
    const outcome = this.loop()
    return outcome instanceof SyntaxFailure
      ? Result.fail(outcome.issue)
      : Result.succeed({ duplicates: this.duplicates, blanks: this.blanks.sort((a, b) => a.start - b.start) })
  }

  private loop(): SyntaxFailure | undefined {
    const text = this.text
    let state: State = "value"
    for (;;) {
      const trivia = this.skipWhitespace()
      if (trivia !== undefined) return trivia
      const c = this.i < text.length ? text.charCodeAt(this.i) : -1
      switch (state) {
        case "valueOrEnd":
        case "valueOrTrailingEnd":
        case "value": {
          if (state !== "value" && c === CLOSE_BRACKET) {
            if (state === "valueOrTrailingEnd") this.trailingComma()
            this.stack.pop()
            this.i++
            state = "afterValue"
            break
          }
          const failure = this.value(c)
          if (failure !== undefined) return failure
          // `value` pushed a frame for `{` / `[`; what may follow an opener differs from a finished value.
          state = c === OPEN_BRACE ? "keyOrEnd" : c === OPEN_BRACKET ? "valueOrEnd" : "afterValue"
          break
        }
        case "keyOrEnd":
        case "keyOrTrailingEnd": {
          if (c === CLOSE_BRACE) {
            if (state === "keyOrTrailingEnd") this.trailingComma()
            this.stack.pop()
            this.i++
            state = "afterValue"
            break
          }
          if (c === -1) return this.fail(this.i, "expected a property name but the text ended")
          if (c !== QUOTE) return this.fail(this.i, "expected a double-quoted property name")
          const keyLine = this.line
          const key = this.string(true)
          if (key instanceof SyntaxFailure) return key
          const frame = this.stack[this.stack.length - 1]
          if (frame === undefined || frame.kind !== "object") return this.fail(this.i, "internal scanner state error")
          const firstLine = frame.keys.get(key)
          if (firstLine === undefined) frame.keys.set(key, keyLine)
          else this.duplicates.push({ path: materialize(frame.path), key, firstLine, secondLine: keyLine })
          frame.key = key
          const beforeColon = this.skipWhitespace()
          if (beforeColon !== undefined) return beforeColon
          if (this.i >= text.length || text.charCodeAt(this.i) !== COLON) {
            return this.fail(this.i, "expected ':' after a property name")
          }
          this.i++
          state = "value"
          break
        }
        case "afterValue": {
          const top = this.stack[this.stack.length - 1]
          if (top === undefined) {
            return c === -1 ? undefined : this.fail(this.i, "unexpected text after the end of the JSON value")
          }
          if (c === COMMA) {
            this.lastComma = this.i
            this.i++
            if (top.kind === "object") {
              state = "keyOrTrailingEnd"
            } else {
              top.index++
              state = "valueOrTrailingEnd"
            }
          } else if (top.kind === "object" && c === CLOSE_BRACE) {
            this.stack.pop()
            this.i++
          } else if (top.kind === "array" && c === CLOSE_BRACKET) {
            this.stack.pop()
            this.i++
          } else if (c === -1) {
            return this.fail(this.i, `the text ended before the ${top.kind} was closed`)
          } else {
            return this.fail(
              this.i,
              top.kind === "object"
                ? "expected ',' or '}' after a property value"
                : "expected ',' or ']' after an array element"
            )
          }
          break
        }
      }
    }
  }

  /** Consumes one scalar value, or the opener of a container (pushing its frame). */
  private value(c: number): SyntaxFailure | undefined {
    if (c === -1) return this.fail(this.i, "expected a value but the text ended")
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const path = this.childPath()
      this.stack.push(
        c === OPEN_BRACE ? { kind: "object", path, keys: new Map(), key: "" } : { kind: "array", path, index: 0 }
      )
      this.i++
      return undefined
    }
    if (c === QUOTE) {
      const s = this.string(false)
      return s instanceof SyntaxFailure ? s : undefined
    }
    if (c === MINUS || isDigit(c)) return this.number()
    if (c === 0x74) return this.literal("true")
    if (c === 0x66) return this.literal("false")
    if (c === 0x6e) return this.literal("null")
    return this.unexpected()
  }

  private childPath(): PathNode | undefined {
    const top = this.stack[this.stack.length - 1]
    if (top === undefined) return undefined
    return { parent: top.path, segment: top.kind === "object" ? top.key : top.index }
  }

  /** A `,` directly before `}` or `]` (only trivia between): blanked, like a comment. */
  private trailingComma(): void {
    this.blanks.push({ start: this.lastComma, end: this.lastComma + 1 })
  }

  /** Skips whitespace and comments; fails on a `/` that starts no comment, or a block comment never closed. */
  private skipWhitespace(): SyntaxFailure | undefined {
    const text = this.text
    for (; this.i < text.length; this.i++) {
      const c = text.charCodeAt(this.i)
      if (c === LF) this.line++
      else if (c === SLASH) {
        const start = this.i
        const next = text.charCodeAt(this.i + 1)
        if (next === SLASH) {
          const lf = text.indexOf("\n", this.i + 2)
          this.i = lf === -1 ? text.length : lf
        } else if (next === STAR) {
          const close = text.indexOf("*/", this.i + 2)
          if (close === -1) return this.fail(start, "unterminated /* comment")
          for (let k = this.i + 2; k < close; k++) if (text.charCodeAt(k) === LF) this.line++
          this.i = close + 2
        } else {
          return this.fail(start, "a '/' that does not start a // or /* comment")
        }
        this.blanks.push({ start, end: this.i })
        this.i-- // the loop's increment
      } else if (c !== SPACE && c !== TAB && c !== CR) return undefined
    }
    return undefined
  }

  /** Consumes `true`, `false` or `null`; anything else starting with the same letter is unquoted text. */
  private literal(word: string): SyntaxFailure | undefined {
    if (!this.text.startsWith(word, this.i)) return this.unexpected()
    this.i += word.length
    return undefined
  }

  private unexpected(): SyntaxFailure {
    const c = this.text.charCodeAt(this.i)
    const wordLike = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x27 || c === 0x5f
    return this.fail(
      this.i,
      wordLike
        ? "expected a value (text must be in double quotes)"
        : "expected a value (object, array, string, number, true, false or null)"
    )
  }

  private number(): SyntaxFailure | undefined {
    const text = this.text
    if (text.charCodeAt(this.i) === MINUS) this.i++
    if (text.charCodeAt(this.i) === ZERO) {
      this.i++
      if (isDigit(text.charCodeAt(this.i))) return this.fail(this.i, "a number must not have a leading zero")
    } else if (isDigit(text.charCodeAt(this.i))) {
      while (isDigit(text.charCodeAt(this.i))) this.i++
    } else {
      return this.fail(this.i, "expected a digit")
    }
    if (text.charCodeAt(this.i) === DOT) {
      this.i++
      if (!isDigit(text.charCodeAt(this.i))) return this.fail(this.i, "expected a digit after the decimal point")
      while (isDigit(text.charCodeAt(this.i))) this.i++
    }
    const e = text.charCodeAt(this.i)
    if (e === 0x65 || e === 0x45) {
      this.i++
      const sign = text.charCodeAt(this.i)
      if (sign === PLUS || sign === MINUS) this.i++
      if (!isDigit(text.charCodeAt(this.i))) return this.fail(this.i, "expected a digit in the exponent")
      while (isDigit(text.charCodeAt(this.i))) this.i++
    }
    return undefined
  }

  /** Consumes a string starting at the opening quote; returns its decoded text when `decode` is set. */
  private string(decode: boolean): string | SyntaxFailure {
    const text = this.text
    this.i++
    let out = ""
    let chunkStart = this.i
    for (;;) {
      if (this.i >= text.length) return this.fail(this.i, "unterminated string")
      const c = text.charCodeAt(this.i)
      if (c === QUOTE) {
        if (decode) out += text.slice(chunkStart, this.i)
        this.i++
        return out
      }
      if (c < SPACE) return this.fail(this.i, "control character inside a string (escape it)")
      if (c !== BACKSLASH) {
        this.i++
        continue
      }
      if (decode) out += text.slice(chunkStart, this.i)
      const escapeStart = this.i
      const kind = text.charAt(this.i + 1)
      if (kind === "u") {
        let code = 0
        for (let k = 2; k < 6; k++) {
          const h = hexValue(text.charCodeAt(this.i + k))
          if (h < 0) return this.fail(this.i + k, "expected four hex digits after \\u")
          code = code * 16 + h
        }
        if (decode) out += String.fromCharCode(code)
        this.i += 6
      } else {
        const simple = SIMPLE_ESCAPES[kind]
        if (simple === undefined) return this.fail(escapeStart + 1, "invalid escape sequence in a string")
        if (decode) out += simple
        this.i += 2
      }
      chunkStart = this.i
    }
  }

  private fail(offset: number, reason: string): SyntaxFailure {
    return new SyntaxFailure({ offset, reason })
  }
}
