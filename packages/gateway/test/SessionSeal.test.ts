/**
 * SessionSeal and SessionKeys: a sealed id opens on any replica holding the key and gives the state back; rotation
 * (seal with the current key, open with any); a typed refusal for a malformed, unknown-key, tampered or expired id
 * whose message carries no secret; bounded size; the key file's errors name the line, never the key.
 */
import { assert, describe, it } from "@effect/vitest"
import type { GatewayError } from "@mcp-fleet/gateway"
import { SessionKeys, SessionSeal } from "@mcp-fleet/gateway"
import { Effect, Exit, Layer, Redacted } from "effect"
import * as Aead from "effect/crypto/Aead"
import * as Digest from "effect/crypto/Digest"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Base64Url from "effect/encoding/Base64Url"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"

const KEY_A = "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq8M="
const KEY_B = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
const KEY_C = Base64Url.encode(new Uint8Array(32).fill(0xfb)) // "-_-_…": base64url, unpadded

const crypto = Layer.mergeAll(Aead.layerWebCrypto, Digest.layerWebCrypto, SecureRandom.layerWebCrypto).pipe(
  Layer.provideMerge(SecureRandom.layerWebCrypto)
)

const keys = (...lines: Array<string>) => SessionKeys.parse(Redacted.make(lines.join("\n")))

const sealWith = (lines: ReadonlyArray<string>, options: Omit<SessionSeal.Options, "keys"> = {}) =>
  Effect.gen(function*() {
    return yield* SessionSeal.make({ ...options, keys: yield* keys(...lines) })
  })

const clientInfo = { name: "claude-code", version: "2.1.215", title: "Claude Code" }
const state: SessionSeal.SessionState = {
  protocolVersion: "2025-11-25",
  capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } },
  clientInfo,
  profile: "readonly",
  logLevel: "warning"
}

const refusal = <A>(effect: Effect.Effect<A, GatewayError.SessionIdRefused>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(effect)
    if (Exit.isSuccess(exit)) return assert.fail("the id opened")
    const error = exit.cause.reasons.find((r) => r._tag === "Fail")
    if (error === undefined || error._tag !== "Fail") return assert.fail("no typed failure")
    return error.error
  })

describe("SessionSeal", () => {
  it.effect("a sealed id opens on another replica holding the key, with the whole state", () =>
    Effect.gen(function*() {
      const replica1 = yield* sealWith([KEY_A])
      const replica2 = yield* sealWith([KEY_A])
      const id = yield* replica1.seal(state)
      const opened = yield* replica2.open(id)
      assert.deepStrictEqual(opened.state, state)
      assert.isTrue(opened.current)
      assert.match(opened.sid, /^[A-Za-z0-9_-]{22}$/)
      assert.strictEqual(opened.expiresAt - opened.issuedAt, 24 * 60 * 60_000)
      // Visible ASCII only (0x21-0x7E), as Mcp-Session-Id requires.
      assert.match(id, /^[\x21-\x7e]+$/)
      assert.isTrue(SessionSeal.isSealed(id))
      // Two seals of one state differ (random nonce and sid), and neither shows the state.
      const again = yield* replica1.seal(state)
      assert.notStrictEqual(again, id)
      assert.notInclude(id, "claude")
      assert.notStrictEqual((yield* replica2.open(again)).sid, opened.sid)
    }).pipe(Effect.provide(crypto)))

  it.effect("the state round-trips for any host (property)", () =>
    Effect.gen(function*() {
      const seal = yield* sealWith([KEY_A], { maxLength: 1_000_000 })
      const json = fc.jsonValue({ maxDepth: 3 })
      const states = fc.record({
        protocolVersion: fc.constantFrom("2025-11-25", "2025-06-18", "2025-03-26"),
        capabilities: fc.dictionary(fc.string({ maxLength: 12 }), json, { maxKeys: 5 }),
        clientInfo: fc.record({ name: fc.string(), version: fc.string() }),
        profile: fc.option(fc.string(), { nil: undefined }),
        logLevel: fc.option(fc.constantFrom("debug", "info", "error", "emergency" as const), { nil: undefined })
      })
      const samples = fc.sample(states, 60)
      for (const sample of samples) {
        const given: SessionSeal.SessionState = {
          protocolVersion: sample.protocolVersion,
          capabilities: JSON.parse(JSON.stringify(sample.capabilities)),
          clientInfo: sample.clientInfo,
          ...(sample.profile === undefined ? {} : { profile: sample.profile }),
          ...(sample.logLevel === undefined ? {} : { logLevel: sample.logLevel })
        }
        const opened = yield* seal.open(yield* seal.seal(given))
        assert.deepStrictEqual(opened.state, given)
      }
    }).pipe(Effect.provide(crypto)))

  it.effect("rotation: seals with the current key, opens ids sealed under a previous one", () =>
    Effect.gen(function*() {
      const before = yield* sealWith([KEY_A])
      const old = yield* before.seal(state)
      const rotated = yield* sealWith([KEY_B, KEY_A])
      const opened = yield* rotated.open(old)
      assert.deepStrictEqual(opened.state, state)
      assert.isFalse(opened.current)
      // Resealing moves the session to the current key and keeps its sid and expiry.
      const moved = yield* rotated.reseal(opened, { ...opened.state, logLevel: "debug" })
      const reopened = yield* rotated.open(moved)
      assert.isTrue(reopened.current)
      assert.strictEqual(reopened.sid, opened.sid)
      assert.strictEqual(reopened.expiresAt, opened.expiresAt)
      assert.strictEqual(reopened.state.logLevel, "debug")
      // New ids are sealed under the current key: a replica holding only the old key cannot open them.
      const fresh = yield* rotated.seal(state)
      const error = yield* refusal(before.open(fresh))
      assert.strictEqual(error.reason, "unknown-key")
      // Once the old key is removed, its ids stop opening.
      const after = yield* sealWith([KEY_B])
      assert.strictEqual((yield* refusal(after.open(old))).reason, "unknown-key")
    }).pipe(Effect.provide(crypto)))

  it.effect("an altered id is refused as tampered, wherever the change is", () =>
    Effect.gen(function*() {
      const seal = yield* sealWith([KEY_A, KEY_B], { cacheSize: 0 })
      const id = yield* seal.seal(state)
      const [prefix, keyId, body] = id.split(".") as [string, string, string]
      const bytes = Base64Url.decode(body)
      if (bytes._tag !== "Success") return assert.fail("not base64url")
      for (const at of [0, 5, 12, 20, bytes.success.length - 1]) {
        const changed = bytes.success.slice()
        changed[at] = changed[at]! ^ 1
        const error = yield* refusal(seal.open(`${prefix}.${keyId}.${Base64Url.encode(changed)}`))
        assert.strictEqual(error.reason, "tampered", `byte ${at}`)
      }
      // The key id is authenticated: the same body under another held key's id does not open.
      const otherId = [...(yield* keys(KEY_B)).byId.keys()][0]!
      assert.strictEqual((yield* refusal(seal.open(`${prefix}.${otherId}.${body}`))).reason, "tampered")
      // An authentic ciphertext that is not a payload of ours (sealed by something else under the key).
      const key = (yield* keys(KEY_A)).current
      const aead = yield* Aead.Aead
      const nonce = new Uint8Array(12)
      const junk = yield* aead.encrypt(key.key, new TextEncoder().encode("{\"hello\":1}"), {
        nonce,
        aad: new TextEncoder().encode(`m1.${key.id}`)
      })
      const forged = new Uint8Array(12 + junk.length)
      forged.set(junk, 12)
      assert.strictEqual((yield* refusal(seal.open(`m1.${key.id}.${Base64Url.encode(forged)}`))).reason, "tampered")
    }).pipe(Effect.provide(crypto)))

  it.effect("an id past maxAge is refused as expired, cached or not (TestClock)", () =>
    Effect.gen(function*() {
      const seal = yield* sealWith([KEY_A], { maxAge: "1 hour" })
      const fresh = yield* sealWith([KEY_A], { maxAge: "1 hour" })
      const never = yield* sealWith([KEY_A], { maxAge: "1 hour" })
      const id = yield* seal.seal(state)
      yield* seal.open(id) // now cached in `seal`, not in `fresh`
      yield* TestClock.adjust("59 minutes")
      yield* seal.open(id)
      yield* fresh.open(id)
      yield* TestClock.adjust("1 minute")
      const cached = yield* refusal(seal.open(id))
      const opened = yield* refusal(never.open(id))
      for (const error of [cached, opened]) {
        assert.strictEqual(error.reason, "expired")
        assert.strictEqual(error.expiredAt, 60 * 60_000)
        assert.include(error.message, "1970-01-01T01:00:00.000Z")
      }
    }).pipe(Effect.provide(crypto)))

  it.effect("malformed and oversized ids are refused before any decryption", () =>
    Effect.gen(function*() {
      const decrypts: Array<number> = []
      const counting = Layer.effect(
        Aead.Aead,
        Effect.map(Aead.Aead, (inner) =>
          Aead.Aead.of({
            ...inner,
            decrypt: (key, data, options) => {
              decrypts.push(data.length)
              return inner.decrypt(key, data, options)
            }
          }))
      ).pipe(Layer.provide(Aead.layerWebCrypto))
      yield* Effect.gen(function*() {
        const seal = yield* sealWith([KEY_A], { maxLength: 256 })
        const keyId = (yield* keys(KEY_A)).current.id
        for (
          const id of [
            "",
            "abc",
            "m1.",
            `m1.${keyId}.`,
            `m1.${keyId}.!!!!`,
            `m2.${keyId}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
            `m1.${keyId}.${"A".repeat(300)}`,
            `m1.${keyId}.AAAA` // too short to hold a nonce and a tag
          ]
        ) {
          assert.strictEqual((yield* refusal(seal.open(id))).reason, "malformed", JSON.stringify(id))
        }
        assert.deepStrictEqual(decrypts, [])
      }).pipe(Effect.provide(counting))
    }).pipe(Effect.provide(crypto)))

  it.effect("a later request of a session costs no decryption (cache), and cacheSize 0 decrypts each time", () =>
    Effect.gen(function*() {
      let decrypts = 0
      const counting = Layer.effect(
        Aead.Aead,
        Effect.map(Aead.Aead, (inner) =>
          Aead.Aead.of({
            ...inner,
            decrypt: (key, data, options) => {
              decrypts++
              return inner.decrypt(key, data, options)
            }
          }))
      ).pipe(Layer.provide(Aead.layerWebCrypto))
      yield* Effect.gen(function*() {
        const cached = yield* sealWith([KEY_A])
        const uncached = yield* sealWith([KEY_A], { cacheSize: 0 })
        const id = yield* cached.seal(state)
        for (let i = 0; i < 5; i++) yield* cached.open(id)
        assert.strictEqual(decrypts, 1)
        for (let i = 0; i < 5; i++) yield* uncached.open(id)
        assert.strictEqual(decrypts, 6)
        // Bounded: with room for 2, the least recently used id is decrypted again.
        const small = yield* sealWith([KEY_A], { cacheSize: 2 })
        const ids = [yield* small.seal(state), yield* small.seal(state), yield* small.seal(state)]
        decrypts = 0
        for (const each of ids) yield* small.open(each)
        yield* small.open(ids[2]!)
        yield* small.open(ids[1]!)
        assert.strictEqual(decrypts, 3)
        yield* small.open(ids[0]!)
        assert.strictEqual(decrypts, 4)
      }).pipe(Effect.provide(counting))
    }).pipe(Effect.provide(crypto)))

  it.effect("a state that would seal past maxLength is refused; extra clientInfo fields are not sealed", () =>
    Effect.gen(function*() {
      const seal = yield* sealWith([KEY_A], { maxLength: 1_024 })
      const big = { ...state, capabilities: { experimental: { blob: "x".repeat(2_000) } } }
      const exit = yield* Effect.exit(seal.seal(big))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = exit.cause.reasons[0]
        assert.strictEqual(error?._tag === "Fail" ? error.error._tag : undefined, "SessionStateTooLarge")
        assert.match(error?._tag === "Fail" ? error.error.message : "", /over the gateway's limit of 1024/)
      }
      // Icons (data URIs can be large) and other clientInfo fields are dropped.
      const withIcons = {
        ...state,
        clientInfo: { ...clientInfo, icons: [{ src: `data:image/png;base64,${"A".repeat(5_000)}` }] }
      }
      const opened = yield* seal.open(yield* seal.seal(withIcons))
      assert.deepStrictEqual(opened.state.clientInfo, clientInfo)
    }).pipe(Effect.provide(crypto)))

  it.effect("a host without clientInfo gets a session; a state that is not JSON is a typed error", () =>
    Effect.gen(function*() {
      const seal = yield* sealWith([KEY_A])
      const { clientInfo: _, ...anonymous } = state
      assert.deepStrictEqual((yield* seal.open(yield* seal.seal(anonymous))).state, anonymous)
      const error = yield* Effect.flip(seal.seal({ ...state, capabilities: { experimental: { ratio: Number.NaN } } }))
      assert.strictEqual(error._tag, "SessionStateInvalid")
      assert.match(error.message, /^The session's state cannot be sealed: /)
    }).pipe(Effect.provide(crypto)))

  it.effect("no refusal's message carries the id, the key or the state", () =>
    Effect.gen(function*() {
      const seal = yield* sealWith([KEY_A], { maxAge: "1 minute", cacheSize: 0 })
      const secret = { ...state, clientInfo: { name: "host-with-a-SECRET-name", version: "1" } }
      const id = yield* seal.seal(secret)
      const body = id.split(".")[2]!
      // One character changed inside the body (not the last, whose unused bits may not matter): another byte.
      const at = id.length - 10
      const tampered = `${id.slice(0, at)}${id[at] === "A" ? "B" : "A"}${id.slice(at + 1)}`
      const errors = [
        yield* refusal(seal.open(tampered)),
        yield* refusal((yield* sealWith([KEY_B])).open(id)),
        yield* refusal(seal.open(`${id}!`))
      ]
      yield* TestClock.adjust("2 minutes")
      errors.push(yield* refusal(seal.open(id)))
      assert.deepStrictEqual(errors.map((e) => e.reason), ["tampered", "unknown-key", "malformed", "expired"])
      for (const error of errors) {
        const shown = `${error.message} ${JSON.stringify(error)} ${String(error)}`
        assert.notInclude(shown, body.slice(0, 16))
        assert.notInclude(shown, "SECRET")
        assert.notInclude(shown, KEY_A.slice(0, 12))
      }
    }).pipe(Effect.provide(crypto)))
})

describe("SessionKeys", () => {
  it.effect("reads base64 and base64url keys, skips comments and blank lines; the first is current", () =>
    Effect.gen(function*() {
      assert.match(KEY_C, /[-_]/)
      const parsed = yield* keys("# current", KEY_B, "", "  # previous ", KEY_A, KEY_C)
      assert.strictEqual(parsed.byId.size, 3)
      assert.strictEqual(parsed.current, [...parsed.byId.values()][0])
      assert.match(parsed.current.id, /^[A-Za-z0-9_-]{8}$/)
      // The id depends on the key only.
      assert.strictEqual((yield* keys(KEY_B)).current.id, parsed.current.id)
      assert.notStrictEqual((yield* keys(KEY_A)).current.id, parsed.current.id)
    }).pipe(Effect.provide(crypto)))

  it.effect("a bad file is refused naming the line, never the key", () =>
    Effect.gen(function*() {
      const cases: Array<[ReadonlyArray<string>, string]> = [
        [[], "it holds no key"],
        [["# only a comment"], "it holds no key"],
        [[KEY_A, "not base64 at all!"], "line 2: it is not base64 or base64url"],
        [[KEY_A.slice(0, 24)], "line 1: it decodes to 18 bytes, not 32"],
        [[KEY_A, "", KEY_A], "line 3: it repeats an earlier key"],
        [Array.from({ length: 17 }, (_, i) => Base64Url.encode(new Uint8Array(32).fill(i))), "more than 16 keys"]
      ]
      for (const [lines, expected] of cases) {
        const exit = yield* Effect.exit(keys(...lines))
        if (Exit.isSuccess(exit)) return assert.fail(`${expected}: parsed`)
        const reason = exit.cause.reasons[0]
        const error = reason?._tag === "Fail" ? reason.error : assert.fail("no typed failure")
        assert.strictEqual(error._tag, "InvalidSessionKeys")
        assert.include(error.message, expected)
        assert.notInclude(error.message, KEY_A.slice(0, 12))
      }
    }).pipe(Effect.provide(crypto)))

  it.effect("generate makes a key the file accepts", () =>
    Effect.gen(function*() {
      const line = yield* SessionKeys.generate
      assert.strictEqual(String(line), "<redacted>")
      const parsed = yield* SessionKeys.parse(line)
      assert.strictEqual(parsed.byId.size, 1)
    }).pipe(Effect.provide(crypto)))
})
