/**
 * URL facts the HTTP transports need: same-origin checks, and a form of a URL that is safe to show.
 *
 * @internal
 */

const SECRET_PARAM = /token|key|secret|auth|pass|sig|session|code/i

/**
 * The URL with its credentials replaced by `***`: the user and password, and the values of query parameters whose
 * names look like secrets (`token`, `api_key`, `auth`, `password`, `sig`…). Unparseable input is replaced whole.
 */
export const redact = (url: string | URL): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "<invalid URL>"
  }
  if (parsed.username !== "") parsed.username = "***"
  if (parsed.password !== "") parsed.password = "***"
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, "***")
  }
  return parsed.href.replace(/%2A%2A%2A/g, "***")
}

/** `location` resolved against `base`, when it is on the same origin (scheme, host and port) as `base`. */
export const sameOrigin = (location: string, base: URL): URL | undefined => {
  let resolved: URL
  try {
    resolved = new URL(location, base)
  } catch {
    return undefined
  }
  return resolved.origin === base.origin ? resolved : undefined
}
