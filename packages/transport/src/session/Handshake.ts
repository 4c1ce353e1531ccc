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
import type { Notification } from "../wire/Transport.ts"
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

const INITIALIZED: Notification = {
  _tag: "Notification",
  method: "notifications/initialized",
  text: "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
}

/** The bound of the wait for the wire to settle after the handshake when neither deadline is finite. */
const SETTLE_FALLBACK_MS = 30_000

/** Builds the handshake of a session. */
export const make = Effect.fnUntraced(function*(config: Config) {
  const { link, readiness, settings } = config
  const { eraKey, server } = settings
  const eraCache = yield* EraCache
  let era: Era.Era = Era.legacy(config.eraParts, LATEST_PROTOCOL_VERSION)
  let fiber: Fiber.Fiber<void> | undefined
  let sessionsLost = 0
  /** How long a handshake waits for the wire to settle: the notification's deadline, within initialize's. */
  const settleBound = Math.min(settings.requestTimeoutMs, settings.initializeTimeoutMs)
  const settleWithinMs = Number.isFinite(settleBound) ? settleBound : SETTLE_FALLBACK_MS

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
  }, (session) =>
    Effect.suspend(() => {
      // A legacy session: the wire learns its version before `notifications/initialized` goes out, and the session
      // is ready only once the wire has settled after it (Streamable HTTP: the notification accepted and the GET
      // stream answered), so that no request of the caller goes before it, nor before the server's own stream.
      link.established(session.protocolVersion, Era.legacyConduct)
      return link.initialized(INITIALIZED).pipe(
        Effect.timeoutOption(settleWithinMs),
        Effect.flatMap((settled) =>
          settled._tag === "Some" ? Effect.void : Effect.sync(() =>
            config.diagnose(
              `the wire did not settle within ${settleWithinMs} ms of notifications/initialized (the server's own ` +
                "stream did not answer); ready without it: what the server sends unprompted may be lost until it opens"
            )
          )
        )
      )
    }))

  const renewal = SessionRenewal.make(server, settings.sessionRenewal ?? SessionRenewal.DEFAULT_SCHEDULE)
  /** Whether a handshake runs: a session loss reported meanwhile waits for its end. */
  let running = false
  /**
   * A session loss the wire reported while a handshake ran (the server refused its `notifications/initialized` as
   * a session it does not know): renewed once that handshake has made the session ready.
   */
  let lostMeanwhile: boolean | undefined

  /** Fails what is in flight and runs the handshake again. */
  const renew = (confirmed: boolean) => {
    if (!readiness.move({ _tag: "SessionLost", done: Deferred.makeUnsafe() })) return
    config.pending.failAll((entry) => new SessionExpired({ server, method: entry.method }))
    config.diagnose("the server ended the session; initializing a new one")
    begin(renewal.before(confirmed))
  }

  /** Runs a handshake in a fiber of the session. */
  const begin = (before: Effect.Effect<void, InitializeError>) => {
    running = true
    fiber = config.run(handshake(before))
  }

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
            running = false
            const meanwhile = lostMeanwhile
            lostMeanwhile = undefined
            if (meanwhile !== undefined) renew(meanwhile)
          }),
        onFailure: (raw: InitializeError) =>
          Effect.suspend(() => {
            running = false
            lostMeanwhile = undefined
            const error = Scrub.initializeFailure(config.scrub, raw)
            // A failed handshake (first or renewed) is terminal: the session ends, with `Failed` kept as why. One
            // move, so whoever sees `awaitReady` fail also sees `isAlive()` false.
            if (!readiness.move({ _tag: "InitializeFailed", error })) return Effect.void
            return config.failed(`its initialize failed (${error._tag})`)
          })
      })
    )

  return {
    start: () => begin(Effect.void),
    lost: (confirmed) => {
      sessionsLost++
      if (running) lostMeanwhile = confirmed
      else renew(confirmed)
    },
    era: () => era,
    idle: () => fiber === undefined || fiber.pollUnsafe() !== undefined,
    sessionsLost: () => sessionsLost
  } satisfies Handshake
})
