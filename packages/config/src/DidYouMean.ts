/**
 * Near-miss suggestions for names a person typed: config keys, server names, tool names.
 *
 * @since 0.1.0
 */

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
 * The known name nearest to `name` when it is a near miss: the same letters in another case, or an edit distance
 * (case-insensitive) of at most 2 (1 for names of up to 4 letters). `undefined` when nothing is that close.
 *
 * @example
 * ```ts
 * import { DidYouMean } from "@mcp-fleet/config"
 *
 * DidYouMean.suggest("disable", ["command", "disabled"]) // "disabled"
 * DidYouMean.suggest("zzz", ["command"]) // undefined
 * ```
 *
 * @since 0.1.0
 * @category suggestions
 */
export const suggest = (name: string, known: ReadonlyArray<string>): string | undefined => {
  const lower = name.toLowerCase()
  const sameLetters = known.find((k) => k.toLowerCase() === lower)
  if (sameLetters !== undefined) return sameLetters
  const limit = name.length <= 4 ? 1 : 2
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
