/**
 * `mcp-fleet serve --redis URL --session-key-file FILE`: what replicas of the gateway share (issue 30), read from
 * the flags into the services `McpGateway.layer` uses when they are in context.
 *
 * - `--session-key-file FILE`: 2025-11-25 HTTP sessions are sealed into their `Mcp-Session-Id` (`SessionSeal`), so
 *   that any replica holding the same file serves them. A file that cannot be read, or a line that is not a 32-byte
 *   base64 key, stops `serve` with the line's number (never its content).
 * - `--redis URL`: the upstream tokens, the change bus and the large results live in Redis (`SharedState.layer`).
 *   The URL is `Redacted` from the command line on (it may hold a password); a URL that is not `redis://` or
 *   `rediss://` stops `serve`, and what is printed of it never holds the password. Redis need not be up: `serve`
 *   waits for the first connection attempt (at most 6 s, so that remote servers find their tokens), then starts,
 *   degraded if it failed, and connects on its schedule.
 *
 * Without either flag nothing here is built, and no Redis code loads.
 *
 * @since 0.1.0
 */
import * as TokenStore from "@mcp-fleet/auth/TokenStore"
import { SessionKeys, SessionSeal, SharedState } from "@mcp-fleet/gateway"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Aead from "effect/crypto/Aead"
import * as Digest from "effect/crypto/Digest"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * What the replica shares, built: the services for the gateway (sealing, the shared state) and the token store for
 * upstream OAuth. Both empty without the flags.
 *
 * @since 0.1.0
 * @category models
 */
export interface Shared {
  /** `SessionSeal`, and the Redis side (`SharedState`, `ChangeBus`, `ResultStore`, the relay): those the flags ask for. */
  readonly gateway: Context.Context<never>
  /** The Redis token store, with `--redis`. */
  readonly tokens: TokenStore.TokenStore["Service"] | undefined
  /** One line for the operator: what is shared, without secrets; `undefined` without the flags. */
  readonly describe: string | undefined
  /** The shared state's status, with `--redis`. */
  readonly state: SharedState.SharedState["Service"] | undefined
}

/**
 * Says on stderr when Redis is reached and when it is lost (`mcp-fleet serve: shared state: Redis connected`, `…
 * Redis unreachable (…)`), once per change (not per reconnection attempt), until interrupted.
 *
 * @since 0.1.0
 * @category running
 */
export const announce = (shared: Shared): Effect.Effect<void> => {
  const state = shared.state
  if (state === undefined) return Effect.void
  let last: "up" | "down" | undefined
  return state.changes.pipe(
    Stream.runForEach((status) => {
      const now = status._tag === "Connected" ? "up" : status._tag === "Disconnected" ? "down" : undefined
      if (now === undefined || now === last) return Effect.void
      last = now
      return Console.error(`mcp-fleet serve: ${SharedState.describe(status).line}`)
    })
  )
}

/**
 * A Redis URL as it may be printed: its password replaced.
 *
 * @since 0.1.0
 * @category formatting
 */
export const showUrl = (url: URL): string => {
  const user = url.username === "" && url.password === ""
    ? ""
    : `${url.username}${url.password === "" ? "" : ":<redacted>"}@`
  return `${url.protocol}//${user}${url.host}${url.pathname === "/" ? "" : url.pathname}`
}

/**
 * The `--redis` URL, checked, or why it cannot be used (never quoting a password).
 *
 * @since 0.1.0
 * @category parsing
 */
export const checkRedisUrl = (url: Redacted.Redacted<string>): URL | string => {
  const text = Redacted.value(url).trim()
  const parsed = URL.canParse(text) ? new URL(text) : undefined
  if (parsed === undefined) return "--redis needs a URL such as redis://127.0.0.1:6379 (what was given is not a URL)"
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    return `--redis needs a redis:// or rediss:// URL, such as redis://127.0.0.1:6379 (got ${parsed.protocol}//…)`
  }
  if (parsed.hostname === "") return `--redis ${showUrl(parsed)} names no host`
  return parsed
}

/** How long `serve` waits for its first connection to Redis before it starts its servers anyway. */
const FIRST_ATTEMPT = "6 seconds"

/** Reads and parses the key file; fails with the reason, naming the file and the line, never a key. */
const readKeys = (path: string): Effect.Effect<SessionKeys.SessionKeys, string, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((error) => {
        const tag = error.reason._tag
        const why = tag === "NotFound"
          ? "it does not exist"
          : tag === "PermissionDenied"
          ? "permission denied"
          : error.reason.message
        return `--session-key-file ${path} cannot be read: ${why}`
      })
    )
    return yield* SessionKeys.parse(Redacted.make(text)).pipe(
      Effect.mapError((error) => `--session-key-file ${path}: ${error.message}`),
      Effect.provide(Digest.layerWebCrypto)
    )
  })

/**
 * Builds what the flags ask for in the current scope. Fails with a one-sentence reason for a bad URL or key file.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (flags: {
  readonly redis: Redacted.Redacted<string> | undefined
  readonly sessionKeyFile: string | undefined
}): Effect.Effect<Shared, string, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    const parts: Array<string> = []
    let gateway = Context.empty()
    let tokens: TokenStore.TokenStore["Service"] | undefined
    let state: SharedState.SharedState["Service"] | undefined
    const url = flags.redis === undefined ? undefined : checkRedisUrl(flags.redis)
    if (typeof url === "string") return yield* Effect.fail(url)
    if (flags.sessionKeyFile !== undefined) {
      const keys = yield* readKeys(flags.sessionKeyFile)
      const seal = yield* SessionSeal.make({ keys }).pipe(
        Effect.provide(Aead.layerWebCrypto.pipe(Layer.provideMerge(SecureRandom.layerWebCrypto)))
      )
      gateway = Context.add(gateway, SessionSeal.SessionSeal, seal)
      parts.push(`2025-11-25 sessions sealed (key ${keys.current.id}, ${keys.byId.size} key(s) open them)`)
    }
    if (url !== undefined && flags.redis !== undefined) {
      const built = yield* Layer.build(
        SharedState.layer({ redis: { url: flags.redis }, tokens: TokenStore.layerMemory }).pipe(
          Layer.provide(SecureRandom.layerWebCrypto)
        )
      )
      tokens = Context.get(built, TokenStore.TokenStore)
      state = Context.get(built, SharedState.SharedState)
      // The first connection attempt is waited for (at most its own deadline): remote servers start right after, and
      // their tokens are read from Redis; a replica whose Redis is down goes on degraded once the attempt fails.
      yield* state.changes.pipe(
        Stream.filter((status) => status._tag === "Connected" || status._tag === "Disconnected"),
        Stream.runHead,
        Effect.timeout(FIRST_ATTEMPT),
        Effect.ignore
      )
      // All of it: the shared state, the bus and the result store, and the relay of hosts' answers between replicas.
      gateway = Context.merge(gateway, built)
      parts.push(`tokens, list changes and large results shared in Redis at ${showUrl(url)}`)
    }
    return { gateway, tokens, state, describe: parts.length === 0 ? undefined : parts.join("; ") }
  })
