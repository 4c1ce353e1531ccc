/**
 * A session's handshake: the era probe (`server/discover`, else `initialize`; `EraProbe`), run once at the start
 * and again each time an HTTP server forgets the session. Its outcome moves readiness: `Ready` with the era it
 * chose (`Era.of`: every request, list and listen from then on goes the era's way), or `Failed`, which ends the
 * session.
 *
 * A session loss fails what is in flight with the retryable `SessionExpired`, moves readiness to `Renewing` (calls
 * made meanwhile wait for it) and runs the handshake again.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import { SessionExpired } from "../HttpError.ts"
import type { PendingTable, RequestOptions } from "../internal/PendingTable.ts"
import type { InitializeError, RequestError } from "../McpError.ts"
import { LATEST_PROTOCOL_VERSION } from "../Protocol.ts"
import * as ModernHeaders from "../wire/http/ModernHeaders.ts"
import type * as Settings from "./Config.ts"
import * as Era from "./Era.ts"
import { EraCache } from "./EraCache.ts"
import * as EraProbe from "./EraProbe.ts"
import type { Link } from "./Link.ts"
import type * as Readiness from "./Readiness.ts"
import * as Scrub from "./Scrub.ts"
import * as SessionRenewal from "./SessionRenewal.ts"

/** What the handshake needs of its session. */
export interface Config {
  /** The session's settings: its name, client info, deadlines, protocol choice, era key and log level. */
  readonly settings: Settings.Config
  /** The capabilities declared (the handlers provided add theirs). */
  readonly capabilities: Readonly<Record<string, unknown>>
  /** The session's request path (traced when telemetry is on). */
  readonly send: (method: string, params: unknown, options: RequestOptions) => Effect.Effect<unknown, RequestError>
  readonly link: Link
  readonly readiness: Readiness.Cell
  readonly eraParts: Era.Parts
  readonly scrub: (text: string) => string
  readonly pending: PendingTable
  readonly diagnose: (text: string) => void
  /** Runs a fiber of the session. */
  readonly run: (effect: Effect.Effect<void>) => Fiber.Fiber<void>
  /** The handshake failed for good: ends the session (`reason` says why), in the background. */
  readonly failed: (reason: string) => Effect.Effect<void>
}

/** The handshake of one session. */
export interface Handshake {
  /** Starts the first handshake, in a fiber of the session. */
  readonly start: () => void
  /**
   * The server forgot the session: fail what is in flight and renew it (at once, or on a backoff when the lost
   * session was made by a renewal and no request had succeeded on it: `confirmed` false; see `SessionRenewal`).
   */
  readonly lost: (confirmed: boolean) => void
  /** The era the last handshake chose; before the first, requests (`ping`) go as they are. */
  readonly era: () => Era.Era
  /** Whether no handshake is running. */
  readonly idle: () => boolean
  /** How often the server forgot the session. */
  readonly sessionsLost: () => number
}

const INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"

/** Builds the handshake of a session. */
export const make = Effect.fnUntraced(function*(config: Config) {
  const { link, readiness, settings } = config
  const { eraKey, server } = settings
  const eraCache = yield* EraCache
  let era: Era.Era = Era.legacy(config.eraParts, LATEST_PROTOCOL_VERSION)
  let fiber: Fiber.Fiber<void> | undefined
  let sessionsLost = 0

  const probe = EraProbe.run(config.send, {
    server,
    clientInfo: settings.clientInfo,
    capabilities: config.capabilities,
    timeoutMs: settings.initializeTimeoutMs,
    protocol: settings.protocol ?? "auto",
    probeTimeoutMs: Math.min(
      settings.probeTimeoutMs ?? EraProbe.DEFAULT_PROBE_TIMEOUT_MS,
      settings.initializeTimeoutMs
    ),
    cached: eraKey === undefined ? undefined : eraCache.get(eraKey),
    headers: (method, version) =>
      link.isHttp() ? ModernHeaders.forRequest(method, undefined, version, undefined) : undefined,
    logLevel: settings.logLevel
  }, (session) => {
    // A legacy session: the wire learns its version before `notifications/initialized` goes out.
    link.established(session.protocolVersion, Era.legacyConduct)
    link.send({ _tag: "Notification", method: "notifications/initialized", text: INITIALIZED })
  })

  const renewal = SessionRenewal.make(server, settings.sessionRenewal ?? SessionRenewal.DEFAULT_SCHEDULE)
  /** The handshake, after `before` (a renewal's wait, which may give up with `SessionsForgotten`). */
  const handshake = (before: Effect.Effect<void, InitializeError>): Effect.Effect<void> =>
    Effect.andThen(before, probe).pipe(
      Effect.matchEffect({
        onSuccess: (session) =>
          Effect.sync(() => {
            // The era, chosen once per handshake: it says how requests go and lists end from now on.
            era = Era.of(session, config.eraParts)
            link.established(session.protocolVersion, era.conduct)
            if (eraKey !== undefined) eraCache.set(eraKey, era.name)
            const instructions = session.instructions === undefined ? undefined : config.scrub(session.instructions)
            readiness.move({ _tag: "Initialized", session: { ...session, instructions } })
          }),
        onFailure: (raw: InitializeError) =>
          Effect.suspend(() => {
            const error = Scrub.initializeFailure(config.scrub, raw)
            // A failed handshake (first or renewed) is terminal: the session ends, with `Failed` kept as why. One
            // move, so whoever sees `awaitReady` fail also sees `isAlive()` false.
            if (!readiness.move({ _tag: "InitializeFailed", error })) return Effect.void
            return config.failed(`its initialize failed (${error._tag})`)
          })
      })
    )

  return {
    start: () => {
      fiber = config.run(handshake(Effect.void))
    },
    lost: (confirmed) => {
      sessionsLost++
      if (!readiness.move({ _tag: "SessionLost", done: Deferred.makeUnsafe() })) return
      config.pending.failAll((entry) => new SessionExpired({ server, method: entry.method }))
      config.diagnose("the server ended the session; initializing a new one")
      fiber = config.run(handshake(renewal.before(confirmed)))
    },
    era: () => era,
    idle: () => fiber === undefined || fiber.pollUnsafe() !== undefined,
    sessionsLost: () => sessionsLost
  } satisfies Handshake
})
