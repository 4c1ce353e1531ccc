/**
 * The transport's redactor for programs built on it: every known secret value replaced by `<redacted>` in text
 * and in JSON values, exactly as the transport does to what a server sends back (exact, case-sensitive match,
 * longest secret first). The CLI's `call` passes what it prints through it, with the secrets it sent the server.
 *
 * @since 0.4.0
 */
import * as Redactor from "./internal/Redactor.ts"

/**
 * The replacement of every secret.
 *
 * @since 0.4.0
 * @category constants
 */
export const REDACTED: string = Redactor.REDACTED

/**
 * A redactor of a fixed set of secrets.
 *
 * @since 0.4.0
 * @category models
 */
export interface Redaction {
  /** Whether there is any secret to replace (when not, `text` and `value` return their input). */
  readonly active: boolean
  /** `text` with every secret replaced. */
  readonly text: (text: string) => string
  /** A JSON value with every secret replaced in each string in it (keys included); other values are kept. */
  readonly value: (value: unknown) => unknown
}

/**
 * A redactor of `secrets` (an empty value is no secret).
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (secrets: Iterable<string>): Redaction => Redactor.make(secrets)
