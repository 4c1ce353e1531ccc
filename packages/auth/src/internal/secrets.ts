/**
 * Text from an authorization server or an MCP server, made safe to show: every secret the client sent or holds
 * is replaced by `***` (longest first, so a secret that contains another goes whole), then the text is bounded.
 */

/** `text` without any of `secrets`, cut to `max` characters (with an ellipsis) when a bound is given. */
export const scrub = (text: string, secrets: Iterable<string>, max?: number): string => {
  let clean = text
  const values = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)
  for (const secret of values) clean = clean.replaceAll(secret, "***")
  return max !== undefined && clean.length > max ? `${clean.slice(0, max)}…` : clean
}
