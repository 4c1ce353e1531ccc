/**
 * Config text (JSON or JSONC) → JSON value, refusing invalid text (with line and column) and duplicate keys (with both lines).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
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
 * Parses `text` as JSONC (JSON plus comments and trailing commas); fails with `ConfigJsonInvalid`,
 * `DuplicateServerName` or `DuplicateKey`.
 *
 * A leading byte-order mark is ignored (treated as whitespace, so positions stay those of the file). The
 * scanner checks the text first and reports the first problem at its exact position; its description never quotes
 * the text (which can hold secrets). Comments and trailing commas are then blanked (same length, line breaks
 * kept) and `JSON.parse` builds the value.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseJson = (text: string, path: string): Effect.Effect<unknown, ParseJsonError> =>
  Effect.suspend((): Effect.Effect<unknown, ParseJsonError> => {
    const source = text.charCodeAt(0) === 0xfeff ? " " + text.slice(1) : text
    const scanned = JsonScanner.scan(source)
    if (Result.isFailure(scanned)) {
      const { column, line } = JsonScanner.lineColumn(source, scanned.failure.offset)
      return Effect.fail(new ConfigError.ConfigJsonInvalid({ path, line, column, reason: scanned.failure.reason }))
    }
    const plain = JsonScanner.blank(source, scanned.success.blanks)
    const parsed = Result.try({ try: (): unknown => JSON.parse(plain), catch: positionOf })
    if (Result.isFailure(parsed)) {
      // Not expected (the scanner accepts no more than JSON.parse does once blanked); report, never crash.
      const { column, line } = JsonScanner.lineColumn(source, parsed.failure ?? source.length)
      return Effect.fail(
        new ConfigError.ConfigJsonInvalid({ path, line, column, reason: "the text is not valid JSON" })
      )
    }
    const duplicate = scanned.success.duplicates[0]
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
