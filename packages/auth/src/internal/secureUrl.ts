/**
 * The MCP authorization spec's transport rule (§Communication Security, §Open Redirection): every authorization
 * server URL and every redirect URI is HTTPS, except on the loopback interface (`localhost`, `127.0.0.1`, `[::1]`),
 * where plain HTTP is allowed (RFC 8252 §7.3).
 */

/** Whether `uri` names the loopback interface. */
export const isLoopback = (uri: string): boolean => {
  const host = URL.parse(uri)?.hostname
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]"
}

/** Whether `uri` is HTTPS, or HTTP on the loopback interface. */
export const isSecure = (uri: string): boolean => {
  const url = URL.parse(uri)
  if (url === null) return false
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopback(uri))
}
