/**
 * The one rule for every URL a remote MCP server hands the client, directly or through the documents it points
 * at: the `resource_metadata` URL of a challenge, the authorization servers of its Protected Resource Metadata,
 * the endpoints of their metadata (authorization, token, registration), and the legacy HTTP+SSE `endpoint`.
 *
 * The legacy HTTP+SSE `endpoint` must be on the server's own origin (the messages of a session go to the server
 * that opened it). Any other handed URL is allowed when it is
 * - on the server's own origin (the client already talks to it: nothing new is reached), or
 * - HTTPS on a host that is not the loopback interface, or
 * - on the loopback interface (HTTP or HTTPS, any port) **only when the MCP server itself is on loopback**.
 *
 * Everything else is refused: plain HTTP off loopback (OAuth 2.1 §1.5), a loopback URL named by a server that is
 * not on loopback (a remote server must not make the client reach a service on the user's machine), a URL with
 * credentials in it, and any scheme but `http:`/`https:`. Loopback is `localhost` and its subdomains (RFC 6761),
 * `127.0.0.0/8`, `0.0.0.0`, `[::1]`, `[::]` and the IPv4-mapped forms of those; hosts are compared after the WHATWG
 * URL parser has normalised them (`127.1`, `0x7f.0.0.1` and `2130706433` are all `127.0.0.1`). A DNS name that
 * resolves to loopback is not recognised (no DNS lookup is made); it is held to HTTPS like any other name.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Kind from "./internal/Kind.ts"

/**
 * What a handed URL is for, as it is named in messages.
 *
 * @since 0.2.0
 * @category models
 */
export type Purpose =
  | "protected resource metadata"
  | "authorization server"
  | "authorization endpoint"
  | "token endpoint"
  | "registration endpoint"
  | "SSE endpoint"

/**
 * The judgement on one URL: allowed (resolved against the server's URL) or refused, with why.
 *
 * @since 0.2.0
 * @category models
 */
export type Verdict =
  | { readonly _tag: "Allowed"; readonly url: URL }
  | { readonly _tag: "Refused"; readonly reason: string }

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** The eight 16-bit groups of a bracketed IPv6 host as the URL parser writes it, or undefined. */
const ipv6Groups = (host: string): ReadonlyArray<number> | undefined => {
  if (!host.startsWith("[") || !host.endsWith("]")) return undefined
  const inner = host.slice(1, -1)
  const [head = "", tail] = inner.split("::")
  const part = (text: string) => (text === "" ? [] : text.split(":").map((g) => Number.parseInt(g, 16)))
  const left = part(head)
  const right = tail === undefined ? [] : part(tail)
  const fill = tail === undefined ? 0 : 8 - left.length - right.length
  const groups = [...left, ...Array.from({ length: fill }, () => 0), ...right]
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined
}

const ipv4IsLocal = (a: number, b: number, c: number, d: number): boolean =>
  a === 127 || (a === 0 && b === 0 && c === 0 && d === 0)

/**
 * Whether a host, as the WHATWG URL parser gives it (`URL.hostname`), is the loopback interface (or the
 * unspecified address, which reaches it).
 *
 * @since 0.2.0
 * @category loopback
 */
export const isLoopbackHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/\.$/, "")
  if (host === "localhost" || host.endsWith(".localhost")) return true
  const v4 = IPV4.exec(host)
  if (v4 !== null) return ipv4IsLocal(Number(v4[1]), Number(v4[2]), Number(v4[3]), Number(v4[4]))
  const groups = ipv6Groups(host)
  if (groups === undefined) return false
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0
  if (!zeroPrefix) return false
  if (g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) return true // :: and ::1
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, deprecated)
  if (g5 === 0xffff || g5 === 0) return ipv4IsLocal(g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff)
  return false
}

/**
 * Whether `url` is on the loopback interface (false for anything that is not a URL).
 *
 * @since 0.2.0
 * @category loopback
 */
export const isLoopback = (url: string | URL): boolean => {
  const parsed = typeof url === "string" ? URL.parse(url) : url
  return parsed !== null && isLoopbackHost(parsed.hostname)
}

/**
 * Whether a bearer token may be sent to the MCP server at `server`: HTTPS, or the loopback interface (OAuth 2.1
 * §1.5, RFC 6750 §5.3: never over cleartext on a network).
 *
 * @since 0.2.0
 * @category policy
 */
export const mayCarryBearer = (server: string | URL): boolean => {
  const parsed = typeof server === "string" ? URL.parse(server) : server
  if (parsed === null) return false
  return parsed.protocol === "https:" || (parsed.protocol === "http:" && isLoopbackHost(parsed.hostname))
}

/**
 * Judges `candidate` (absolute, or relative to `server`) as a URL handed out for `purpose` by the MCP server at
 * `server`.
 *
 * @since 0.2.0
 * @category policy
 */
export const judge = (purpose: Purpose, candidate: string, server: string | URL): Verdict => {
  const base = typeof server === "string" ? URL.parse(server) : server
  if (base === null) return { _tag: "Refused", reason: "the MCP server's own URL is not a URL" }
  const url = URL.parse(candidate, base.href)
  if (url === null) return { _tag: "Refused", reason: "it is not a URL" }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { _tag: "Refused", reason: `its scheme is ${url.protocol}, not https:` }
  }
  if (url.username !== "" || url.password !== "") return { _tag: "Refused", reason: "it carries credentials" }
  if (url.origin === base.origin) return { _tag: "Allowed", url }
  if (purpose === "SSE endpoint") return { _tag: "Refused", reason: `it is not on ${base.origin}` }
  if (isLoopbackHost(url.hostname)) {
    return isLoopbackHost(base.hostname)
      ? { _tag: "Allowed", url }
      : { _tag: "Refused", reason: "it is on the loopback interface and the MCP server is not" }
  }
  if (url.protocol !== "https:") return { _tag: "Refused", reason: "it is plain HTTP off the loopback interface" }
  return { _tag: "Allowed", url }
}

/** At most this many characters of a refused URL are shown (it is the server's text). */
const SHOWN = 200

/**
 * How a handed URL is shown in a message: origin and path only (no query, no fragment, no credentials), bounded.
 *
 * @since 0.2.0
 * @category policy
 */
export const show = (candidate: string, server?: string | URL): string => {
  const url = URL.parse(candidate, server === undefined ? undefined : String(server))
  const text = url === null ? candidate : url.protocol === "http:" || url.protocol === "https:"
    ? `${url.protocol}//${url.host}${url.pathname}`
    : `${url.protocol}…`
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text
}

/**
 * A URL handed out by an MCP server was refused by the policy: nothing was sent to it.
 *
 * @since 0.2.0
 * @category errors
 */
export class UrlRefused extends Schema.TaggedError<UrlRefused>("@mcp-fleet/auth/UrlPolicy/UrlRefused")("UrlRefused", {
  purpose: Schema.String,
  /** The URL as {@link show} gives it. */
  url: Schema.String,
  /** The MCP server's canonical URL. */
  server: Schema.String,
  reason: Schema.String
}) {
  /** The server's for good: it keeps handing out the same URL. */
  get kind(): Kind.ServerFault {
    return Kind.serverFault
  }
  override get message(): string {
    return `The ${this.purpose} URL ${this.url} named for the MCP server ${this.server} was refused: ${this.reason}.`
  }
}

/**
 * The URL `candidate` (resolved against `server`), or `UrlRefused` when the policy refuses it.
 *
 * @since 0.2.0
 * @category policy
 */
export const check = (
  purpose: Purpose,
  candidate: string,
  server: string | URL
): Effect.Effect<URL, UrlRefused> => {
  const verdict = judge(purpose, candidate, server)
  if (verdict._tag === "Allowed") return Effect.succeed(verdict.url)
  const base = typeof server === "string" ? URL.parse(server) : server
  return Effect.fail(
    new UrlRefused({
      purpose,
      url: show(candidate, base ?? undefined),
      server: base === null ? show(String(server)) : `${base.origin}${base.pathname}`,
      reason: verdict.reason
    })
  )
}
