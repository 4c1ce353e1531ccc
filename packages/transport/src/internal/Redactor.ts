/**
 * Replaces every known secret value with `<redacted>` in text that came from a server.
 *
 * The secrets are the values the application marked `Redacted`: today each `Redacted` value of the child's `env`;
 * an HTTP transport adds each `Redacted` header value through the same `make`. A server can print its own
 * environment or echo a token in an error message; whatever the client derives from the server's output (the
 * stderr tail, error messages and their fields, log lines, the `initialize` instructions) goes through `text` or
 * `value` first, so a secret never leaves the client verbatim.
 *
 * Matching is exact and case-sensitive, longest secret first (so a secret that contains another is replaced whole).
 * An empty value is no secret. A secret cut by a bound before it is redacted (a stderr line longer than the tail's
 * 512 characters, an oversize line's 512-byte excerpts) can leave a fragment of it; a whole value never passes.
 *
 * @internal
 */
import * as Redacted from "effect/Redacted"

/** The replacement of every secret. */
export const REDACTED = "<redacted>"

/** @internal */
export interface Redactor {
  /** Whether there is any secret to replace (when not, `text` and `value` return their input). */
  readonly active: boolean
  /** `text` with every secret replaced. */
  readonly text: (text: string) => string
  /** A JSON value with every secret replaced in each string in it (keys included); other values are kept. */
  readonly value: (value: unknown) => unknown
}

/** A redactor of the given secret values. */
export const make = (secrets: Iterable<string>): Redactor => {
  const values = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)
  if (values.length === 0) return { active: false, text: (text) => text, value: (value) => value }
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
  return { active: true, text, value }
}

/** A redactor of every `Redacted` value of a child's environment (plain values are not secrets). */
export const fromEnv = (env: Readonly<Record<string, string | Redacted.Redacted<string>>>): Redactor =>
  make(Object.values(env).flatMap((v) => (Redacted.isRedacted(v) ? [Redacted.value(v)] : [])))
