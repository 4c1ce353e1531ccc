/**
 * Replaces every known secret value with `<redacted>` in text that came from a server, and makes the excerpts of
 * that text: **redact first, then cut**.
 *
 * The secrets are the values the application marked `Redacted`: each `Redacted` value of a child's `env`; each
 * `Redacted` header value of a remote server (and the token after its scheme), a URL's password. A server can print
 * its own environment or echo a token in an error body; whatever the client derives from the server's output (the
 * stderr tail, error messages and their fields, log lines, the `initialize` instructions) goes through `text`,
 * `value` or `excerpt` first, so a secret never leaves the client verbatim.
 *
 * Matching is exact and case-sensitive, longest secret first (so a secret that contains another is replaced whole).
 * An empty value is no secret. A cut can still split a secret that the text held only in part (a line cut by a
 * bound before it could be read whole): at every cut, a piece of a secret of `MIN_FRAGMENT` characters or more that
 * stands against the cut (a prefix before a cut end, a suffix after a cut start) is replaced too. A shorter piece
 * can pass: 7 characters of a 24-character token at most.
 *
 * @internal
 */
import * as Redacted from "effect/Redacted"
import { oneLine } from "./ServerText.ts"

/** The replacement of every secret. */
export const REDACTED = "<redacted>"

/** The shortest piece of a secret that is replaced when it stands against a cut. */
export const MIN_FRAGMENT = 8

/** How many characters an excerpt keeps by default (error details, log lines). */
export const EXCERPT_CHARS = 160

/** @internal */
export interface Redactor {
  /** Whether there is any secret to replace (when not, `text`, `value` and `fragment` return their input). */
  readonly active: boolean
  /** `text` with every secret replaced. */
  readonly text: (text: string) => string
  /** A JSON value with every secret replaced in each string in it (keys included); other values are kept. */
  readonly value: (value: unknown) => unknown
  /**
   * The one excerpt of server text for a message or a log line: every secret replaced, then on one line and cut
   * after `max` characters (`… (N more characters)`, see `ServerText.oneLine`), then a secret's prefix left against
   * the cut replaced too.
   */
  readonly excerpt: (text: string, max?: number) => string
  /**
   * A piece of a longer text, cut elsewhere (`cut` says which of its ends are cuts): every secret replaced, then a
   * secret's suffix against a cut start and a secret's prefix against a cut end.
   */
  readonly fragment: (text: string, cut: Cut) => string
}

/** Which ends of a piece of text are cuts. */
export interface Cut {
  readonly start?: boolean | undefined
  readonly end?: boolean | undefined
}

const inactive: Redactor = {
  active: false,
  text: (text) => text,
  value: (value) => value,
  excerpt: (text, max = EXCERPT_CHARS) => oneLine(text, max),
  fragment: (text) => text
}

/** The redactor of no secret: `excerpt` still makes one line and cuts it. */
export const none: Redactor = inactive

/** A redactor of the given secret values. */
export const make = (secrets: Iterable<string>): Redactor => {
  const values = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)
  if (values.length === 0) return inactive
  const text = (input: string): string => {
    let out = input
    for (const secret of values) if (out.includes(secret)) out = out.split(secret).join(REDACTED)
    return out
  }
  const value = (input: unknown): unknown => {
    if (typeof input === "string") return text(input)
    if (Array.isArray(input)) return input.map(value)
    if (typeof input === "object" && input !== null) {
      return Object.fromEntries(Object.entries(input).map(([k, v]) => [text(k), value(v)]))
    }
    return input
  }
  /** `kept` with the longest prefix of a secret (at least `MIN_FRAGMENT` characters) at its end replaced. */
  const beforeCut = (kept: string): string => {
    let longest = 0
    for (const secret of values) {
      for (let k = Math.min(secret.length - 1, kept.length); k >= MIN_FRAGMENT && k > longest; k--) {
        if (kept.endsWith(secret.slice(0, k))) longest = k
      }
    }
    return longest === 0 ? kept : kept.slice(0, kept.length - longest) + REDACTED
  }
  /** `kept` with the longest suffix of a secret (at least `MIN_FRAGMENT` characters) at its start replaced. */
  const afterCut = (kept: string): string => {
    let longest = 0
    for (const secret of values) {
      for (let k = Math.min(secret.length - 1, kept.length); k >= MIN_FRAGMENT && k > longest; k--) {
        if (kept.startsWith(secret.slice(secret.length - k))) longest = k
      }
    }
    return longest === 0 ? kept : REDACTED + kept.slice(longest)
  }
  const fragment = (input: string, cut: Cut): string => {
    let out = text(input)
    if (cut.start === true) out = afterCut(out)
    if (cut.end === true) out = beforeCut(out)
    return out
  }
  const excerpt = (input: string, max = EXCERPT_CHARS): string => oneLine(text(input), max, (kept) => beforeCut(kept))
  return { active: true, text, value, excerpt, fragment }
}

/** A redactor of every `Redacted` value of a child's environment (plain values are not secrets). */
export const fromEnv = (env: Readonly<Record<string, string | Redacted.Redacted<string>>>): Redactor =>
  make(Object.values(env).flatMap((v) => (Redacted.isRedacted(v) ? [Redacted.value(v)] : [])))
