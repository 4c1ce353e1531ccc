/**
 * Config text → JSON value, refusing invalid JSON (with line and column) and duplicate keys (with both lines).
 *
 * @since 0.1.0
 */
import { Effect, Result } from "effect"
import * as ConfigError from "../ConfigError.ts"
import * as JsonPath from "./JsonPath.ts"
import * as JsonScanner from "./JsonScanner.ts"

/** Top-level keys whose members are servers: a duplicate there is a duplicate server name. */
const SERVER_KEYS: ReadonlySet<string> = new Set(["mcpServers", "servers"])

/** V8's `JSON.parse` messages end with `at position N` for most (not all) syntax errors. */
const POSITION = /\bat position (\d+)/

/**
 * The failures of {@link parseJson}.
 *
 * @since 0.1.0
 * @category models
 */
export type ParseJsonError = ConfigError.ConfigJsonInvalid | ConfigError.DuplicateServerName | ConfigError.DuplicateKey

/**
 * Parses `text` as JSON; fails with `ConfigJsonInvalid`, `DuplicateServerName` or `DuplicateKey`.
 *
 * A leading byte-order mark is ignored (treated as whitespace, so positions stay those of the file).
 * The position of a syntax error is `JSON.parse`'s when it reports one, else the scanner's; the description
 * is always the scanner's, because `JSON.parse`'s own message may quote the text (which can hold secrets).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseJson = (text: string, path: string): Effect.Effect<unknown, ParseJsonError> =>
  Effect.suspend((): Effect.Effect<unknown, ParseJsonError> => {
    const source = text.charCodeAt(0) === 0xfeff ? " " + text.slice(1) : text
    const scanned = JsonScanner.scan(source)
    const parsed = Result.try({ try: (): unknown => JSON.parse(source), catch: positionOf })
    if (Result.isFailure(parsed)) {
      const scannerIssue = Result.isFailure(scanned) ? scanned.failure : undefined
      const offset = parsed.failure ?? scannerIssue?.offset ?? source.length
      const { column, line } = JsonScanner.lineColumn(source, offset)
      const reason = scannerIssue?.reason ?? "the text is not valid JSON"
      return Effect.fail(new ConfigError.ConfigJsonInvalid({ path, line, column, reason }))
    }
    if (Result.isFailure(scanned)) {
      // The scanner is stricter than JSON.parse here; report rather than accept text we could not check.
      const { column, line } = JsonScanner.lineColumn(source, scanned.failure.offset)
      return Effect.fail(new ConfigError.ConfigJsonInvalid({ path, line, column, reason: scanned.failure.reason }))
    }
    const duplicate = scanned.success[0]
    if (duplicate === undefined) return Effect.succeed(parsed.success)
    const { firstLine, key, secondLine } = duplicate
    const [top] = duplicate.path
    if (duplicate.path.length === 1 && typeof top === "string" && SERVER_KEYS.has(top)) {
      return Effect.fail(new ConfigError.DuplicateServerName({ path, server: key, firstLine, secondLine }))
    }
    return Effect.fail(
      new ConfigError.DuplicateKey({ path, jsonPath: JsonPath.format(duplicate.path), key, firstLine, secondLine })
    )
  })

const positionOf = (error: unknown): number | undefined => {
  if (!(error instanceof SyntaxError)) return undefined
  const digits = POSITION.exec(error.message)?.[1]
  return digits === undefined ? undefined : Number(digits)
}
