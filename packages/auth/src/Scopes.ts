/**
 * Which scopes to ask for: the challenge's `scope` first, then the resource's `scopes_supported`, else none
 * (the `scope` parameter is then omitted). A step-up asks for the union of what was granted and what the
 * challenge names.
 *
 * @since 0.1.0
 */

/**
 * Splits a space-separated scope string into its scopes, without empties or repeats.
 *
 * @since 0.1.0
 * @category scopes
 */
export const split = (scope: string | undefined): ReadonlyArray<string> =>
  scope === undefined ? [] : [...new Set(scope.split(/\s+/).filter((s) => s.length > 0))]

/**
 * The scope to request, or undefined to omit the parameter.
 *
 * @since 0.1.0
 * @category scopes
 */
export const select = (
  challengeScope: string | undefined,
  scopesSupported: ReadonlyArray<string> | undefined
): string | undefined => {
  const fromChallenge = split(challengeScope)
  if (fromChallenge.length > 0) return fromChallenge.join(" ")
  if (scopesSupported !== undefined && scopesSupported.length > 0) return scopesSupported.join(" ")
  return undefined
}

/**
 * The union of several scope strings, in first-seen order, or undefined when empty.
 *
 * @since 0.1.0
 * @category scopes
 */
export const union = (...scopes: ReadonlyArray<string | undefined>): string | undefined => {
  const all = [...new Set(scopes.flatMap(split))]
  return all.length === 0 ? undefined : all.join(" ")
}

/**
 * Whether every scope of `wanted` is in `held`.
 *
 * @since 0.1.0
 * @category scopes
 */
export const covers = (held: string | undefined, wanted: string | undefined): boolean => {
  const have = new Set(split(held))
  return split(wanted).every((s) => have.has(s))
}
