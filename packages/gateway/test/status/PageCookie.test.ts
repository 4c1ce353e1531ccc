/**
 * PageCookie: the status page's cookie proves its holder had a configured token, until its expiry (TestClock), and
 * holds nothing secret.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
import { TestClock } from "effect/testing"
import * as PageCookie from "../../src/status/PageCookie.ts"

const crypto = Mac.layerWebCrypto.pipe(Layer.provide(SecureRandom.layerWebCrypto))
const one = Redacted.make("token-one-4c1f")
const two = Redacted.make("token-two-9e2a")

describe("PageCookie", () => {
  it.effect("a cookie issued for a configured token is accepted until its expiry (12 h), not after", () =>
    Effect.gen(function*() {
      const cookie = yield* PageCookie.make([one, two])
      const value = yield* cookie.issue(two)
      assert.match(value, /^v1\.\d+\.[A-Za-z0-9_-]{43}$/)
      assert.notInclude(value, Redacted.value(two))
      assert.isTrue(yield* cookie.verify(value))
      yield* TestClock.adjust(PageCookie.TTL_MS - 1)
      assert.isTrue(yield* cookie.verify(value))
      yield* TestClock.adjust(1)
      assert.isFalse(yield* cookie.verify(value))
    }).pipe(Effect.provide(crypto)))

  it.effect("refused: another token's cookie, a changed tag or expiry, a far-future expiry, junk, none", () =>
    Effect.gen(function*() {
      const elsewhere = yield* PageCookie.make([Redacted.make("another-gateway")])
      const cookie = yield* PageCookie.make([one])
      const foreign = yield* elsewhere.issue(Redacted.make("another-gateway"))
      assert.isFalse(yield* cookie.verify(foreign))
      const value = yield* cookie.issue(one)
      const [, expiry, tag] = value.split(".")
      // Every other last character, including the three that decode to the same bytes (its two unused bits).
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
      for (const last of alphabet.replace(tag!.slice(-1), "")) {
        assert.isFalse(yield* cookie.verify(`v1.${expiry}.${tag!.slice(0, -1)}${last}`), last)
      }
      assert.isFalse(yield* cookie.verify(`v1.${Number(expiry) + 1}.${tag}`))
      // A valid tag whose expiry is further away than this gateway ever issues (the clock was set back) is refused.
      yield* TestClock.adjust(PageCookie.TTL_MS / 2)
      const later = yield* cookie.issue(one)
      yield* TestClock.setTime(0)
      assert.isFalse(yield* cookie.verify(later))
      assert.isTrue(yield* cookie.verify(value))
      for (const junk of [undefined, "", "v1", "v2.1.x", `v1.${expiry}.${tag}x`, "v1.-5.AAAA"]) {
        assert.isFalse(yield* cookie.verify(junk), String(junk))
      }
      // Without tokens the page needs no sign-in at all.
      assert.isFalse((yield* PageCookie.make([])).required)
      assert.isTrue(cookie.required)
    }).pipe(Effect.provide(crypto)))
})
