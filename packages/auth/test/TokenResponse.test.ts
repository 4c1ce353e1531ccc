/**
 * Every field of a token response is checked before anything is kept: a finite, clamped `expires_in`, bounded
 * header-safe tokens, a bounded scope; the reasons name the field and never quote its value.
 */
import { assert, describe, it } from "@effect/vitest"
import { Redacted, Result } from "effect"
import { TokenResponse } from "../src/index.ts"

const base = { access_token: "at-1", token_type: "Bearer" }

const reason = (body: unknown): string => {
  const checked = TokenResponse.validate(body)
  assert.isTrue(Result.isFailure(checked), JSON.stringify(body)?.slice(0, 80))
  return Result.isFailure(checked) ? checked.failure : ""
}

const valid = (body: unknown): TokenResponse.TokenResponse => {
  const checked = TokenResponse.validate(body)
  if (Result.isFailure(checked)) assert.fail(`refused: ${checked.failure}`)
  return Result.getOrThrow(checked)
}

describe("TokenResponse.validate", () => {
  it("expires_in: finite, not negative, clamped to a year; a string of digits is read; null is absent", () => {
    assert.strictEqual(valid({ ...base, expires_in: 3600 }).expiresIn, 3600)
    assert.strictEqual(valid({ ...base, expires_in: 1e308 }).expiresIn, TokenResponse.MAX_EXPIRES_IN_SECONDS)
    assert.strictEqual(valid({ ...base, expires_in: "3599" }).expiresIn, 3599)
    assert.strictEqual(valid({ ...base, expires_in: null }).expiresIn, undefined)
    assert.strictEqual(valid(base).expiresIn, undefined)
    // JSON.parse("1e400") is Infinity: refused, never kept as an expiry that serialises to null.
    assert.strictEqual(
      reason(JSON.parse(`{"access_token":"a","token_type":"Bearer","expires_in":1e400}`)),
      "its expires_in is not a finite number"
    )
    assert.strictEqual(reason({ ...base, expires_in: Number.NaN }), "its expires_in is not a finite number")
    assert.strictEqual(reason({ ...base, expires_in: -1 }), "its expires_in is negative")
    assert.strictEqual(reason({ ...base, expires_in: "soon" }), "its expires_in is not a number")
    assert.strictEqual(reason({ ...base, expires_in: true }), "its expires_in is not a number")
  })

  it("tokens: strings, bounded, header-safe; reasons never quote them", () => {
    const long = "x".repeat(TokenResponse.MAX_TOKEN_CHARS + 1)
    assert.strictEqual(reason({ ...base, access_token: long }), "its access_token is longer than 16384 characters")
    assert.strictEqual(
      reason({ ...base, access_token: "secret\r\nx-injected: 1" }),
      "its access_token has characters outside visible ASCII"
    )
    assert.strictEqual(reason({ ...base, access_token: "" }), "its access_token is empty")
    assert.strictEqual(reason({ ...base, access_token: 42 }), "its access_token is not a string")
    assert.strictEqual(reason({ token_type: "Bearer" }), "has no access_token")
    assert.strictEqual(reason({ ...base, refresh_token: long }), "its refresh_token is longer than 16384 characters")
    assert.strictEqual(
      reason({ ...base, refresh_token: "a\u0000b" }),
      "its refresh_token has characters outside printable ASCII"
    )
    assert.strictEqual(reason({ ...base, refresh_token: {} }), "its refresh_token is not a string")
    const ok = valid({ ...base, access_token: "x".repeat(TokenResponse.MAX_TOKEN_CHARS), refresh_token: "rt 1" })
    assert.strictEqual(Redacted.value(ok.accessToken).length, TokenResponse.MAX_TOKEN_CHARS)
    assert.strictEqual(Redacted.value(ok.refreshToken!), "rt 1")
    assert.isUndefined(valid({ ...base, refresh_token: null }).refreshToken)
  })

  it("token_type and scope are bounded to their syntax; the body must be an object", () => {
    assert.strictEqual(reason({ access_token: "a" }), "has no token_type")
    assert.strictEqual(reason({ ...base, token_type: "Bearer x" }), "its token_type is not a token type")
    assert.strictEqual(reason({ ...base, token_type: "B".repeat(65) }), "its token_type is not a token type")
    assert.strictEqual(valid({ ...base, token_type: "DPoP" }).tokenType, "DPoP")
    assert.strictEqual(
      reason({ ...base, scope: "a".repeat(TokenResponse.MAX_SCOPE_CHARS + 1) }),
      "its scope is longer than 4096 characters"
    )
    assert.strictEqual(reason({ ...base, scope: "a\"b" }), "its scope has characters outside the scope syntax")
    assert.strictEqual(reason({ ...base, scope: ["a"] }), "its scope is not a string")
    assert.strictEqual(valid({ ...base, scope: "mcp:read mcp:call" }).scope, "mcp:read mcp:call")
    assert.strictEqual(reason([base]), "is not a JSON object")
    assert.strictEqual(reason(null), "is not a JSON object")
    assert.strictEqual(reason("at-1"), "is not a JSON object")
  })

  it("toTokens: a finite expiry from now, a refresh token that was not rotated kept", () => {
    const kept = Redacted.make("rt-old")
    const tokens = TokenResponse.toTokens(valid({ ...base, expires_in: 1e308 }), {
      issuer: "https://as.example",
      now: 1_000,
      requestedScope: "a",
      keptRefreshToken: kept
    })
    assert.strictEqual(tokens.expiresAt, 1_000 + TokenResponse.MAX_EXPIRES_IN_SECONDS * 1000)
    assert.isTrue(Number.isFinite(tokens.expiresAt))
    assert.strictEqual(tokens.refreshToken, kept)
    assert.strictEqual(tokens.scope, "a")
  })
})
