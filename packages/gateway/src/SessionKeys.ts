/**
 * The keys that seal 2025-11-25 session ids (`SessionSeal`): a current key that seals, and the previous ones that
 * still open ids sealed before a rotation.
 *
 * **The key file** (`mcp-fleet serve --session-key-file K`) holds one key a line: 32 random bytes in base64 or
 * base64url (`openssl rand -base64 32`). The first key is the current one; the lines after it are the previous keys,
 * newest first. Blank lines and lines starting with `#` are ignored. To rotate: put a new key on the first line and
 * keep the old one under it until every session sealed under it has expired (`maxAge`), then remove it.
 *
 * Each key is known by an id of 8 base64url characters, the first 6 bytes of SHA-256 over a fixed label and the
 * key: it is written in front of every sealed id, so that a replica tells "sealed under a key I do not hold" from
 * "altered". The id reveals nothing usable about the key.
 *
 * Nothing here ever shows a key: errors name the line, never its content.
 *
 * @since 0.1.0
 */
import * as Aead from "effect/crypto/Aead"
import * as Digest from "effect/crypto/Digest"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { InvalidSessionKeys } from "./GatewayError.ts"

/**
 * One key: its id and the AES-256-GCM key.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionKey {
  readonly id: string
  readonly key: Aead.Key<Aead.AesGcm>
}

/**
 * The keys: `current` seals, every key in `byId` opens (the current one included).
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionKeys {
  readonly current: SessionKey
  readonly byId: ReadonlyMap<string, SessionKey>
}

/**
 * At most this many keys in a file (the current one and 15 previous ones).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_KEYS = 16

const LABEL = new TextEncoder().encode("mcp-fleet session key id\u0000")

/** The bytes of one line, or why not (never quoting the line). */
const bytesOf = (line: string): Uint8Array | string => {
  const decoded = /[+/]/.test(line) ? Base64.decode(line) : Base64Url.decode(line)
  if (Result.isFailure(decoded)) return "it is not base64 or base64url"
  if (decoded.success.length !== 32) return `it decodes to ${decoded.success.length} bytes, not 32`
  return decoded.success
}

const keyId = Effect.fnUntraced(function*(bytes: Uint8Array) {
  const digest = yield* Digest.Digest
  const input = new Uint8Array(LABEL.length + bytes.length)
  input.set(LABEL, 0)
  input.set(bytes, LABEL.length)
  const hash = yield* digest.digest(Digest.sha256, input)
  return Base64Url.encode(hash.slice(0, 6))
})

/**
 * Reads the keys from a key file's text. Fails with `InvalidSessionKeys` naming the line (never its content) when
 * a line is not 32 bytes of base64, when the file holds no key or more than {@link MAX_KEYS}, or when a key repeats.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = Effect.fn("SessionKeys.parse")(function*(
  text: Redacted.Redacted<string>
): Effect.fn.Return<SessionKeys, InvalidSessionKeys, Digest.Digest> {
  const lines = Redacted.value(text).split(/\r?\n/)
  const keys: Array<SessionKey> = []
  const byId = new Map<string, SessionKey>()
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim()
    if (line === "" || line.startsWith("#")) continue
    const bytes = bytesOf(line)
    if (typeof bytes === "string") return yield* new InvalidSessionKeys({ reason: `line ${index + 1}: ${bytes}` })
    if (keys.length === MAX_KEYS) {
      return yield* new InvalidSessionKeys({ reason: `it holds more than ${MAX_KEYS} keys` })
    }
    const id = yield* keyId(bytes)
    if (byId.has(id)) {
      return yield* new InvalidSessionKeys({ reason: `line ${index + 1}: it repeats an earlier key` })
    }
    const key = yield* Aead.key(Aead.aes256Gcm, bytes).pipe(
      Effect.mapError(() => new InvalidSessionKeys({ reason: `line ${index + 1}: it is not an AES-256 key` }))
    )
    const entry: SessionKey = { id, key }
    keys.push(entry)
    byId.set(id, entry)
  }
  const current = keys[0]
  if (current === undefined) return yield* new InvalidSessionKeys({ reason: "it holds no key" })
  return { current, byId }
})

/**
 * A new key line for the file: 32 bytes from `SecureRandom`, in base64.
 *
 * @since 0.1.0
 * @category constructors
 */
export const generate: Effect.Effect<Redacted.Redacted<string>, never, SecureRandom.SecureRandom> = Effect.map(
  SecureRandom.SecureRandom.use((random) => random.randomBytes(32)),
  (bytes) => Redacted.make(Base64.encode(bytes))
)
