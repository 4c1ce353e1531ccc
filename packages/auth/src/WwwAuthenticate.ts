/**
 * Parsing of the `WWW-Authenticate` response header (RFC 9110 §11.6.1): several challenges, each a scheme
 * followed by a token68 or by `name=value` parameters whose values are tokens or quoted strings.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"

/**
 * One challenge: its scheme (as sent) and its parameters (names lower-cased, values unquoted).
 *
 * @since 0.1.0
 * @category models
 */
export interface Challenge {
  readonly scheme: string
  readonly params: Readonly<Record<string, string>>
}

/**
 * What a Bearer challenge tells an MCP client (RFC 6750 §3, RFC 9728 §5.1).
 *
 * @since 0.1.0
 * @category models
 */
export interface BearerChallenge {
  readonly resourceMetadata: string | undefined
  readonly scope: string | undefined
  readonly error: string | undefined
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/

/**
 * Parses every challenge of a `WWW-Authenticate` value. Malformed parts are skipped, never thrown on.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (header: string): ReadonlyArray<Challenge> => {
  const challenges: Array<{ scheme: string; params: Record<string, string> }> = []
  let rest = header
  const skip = (pattern: RegExp) => {
    rest = rest.replace(pattern, "")
  }
  while (rest.length > 0) {
    skip(/^[\s,]+/)
    const name = TOKEN.exec(rest)?.[0]
    if (name === undefined) {
      // Not a token: drop one character and resynchronise.
      rest = rest.slice(1)
      continue
    }
    rest = rest.slice(name.length)
    skip(/^[ \t]*/)
    const current = challenges.at(-1)
    if (rest.startsWith("=") && current !== undefined && !/^=+[ \t]*(,|$)/.test(rest)) {
      rest = rest.slice(1)
      skip(/^[ \t]*/)
      current.params[name.toLowerCase()] = readValue()
      continue
    }
    // A new challenge; it may carry a token68 instead of parameters.
    challenges.push({ scheme: name, params: {} })
    const token68 = TOKEN68.exec(rest)?.[0]
    if (token68 !== undefined && /^[ \t]*(,|$)/.test(rest.slice(token68.length))) rest = rest.slice(token68.length)
  }
  return challenges

  function readValue(): string {
    if (rest.startsWith("\"")) {
      let value = ""
      let i = 1
      for (; i < rest.length; i++) {
        const c = rest[i]
        if (c === "\\" && i + 1 < rest.length) {
          value += rest[++i]
        } else if (c === "\"") {
          break
        } else {
          value += c
        }
      }
      rest = rest.slice(i + 1)
      return value
    }
    const token = /^[^\s,]*/.exec(rest)?.[0] ?? ""
    rest = rest.slice(token.length)
    return token
  }
}

/**
 * The first `Bearer` challenge of a `WWW-Authenticate` value (scheme compared case-insensitively), if any.
 *
 * @since 0.1.0
 * @category parsing
 */
export const bearer = (header: string | undefined): Option.Option<BearerChallenge> => {
  if (header === undefined) return Option.none()
  const challenge = parse(header).find((c) => c.scheme.toLowerCase() === "bearer")
  return challenge === undefined ? Option.none() : Option.some({
    resourceMetadata: challenge.params["resource_metadata"],
    scope: challenge.params["scope"],
    error: challenge.params["error"]
  })
}
