/**
 * Renders a JSON path the way a person reads it: `mcpServers.fs.args[1]`, `mcpServers["my server"].env`.
 *
 * @since 0.1.0
 */

/**
 * Keys that read well after a dot: letters, digits, `_`, `$` and `-` (server names like `sequential-thinking`),
 * not starting with a digit or `-`.
 */
const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/

/**
 * Formats path segments (object keys and array indices) as one string; the empty path is `""`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const format = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`
    else if (typeof segment === "string" && PLAIN_KEY.test(segment)) out += out === "" ? segment : `.${segment}`
    else out += `[${JSON.stringify(String(segment))}]`
  }
  return out
}
