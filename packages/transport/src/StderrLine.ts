/**
 * Which of a server's last stderr lines explains its failure best. The last line is often not it: `npx` for a
 * package that does not exist ends with npm's "A complete log of this run can be found in: …" footer, several lines
 * below `npm error 404 Not Found - GET …`.
 *
 * @since 0.4.0
 */

/** Lines that never explain anything: npm's pointer to its log file. */
const FOOTER = /A complete log of this run can be found in/i
const ERROR = /error/i
/** An HTTP status with its reason phrase (`404 Not Found`, `401 Unauthorized`). */
const STATUS_PHRASE = /\b[1-5]\d\d [A-Z][A-Za-z]+/
/** An HTTP status alone. */
const STATUS = /\b[1-5]\d\d\b/
/** An error code: `E404`, `ENOENT`, `EACCES`, `ERR_MODULE_NOT_FOUND`. */
const CODE = /\b(E[A-Z0-9]{2,}|ERR_[A-Z0-9_]+)\b/

const score = (line: string): number => {
  if (!ERROR.test(line)) return 0
  if (STATUS_PHRASE.test(line)) return 3
  if (STATUS.test(line) || CODE.test(line)) return 2
  return 0
}

/**
 * The most informative of `lines` (oldest first): a line that says `error` with an HTTP status and its reason
 * phrase, else one with `error` and a status or an error code (the earliest of the best, since tools print the
 * cause first and the details after it), else the last line that is not npm's log-file footer. `undefined` when
 * there is no line.
 *
 * @example
 * ```ts
 * import { StderrLine } from "@mcp-fleet/transport"
 *
 * StderrLine.informative([
 *   "npm error code E404",
 *   "npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fnope - Not found",
 *   "npm error A complete log of this run can be found in: /home/me/.npm/_logs/debug-0.log"
 * ]) // "npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fnope - Not found"
 * ```
 *
 * @since 0.4.0
 * @category selecting
 */
export const informative = (lines: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestScore = 0
  for (const line of lines) {
    if (FOOTER.test(line)) continue
    const s = score(line)
    if (s > bestScore) {
      best = line
      bestScore = s
    }
  }
  if (best !== undefined) return best
  const kept = lines.filter((line) => !FOOTER.test(line))
  return kept.length > 0 ? kept[kept.length - 1] : lines[lines.length - 1]
}

/** `npm` (through `npx`) found no such package in the registry. */
const NPM_NOT_FOUND = /\bnpm (?:error|ERR!) (?:code E404\b|404 Not Found\b)/

/**
 * Whether `lines` show npm saying the package does not exist in the registry (`npm error code E404`, `npm error
 * 404 Not Found`): starting the server again fails the same way, so it is not worth a retry.
 *
 * @since 0.4.0
 * @category selecting
 */
export const isPackageNotFound = (lines: ReadonlyArray<string>): boolean =>
  lines.some((line) => NPM_NOT_FOUND.test(line))
