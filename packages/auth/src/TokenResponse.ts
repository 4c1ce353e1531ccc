/**
 * What a token endpoint answered, checked field by field before anything is kept (RFC 6749 §5.1): every grant
 * (authorization code, refresh, and the machine-to-machine ones) goes through {@link validate}, and the
 * {@link TokenStore} only ever holds what passed.
 *
 * - `access_token`: a string of 1 to {@link MAX_TOKEN_CHARS} visible ASCII characters (it goes into an HTTP
 *   header: no space, no control character);
 * - `token_type`: 1 to 64 token characters (`Bearer`, `DPoP`, …; whether the type is usable is the caller's rule);
 * - `expires_in` (optional): a finite number of seconds, not negative (a string of digits is accepted, as some
 *   servers send one), clamped to {@link MAX_EXPIRES_IN_SECONDS};
 * - `refresh_token` (optional): 1 to {@link MAX_TOKEN_CHARS} printable ASCII characters;
 * - `scope` (optional): at most {@link MAX_SCOPE_CHARS} characters of RFC 6749 scope syntax.
 *
 * `null` counts as absent for the optional fields. Anything else is refused with a reason that names the field and
 * never quotes its value (it may be a secret).
 *
 * @since 0.2.0
 */
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import type { Tokens } from "./TokenStore.ts"

/**
 * The longest access or refresh token kept, in characters.
 *
 * @since 0.2.0
 * @category limits
 */
export const MAX_TOKEN_CHARS = 16 * 1024

/**
 * The longest `scope` kept, in characters.
 *
 * @since 0.2.0
 * @category limits
 */
export const MAX_SCOPE_CHARS = 4 * 1024

/**
 * The longest lifetime believed, in seconds (one year): a longer `expires_in` is clamped to it.
 *
 * @since 0.2.0
 * @category limits
 */
export const MAX_EXPIRES_IN_SECONDS = 365 * 24 * 60 * 60

const MAX_TOKEN_TYPE_CHARS = 64

/**
 * A token response that passed every check. Secrets are `Redacted`.
 *
 * @since 0.2.0
 * @category models
 */
export interface TokenResponse {
  readonly accessToken: Redacted.Redacted<string>
  readonly tokenType: string
  /** Seconds, finite, between 0 and {@link MAX_EXPIRES_IN_SECONDS}. */
  readonly expiresIn: number | undefined
  readonly refreshToken: Redacted.Redacted<string> | undefined
  readonly scope: string | undefined
}

const VISIBLE = /^[\x21-\x7e]+$/
const PRINTABLE = /^[\x20-\x7e]+$/
const TOKEN_CHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const SCOPE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

type Check<A> = Result.Result<A, string>

const optional = (body: Readonly<Record<string, unknown>>, name: string): unknown =>
  body[name] === null ? undefined : body[name]

const tokenString = (value: unknown, name: string, chars: RegExp, what: string): Check<string> => {
  if (typeof value !== "string") return Result.fail(`its ${name} is not a string`)
  if (value.length === 0) return Result.fail(`its ${name} is empty`)
  if (value.length > MAX_TOKEN_CHARS) return Result.fail(`its ${name} is longer than ${MAX_TOKEN_CHARS} characters`)
  if (!chars.test(value)) return Result.fail(`its ${name} has characters outside ${what}`)
  return Result.succeed(value)
}

const expiresIn = (value: unknown): Check<number | undefined> => {
  if (value === undefined) return Result.succeed(undefined)
  const number = typeof value === "number"
    ? value
    : typeof value === "string" && /^\d{1,15}$/.test(value)
    ? Number(value)
    : undefined
  if (number === undefined) return Result.fail("its expires_in is not a number")
  if (!Number.isFinite(number)) return Result.fail("its expires_in is not a finite number")
  if (number < 0) return Result.fail("its expires_in is negative")
  return Result.succeed(Math.min(number, MAX_EXPIRES_IN_SECONDS))
}

/**
 * Checks a parsed token response (the JSON body of a 2xx answer); the failure is a reason that finishes the
 * sentence "the response …" ("is not a JSON object", "its expires_in is not a finite number").
 *
 * @since 0.2.0
 * @category validation
 */
export const validate = (body: unknown): Result.Result<TokenResponse, string> =>
  Result.gen(function*() {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return yield* Result.fail("is not a JSON object")
    }
    const fields: Readonly<Record<string, unknown>> = Object.fromEntries(Object.entries(body))
    if (fields["access_token"] === undefined) return yield* Result.fail("has no access_token")
    const accessToken = yield* tokenString(fields["access_token"], "access_token", VISIBLE, "visible ASCII")
    const type = fields["token_type"]
    if (type === undefined) return yield* Result.fail("has no token_type")
    if (typeof type !== "string" || type.length > MAX_TOKEN_TYPE_CHARS || !TOKEN_CHARS.test(type)) {
      return yield* Result.fail("its token_type is not a token type")
    }
    const lifetime = yield* expiresIn(optional(fields, "expires_in"))
    const refresh = optional(fields, "refresh_token")
    const refreshToken = refresh === undefined
      ? undefined
      : yield* tokenString(refresh, "refresh_token", PRINTABLE, "printable ASCII")
    const scope = optional(fields, "scope")
    if (scope !== undefined) {
      if (typeof scope !== "string") return yield* Result.fail("its scope is not a string")
      if (scope.length > MAX_SCOPE_CHARS) {
        return yield* Result.fail(`its scope is longer than ${MAX_SCOPE_CHARS} characters`)
      }
      if (!SCOPE.test(scope)) return yield* Result.fail("its scope has characters outside the scope syntax")
    }
    return {
      accessToken: Redacted.make(accessToken),
      tokenType: type,
      expiresIn: lifetime,
      refreshToken: refreshToken === undefined ? undefined : Redacted.make(refreshToken),
      scope: typeof scope === "string" && scope.trim() !== "" ? scope : undefined
    }
  })

/**
 * The {@link Tokens} to keep for a validated response: `expiresAt` from `now` (epoch milliseconds, finite), a
 * refresh token that was not rotated kept, the requested scope when the server named none.
 *
 * @since 0.2.0
 * @category conversions
 */
export const toTokens = (response: TokenResponse, context: {
  readonly issuer: string
  readonly now: number
  readonly requestedScope?: string | undefined
  readonly keptRefreshToken?: Redacted.Redacted<string> | undefined
}): Tokens => ({
  issuer: context.issuer,
  accessToken: response.accessToken,
  refreshToken: response.refreshToken ?? context.keptRefreshToken,
  expiresAt: response.expiresIn === undefined ? undefined : context.now + Math.round(response.expiresIn * 1000),
  obtainedAt: context.now,
  scope: response.scope ?? context.requestedScope
})
