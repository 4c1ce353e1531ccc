/**
 * The status page's sign-in. A browser sends no `Authorization` header on a page load or an `EventSource`, so the page
 * trades the bearer token once (`POST /status/session` with the header) for a cookie, `HttpOnly`, `SameSite=Strict`,
 * `Path=/status`: the page's script cannot read it, another site cannot make the browser send it, and it goes to the
 * page's data routes only, never to `/mcp` (where only the token is accepted).
 *
 * The cookie is not the token and holds nothing secret: `v1.<expiry>.<tag>`, the tag an HMAC-SHA-256 of the expiry keyed
 * by the token. So it proves its holder once had the token, until its expiry (12 h) or until the token changes; it
 * survives a restart of the gateway with the same token (the page reconnects by itself), and the gateway keeps no
 * table of sessions.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Mac from "effect/crypto/Mac"
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"

/** The cookie's name. */
export const NAME = "mcp_fleet_status"

/** How long a cookie is valid (12 hours). */
export const TTL_MS = 12 * 60 * 60 * 1_000

/** The sign-in. */
export interface PageCookie {
  /** Whether tokens are configured (otherwise the page needs no sign-in, as `/mcp` needs no token). */
  readonly required: boolean
  /** A cookie value for a browser that presented `token` (already checked), valid for `TTL_MS` from now. */
  readonly issue: (token: Redacted.Redacted<string>) => Effect.Effect<string>
  /** Whether `value` is a cookie issued for one of the configured tokens, and not expired. */
  readonly verify: (value: string | undefined) => Effect.Effect<boolean>
}

const encoder = new TextEncoder()
const message = (expiry: number) => encoder.encode(`mcp-fleet status page v1 ${expiry}`)
// The token is the key's material, behind a label of its own (and never empty, which HMAC keys may not be).
const material = (token: Redacted.Redacted<string>) =>
  encoder.encode(`mcp-fleet status page\u0000${Redacted.value(token)}`)

const PATTERN = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/

/** The sign-in for `tokens` (needs `Mac`). */
export const make = Effect.fnUntraced(function*(tokens: ReadonlyArray<Redacted.Redacted<string>>) {
  const mac = yield* Mac.Mac
  const keys = yield* Effect.forEach(tokens, (token) => Effect.orDie(Mac.key(Mac.hmacSha256, material(token))))
  const keyOf = new Map(tokens.map((token, i) => [token, keys[i]!]))

  const issue = (token: Redacted.Redacted<string>) =>
    Effect.gen(function*() {
      const key = keyOf.get(token) ?? (yield* Effect.orDie(Mac.key(Mac.hmacSha256, material(token))))
      const expiry = (yield* Clock.currentTimeMillis) + TTL_MS
      const tag = yield* Effect.orDie(mac.sign(key, message(expiry)))
      return `v1.${expiry}.${Base64Url.encode(tag)}`
    })

  const verify = (value: string | undefined) =>
    Effect.gen(function*() {
      const match = value === undefined ? null : PATTERN.exec(value)
      if (match === null) return false
      const expiry = Number(match[1])
      const now = yield* Clock.currentTimeMillis
      // Expired, or later than any cookie this gateway issues.
      if (expiry <= now || expiry > now + TTL_MS) return false
      const tag = Base64Url.decode(match[2]!)
      // Only the canonical spelling: the last character of 43 carries two unused bits, and a tag whose spelling
      // differs from the one issued is not the one issued.
      if (Result.isFailure(tag) || Base64Url.encode(tag.success) !== match[2]) return false
      for (const key of keys) {
        if (yield* Effect.orElseSucceed(mac.verify(key, tag.success, message(expiry)), () => false)) return true
      }
      return false
    })

  const cookie: PageCookie = { required: tokens.length > 0, issue, verify }
  return cookie
})
