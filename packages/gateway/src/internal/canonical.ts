/**
 * JSON with object keys in code-unit order at every depth: equal for equal values whatever the order of keys.
 *
 * @internal
 */

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return Object.fromEntries(entries.map(([key, inner]) => [key, canonical(inner)]))
  }
  return value
}

/** @internal */
export const canonicalJson = (value: unknown): string => JSON.stringify(canonical(value)) ?? "undefined"
