/**
 * Sealed session ids for 2025-11-25 hosts: the `Mcp-Session-Id` carries the session's state, sealed with
 * AES-256-GCM under a key from config, so that any replica behind a plain round-robin balancer opens it and serves
 * the session's requests without a shared session table (agentgateway and the Envoy AI gateway do the same).
 *
 * **Contract**:
 * - What is sealed is {@link SessionState}: the negotiated protocol version, the host's capabilities, its
 *   `clientInfo` (name, version, title, websiteUrl: icons and other fields are dropped), the profile and the log
 *   level; with a random 128-bit session id (`sid`, for logs and per-replica bookkeeping), when it was sealed and
 *   when it expires (`maxAge`, default 24 hours, by `Clock`).
 * - The id is `m1.<key id>.<base64url(nonce ‖ ciphertext ‖ tag)>`: visible ASCII only, as the transport requires.
 *   The nonce is 12 bytes from `SecureRandom`; the prefix and key id are authenticated as additional data.
 * - `seal` uses the current key; `open` uses the key the id names, current or previous (`SessionKeys`), so a key
 *   rotation ends no session until the old key is removed from the file.
 * - Bounded: an id longer than `maxLength` (default 4,096 characters) is refused before any decoding, and `seal`
 *   refuses a state that would seal longer (`SessionStateTooLarge`), or that is not one (`SessionStateInvalid`: a
 *   capability that is not JSON, a log level that is not MCP's).
 * - `open` fails with one typed error, `SessionIdRefused`, whose `reason` is `malformed`, `unknown-key`,
 *   `tampered` or `expired`. Its message never contains the id, the key or the state. A gateway answers it as it
 *   answers an unknown session: HTTP 404, and the host starts a new session with `initialize`.
 * - Recently opened ids are kept (at most `cacheSize`, default 1,024, least recently used first out), so a
 *   session's later requests cost a map lookup and an expiry check, not a decryption. Only ids that opened are
 *   kept.
 *
 * What a sealed id cannot do: be revoked before it expires (`DELETE` ends the session on the replica that gets it;
 * the id itself stays openable until `maxAge`), change after `initialize` (a host's `logging/setLevel` is sealed
 * into a new id that only hosts adopting a new `Mcp-Session-Id` pick up), or carry a server→client request in flight
 * on one replica's stream (see the deploy guide).
 *
 * @since 0.1.0
 */
import { ProtocolFeatures } from "@mcp-fleet/transport"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Aead from "effect/crypto/Aead"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { SessionIdRefused, SessionStateInvalid, SessionStateTooLarge } from "./GatewayError.ts"
import type { SessionKeys } from "./SessionKeys.ts"

/**
 * What a host said of itself in `initialize` (the fields kept).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ClientInfo = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  title: Schema.optionalKey(Schema.String),
  websiteUrl: Schema.optionalKey(Schema.String)
})

/**
 * The state of a 2025-11-25 session that any replica needs to serve it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionState = Schema.Struct({
  /** The protocol version negotiated in `initialize`. */
  protocolVersion: Schema.String,
  /** The host's capabilities, as it declared them. */
  capabilities: Schema.Record(Schema.String, Schema.Json),
  /** Absent when the host sent none. */
  clientInfo: Schema.optionalKey(ClientInfo),
  /** The profile the host connected through (`/mcp/<profile>`); absent: the whole fleet. */
  profile: Schema.optionalKey(Schema.String),
  /** The least severe level the host wants log entries at; absent: never set. */
  logLevel: Schema.optionalKey(ProtocolFeatures.LoggingLevel)
})

/**
 * @since 0.1.0
 * @category models
 */
export type SessionState = typeof SessionState.Type

/**
 * The sealed payload: the state, a random session id, when it was sealed and when it expires (epoch ms, `Clock`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Payload = Schema.Struct({
  v: Schema.Literal(1),
  sid: Schema.String,
  iat: Schema.Finite,
  exp: Schema.Finite,
  state: SessionState
})

const PayloadJson = Schema.fromJsonString(Payload)
const encodePayload = Schema.encodeEffect(PayloadJson)
const decodePayload = Schema.decodeUnknownEffect(PayloadJson)

/**
 * An opened session id.
 *
 * @since 0.1.0
 * @category models
 */
export interface Opened {
  /** The session's random id (22 base64url characters): the same for every request of the session. */
  readonly sid: string
  readonly state: SessionState
  readonly issuedAt: number
  readonly expiresAt: number
  /** The id of the key it was sealed under. */
  readonly keyId: string
  /** Whether that key is the current one (else, sealing the state again moves it to the current key). */
  readonly current: boolean
}

/**
 * The options of {@link make}.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  readonly keys: SessionKeys
  /** How long a sealed id opens. Default 24 hours. */
  readonly maxAge?: Duration.Input | undefined
  /** The longest id sealed or opened. Default 4,096 characters (headers of 8 KiB pass every common proxy). */
  readonly maxLength?: number | undefined
  /** Opened ids kept for later requests. Default 1,024; 0 keeps none. */
  readonly cacheSize?: number | undefined
}

/**
 * The first characters of every sealed id.
 *
 * @since 0.1.0
 * @category constants
 */
export const PREFIX = "m1"

const ID = /^m1\.([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]+)$/
const NONCE_LENGTH = 12
const TAG_LENGTH = 16

const aadFor = (keyId: string) => new TextEncoder().encode(`${PREFIX}.${keyId}`)

/**
 * The sealing service. Its operations are `SessionSeal["Service"]`.
 *
 * @since 0.1.0
 * @category services
 */
export class SessionSeal extends Context.Service<SessionSeal, {
  /** Seals a session's state into a new session id (a new `sid`). */
  readonly seal: (state: SessionState) => Effect.Effect<string, SessionStateTooLarge | SessionStateInvalid>
  /** Seals the state again under the same `sid` and expiry: after `logging/setLevel`, or to move to the current key. */
  readonly reseal: (
    opened: Opened,
    state: SessionState
  ) => Effect.Effect<string, SessionStateTooLarge | SessionStateInvalid>
  /** Opens a session id. */
  readonly open: (id: string) => Effect.Effect<Opened, SessionIdRefused>
}>()("@mcp-fleet/gateway/SessionSeal") {}

/**
 * Builds the service. Needs `Aead` and `SecureRandom` (`Aead.layerWebCrypto`, `SecureRandom.layerWebCrypto`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  options: Options
): Effect.fn.Return<SessionSeal["Service"], never, Aead.Aead | SecureRandom.SecureRandom> {
  const aead = yield* Aead.Aead
  const random = yield* SecureRandom.SecureRandom
  const { keys } = options
  const maxAge = options.maxAge === undefined
    ? 24 * 60 * 60_000
    : Math.max(1, Duration.toMillis(Duration.fromInputUnsafe(options.maxAge)))
  const maxLength = options.maxLength !== undefined && options.maxLength >= 64 ? Math.floor(options.maxLength) : 4_096
  const cacheSize = options.cacheSize !== undefined && options.cacheSize >= 0 ? Math.floor(options.cacheSize) : 1_024
  /** Ids that opened, least recently used first. */
  const cache = new Map<string, Opened>()

  const remember = (id: string, opened: Opened) => {
    if (cacheSize === 0) return
    cache.delete(id)
    cache.set(id, opened)
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value!)
  }

  const sealPayload = Effect.fnUntraced(function*(payload: typeof Payload.Type) {
    const json = yield* encodePayload(payload).pipe(
      Effect.mapError((error) =>
        new SessionStateInvalid({
          issue: error.message.length > 300 ? `${error.message.slice(0, 300)}…` : error.message
        })
      )
    )
    const nonce = yield* random.randomBytes(NONCE_LENGTH)
    const sealed = yield* aead.encrypt(keys.current.key, new TextEncoder().encode(json), {
      nonce,
      aad: aadFor(keys.current.id)
    }).pipe(Effect.orDie) // the key and the nonce have the right lengths: only a bug fails here
    const body = new Uint8Array(nonce.length + sealed.length)
    body.set(nonce, 0)
    body.set(sealed, nonce.length)
    const id = `${PREFIX}.${keys.current.id}.${Base64Url.encode(body)}`
    if (id.length > maxLength) return yield* new SessionStateTooLarge({ length: id.length, maxLength })
    return id
  })

  const seal = Effect.fn("SessionSeal.seal")(function*(state: SessionState) {
    const now = yield* Clock.currentTimeMillis
    const sid = Base64Url.encode(yield* random.randomBytes(16))
    return yield* sealPayload({ v: 1, sid, iat: now, exp: now + maxAge, state })
  })

  const reseal = Effect.fn("SessionSeal.reseal")(function*(opened: Opened, state: SessionState) {
    return yield* sealPayload({ v: 1, sid: opened.sid, iat: opened.issuedAt, exp: opened.expiresAt, state })
  })

  const refused = (reason: SessionIdRefused["reason"], keyId?: string, expiredAt?: number) =>
    new SessionIdRefused({
      reason,
      ...(keyId === undefined ? {} : { keyId }),
      ...(expiredAt === undefined ? {} : { expiredAt })
    })

  const open = Effect.fn("SessionSeal.open")(function*(id: string) {
    const now = yield* Clock.currentTimeMillis
    const cached = cache.get(id)
    if (cached !== undefined) {
      if (now >= cached.expiresAt) {
        cache.delete(id)
        return yield* refused("expired", cached.keyId, cached.expiresAt)
      }
      remember(id, cached)
      return cached
    }
    if (id.length > maxLength) return yield* refused("malformed")
    const match = ID.exec(id)
    if (match === null) return yield* refused("malformed")
    const keyId = match[1]!
    const key = keys.byId.get(keyId)
    if (key === undefined) return yield* refused("unknown-key", keyId)
    const body = Base64Url.decode(match[2]!)
    if (Result.isFailure(body) || body.success.length < NONCE_LENGTH + TAG_LENGTH + 2) {
      return yield* refused("malformed")
    }
    const nonce = body.success.slice(0, NONCE_LENGTH)
    const plain = yield* aead.decrypt(key.key, body.success.slice(NONCE_LENGTH), { nonce, aad: aadFor(keyId) }).pipe(
      Effect.mapError(() => refused("tampered", keyId))
    )
    // Authentic but not a payload of ours: sealed by something else under the same key.
    const payload = yield* decodePayload(new TextDecoder().decode(plain)).pipe(
      Effect.mapError(() => refused("tampered", keyId))
    )
    if (now >= payload.exp) return yield* refused("expired", keyId, payload.exp)
    const opened: Opened = {
      sid: payload.sid,
      state: payload.state,
      issuedAt: payload.iat,
      expiresAt: payload.exp,
      keyId,
      current: keyId === keys.current.id
    }
    remember(id, opened)
    return opened
  })

  return SessionSeal.of({ seal, reseal, open })
})

/**
 * The service as a layer. Needs `Aead` and `SecureRandom`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<SessionSeal, never, Aead.Aead | SecureRandom.SecureRandom> => Layer.effect(SessionSeal, make(options))

/**
 * Whether a header value looks like a sealed id (its prefix), without opening it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isSealed = (id: string): boolean => id.startsWith(`${PREFIX}.`)
