/**
 * Picking a server's era, then running that era's handshake (MCP 2026-07-28 `basic/versioning`, §Backward
 * Compatibility): a dual-era client sends `server/discover` first, with the preferred modern version in `_meta`.
 *
 * - A `DiscoverResult` means modern: the newest version both sides list is chosen.
 * - A modern refusal means modern, with no fallback: `-32022` listing versions → the request again with one both
 *   support (once); `-32021` and `-32020` → typed errors.
 * - Anything else — any other error code, any HTTP refusal, a result that is no `DiscoverResult`, or no answer
 *   within the probe's short deadline — means legacy: `initialize` follows. The fallback is keyed to no error code.
 * - What no handshake can get past is final, in either era: the connection gone (`ClientClosed`, `ProcessExited`),
 *   or an authorization that could not be made (`AuthorizationRequired`: `initialize` would only ask for it again).
 * - A server whose `initialize` is then refused with `-32022` listing a modern version (a modern server that was
 *   slow to answer the probe) is probed again, without the short deadline.
 *
 * One round trip for a legacy server that answers at once (every npm server answers `-32601`): the probe costs no
 * timeout. `protocol` pins the era (or a version): then only that era's handshake runs and its errors are final.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { HeaderMismatch, MissingClientCapability } from "../EraError.ts"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import { ProtocolError, RemoteError, UnsupportedProtocolVersion } from "../McpError.ts"
import type { Era, ProtocolChoice, ServerSession } from "../Protocol.ts"
import { Implementation, MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from "../Protocol.ts"
import * as Initialize from "./Initialize.ts"
import * as Meta from "./Meta.ts"
import * as ModernTasks from "./ModernTasks.ts"

/** The probe's deadline when it is not told otherwise: a legacy server that ignores `server/discover` costs this. */
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000

/** One request of the caller's connection, with the HTTP headers a modern request carries. */
export type Request<E> = (
  method: string,
  params: unknown,
  options: {
    readonly timeoutMs: number
    readonly cancellable: boolean
    readonly headers?: Readonly<Record<string, string>> | undefined
  }
) => Effect.Effect<unknown, E>

/** How to choose, and what the client says. */
export interface Config extends Initialize.ClientDescription {
  readonly protocol: ProtocolChoice
  /** Deadline of the `server/discover` probe under `auto`. */
  readonly probeTimeoutMs: number
  /** The era this endpoint spoke last (HTTP), if known: a legacy one gets `initialize` first. */
  readonly cached: Era | undefined
  /** The headers of a modern request (`MCP-Protocol-Version`, `Mcp-Method`), or `undefined` off HTTP. */
  readonly headers: (method: string, protocolVersion: string) => Readonly<Record<string, string>> | undefined
  readonly logLevel?: string | undefined
}

/** What a modern server says in `server/discover`. */
const DiscoverResult = Schema.StructWithRest(
  Schema.Struct({
    supportedVersions: Schema.Array(Schema.String),
    capabilities: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
    instructions: Schema.optionalKey(Schema.String),
    serverInfo: Schema.optionalKey(Implementation),
    _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
const decodeDiscover = Schema.decodeUnknownExit(DiscoverResult)
const decodeImplementation = Schema.decodeUnknownExit(Implementation)

/** The versions a `-32022` error lists (`data.supported`), or `undefined` when it is no such error. */
export const versionsRefused = (error: unknown): ReadonlyArray<string> | undefined => {
  if (!(error instanceof RemoteError) || error.code !== -32022) return undefined
  const data = error.data
  if (typeof data !== "object" || data === null || !("supported" in data) || !Array.isArray(data.supported)) {
    return undefined
  }
  return data.supported.filter((v: unknown): v is string => typeof v === "string")
}

/** Why the probe says "not modern": the outcome that sends an `auto` client to `initialize`. */
class NotModern {
  readonly _tag = "NotModern"
  readonly why: unknown
  constructor(why: unknown) {
    this.why = why
  }
}

/**
 * No fallback can help: the connection itself is gone, or the server wants an authorization that could not be made
 * (`initialize` would only ask for it again: a second browser prompt or token request for one refusal).
 */
const isFinal = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "_tag" in error &&
  (error._tag === "ClientClosed" || error._tag === "ProcessExited" || error._tag === "AuthorizationRequired")

/** Picks the era and runs its handshake; `initialized` runs with a legacy session before `initialize` returns. */
export const run = <E>(
  request: Request<E>,
  config: Config,
  initialized: (session: ServerSession) => Effect.Effect<void>
): Effect.Effect<
  ServerSession,
  E | ProtocolError | UnsupportedProtocolVersion | MissingClientCapability | HeaderMismatch
> => {
  const { server } = config
  const choice = config.protocol
  const auto = choice === "auto"
  type Failure = E | ProtocolError | UnsupportedProtocolVersion | MissingClientCapability | HeaderMismatch

  const legacy = Initialize.run(request, config, initialized)

  const unsupported = (requested: string, serverSupported: ReadonlyArray<string>) =>
    new UnsupportedProtocolVersion({
      server,
      requested,
      serverSupported: [...serverSupported],
      supported: [...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS]
    })

  /** One `server/discover` at `version`; `retried` once a `-32022` has been answered. */
  const discover = (
    version: string,
    timeoutMs: number,
    retried: boolean
  ): Effect.Effect<ServerSession, Failure | NotModern> =>
    Effect.suspend(() =>
      // As every modern request does, discover declares the tasks extension (`ModernTasks`).
      request("server/discover", {
        _meta: Meta.request(version, { ...config, capabilities: ModernTasks.declare(config.capabilities) })
      }, {
        timeoutMs,
        cancellable: false,
        headers: config.headers("server/discover", version)
      })
    ).pipe(
      Effect.matchEffect({
        onFailure: (error): Effect.Effect<ServerSession, Failure | NotModern> => {
          if (isFinal(error)) return Effect.fail(error)
          const listed = versionsRefused(error)
          if (listed !== undefined) {
            const modern = MODERN_PROTOCOL_VERSIONS.find((v) => listed.includes(v))
            if (modern !== undefined && !retried) return discover(modern, timeoutMs, true)
            if (modern === undefined && auto && SUPPORTED_PROTOCOL_VERSIONS.some((v) => listed.includes(v))) {
              return Effect.fail(new NotModern(error))
            }
            return Effect.fail(unsupported(version, listed))
          }
          if (error instanceof RemoteError && error.code === -32021) {
            return Effect.fail(
              new MissingClientCapability({ server, method: "server/discover", detail: error.remoteMessage })
            )
          }
          if (error instanceof RemoteError && error.code === -32020) {
            return Effect.fail(new HeaderMismatch({ server, method: "server/discover", detail: error.remoteMessage }))
          }
          return Effect.fail(auto ? new NotModern(error) : error)
        },
        onSuccess: (raw): Effect.Effect<ServerSession, Failure | NotModern> => {
          const decoded = decodeDiscover(raw)
          if (Exit.isFailure(decoded)) {
            const invalid = new ProtocolError({
              server,
              method: "server/discover",
              detail: schemaDetail(decoded.cause)
            })
            return Effect.fail(auto ? new NotModern(invalid) : invalid)
          }
          const result = decoded.value
          const picked = MODERN_PROTOCOL_VERSIONS.find((v) => result.supportedVersions.includes(v))
          if (picked === undefined) {
            if (auto && SUPPORTED_PROTOCOL_VERSIONS.some((v) => result.supportedVersions.includes(v))) {
              return Effect.fail(new NotModern(result))
            }
            return Effect.fail(unsupported(version, result.supportedVersions))
          }
          const named = decodeImplementation(result._meta?.[Meta.SERVER_INFO] ?? result.serverInfo)
          return Effect.succeed({
            protocolVersion: picked,
            serverInfo: Exit.isSuccess(named) ? named.value : { name: "unknown", version: "unknown" },
            capabilities: result.capabilities ?? {},
            instructions: result.instructions,
            era: "modern"
          })
        }
      })
    )

  const modernFirst = (timeoutMs: number) => discover(MODERN_PROTOCOL_VERSIONS[0]!, timeoutMs, false)

  /** `initialize`; refused with `-32022` listing a modern version → the server is modern after all. */
  const legacyThenModern: Effect.Effect<ServerSession, Failure> = legacy.pipe(
    Effect.catch((error): Effect.Effect<ServerSession, Failure> => {
      const listed = error instanceof UnsupportedProtocolVersion ? error.serverSupported : undefined
      if (listed === undefined || !MODERN_PROTOCOL_VERSIONS.some((v) => listed.includes(v))) return Effect.fail(error)
      return modernFirst(config.timeoutMs).pipe(
        Effect.catch((again) => again instanceof NotModern ? Effect.fail(error) : Effect.fail(again))
      )
    })
  )

  const withoutNotModern = (
    effect: Effect.Effect<ServerSession, Failure | NotModern>
  ): Effect.Effect<ServerSession, Failure> =>
    Effect.catch(effect, (error) => error instanceof NotModern ? legacyThenModern : Effect.fail(error))

  switch (choice) {
    case "legacy":
    case "2025-11-25":
      return legacy
    case "modern":
    case "2026-07-28":
      return withoutNotModern(discover(
        choice === "modern" ? MODERN_PROTOCOL_VERSIONS[0]! : choice,
        config.timeoutMs,
        false
      ))
    case "auto":
      if (config.cached === "legacy") {
        // A cached legacy endpoint: `initialize` first; if it stops working, the whole probe runs again.
        return legacy.pipe(
          Effect.catch((error): Effect.Effect<ServerSession, Failure> =>
            isFinal(error) ? Effect.fail(error) : withoutNotModern(modernFirst(config.probeTimeoutMs))
          )
        )
      }
      return withoutNotModern(modernFirst(config.probeTimeoutMs))
  }
}
