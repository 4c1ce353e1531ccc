/**
 * The keys a server entry may carry, by kind, the keys other hosts use that mcp-fleet ignores, and the
 * did-you-mean for the rest.
 *
 * @since 0.1.0
 */

/**
 * Keys of a stdio entry that mcp-fleet reads.
 *
 * @since 0.1.0
 * @category keys
 */
export const STDIO_KEYS: ReadonlyArray<string> = [
  "type",
  "command",
  "args",
  "env",
  "envFile",
  "cwd",
  "disabled",
  "timeout",
  "curated",
  "requestTimeoutMs",
  "inheritEnv"
]

/**
 * Keys of a remote (`url`) entry that mcp-fleet reads.
 *
 * @since 0.1.0
 * @category keys
 */
export const REMOTE_KEYS: ReadonlyArray<string> = [
  "type",
  "url",
  "headers",
  "disabled",
  "timeout",
  "curated",
  "requestTimeoutMs"
]

/**
 * Keys that Cursor, Cline, Roo Code, Windsurf, Gemini CLI or VS Code document for an entry, that mcp-fleet has no
 * use for (tool approval lists, OAuth and gallery metadata, …).
 *
 * @since 0.1.0
 * @category keys
 */
export const OTHER_HOSTS_KEYS: ReadonlySet<string> = new Set([
  "autoApprove",
  "alwaysAllow",
  "disabledTools",
  "transportType",
  "trust",
  "includeTools",
  "excludeTools",
  "description",
  "oauth",
  "authProviderType",
  "gallery",
  "version",
  "dev",
  "networkTimeout",
  "watchPaths"
])

const distance = (a: string, b: string): number => {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!
    previous[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return previous[b.length]!
}

/**
 * The known key nearest to `key` when it is a near miss: the same letters in another case, or an edit distance
 * of at most 2 (1 for keys of up to 4 letters). `undefined` when nothing is that close.
 *
 * @since 0.1.0
 * @category keys
 */
export const suggest = (key: string, known: ReadonlyArray<string>): string | undefined => {
  const lower = key.toLowerCase()
  const sameLetters = known.find((k) => k.toLowerCase() === lower)
  if (sameLetters !== undefined) return sameLetters
  const limit = key.length <= 4 ? 1 : 2
  let best: string | undefined
  let bestDistance = limit + 1
  for (const candidate of known) {
    const d = distance(lower, candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}
