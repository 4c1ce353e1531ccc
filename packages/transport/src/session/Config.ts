/**
 * A session's settings, resolved (`McpClientOptions.resolve` and `resolveRemote` build them): what `Open.open`
 * needs, whatever the wire.
 *
 * @internal
 */
import type * as Schedule from "effect/Schedule"
import type { ClientHandlers } from "../ClientHandlers.ts"
import type { ProtocolChoice } from "../Protocol.ts"
import type * as Logging from "./Logging.ts"
import type * as Mrtr from "./Mrtr.ts"
import type * as TaskWatch from "./TaskWatch.ts"

/** The session's settings. */
export interface Config {
  readonly server: string
  readonly requestTimeoutMs: number
  /** Deadline of `initialize` (`Infinity`: none; the caller bounds readiness). */
  readonly initializeTimeoutMs: number
  readonly clientInfo: { readonly name: string; readonly version: string; readonly title?: string }
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly maxInFlight: number
  readonly maxPages: number
  readonly notificationBuffer: number
  readonly notificationReplay: number
  /** Secret values (credentials) removed from whatever server text goes into errors and logs. */
  readonly secrets: ReadonlyArray<string>
  /** Secrets learnt while the session runs (the OAuth tokens sent), asked each time server text is scrubbed. */
  readonly moreSecrets?: (() => ReadonlyArray<string>) | undefined
  /** The server's URL, redacted, for remote servers. */
  readonly url?: string | undefined
  /** How the era is chosen (`auto`: `server/discover` first, `initialize` as the fallback). Default `auto`. */
  readonly protocol?: ProtocolChoice | undefined
  /** Deadline of the `server/discover` probe under `auto` (at most `initializeTimeoutMs`). Default 5 seconds. */
  readonly probeTimeoutMs?: number | undefined
  /** The key under which the era is cached for the program's life (a remote endpoint); none: no cache. */
  readonly eraKey?: string | undefined
  /** The log level sent as `_meta["io.modelcontextprotocol/logLevel"]` on modern requests, when set. */
  readonly logLevel?: string | undefined
  /** Answers a modern server's input requests (`input_required`) from the client's handlers. */
  readonly answerInput?: Mrtr.Answer | undefined
  /** Most `input_required` rounds per call. Default 8. */
  readonly maxInputRounds?: number | undefined
  /** Check tool results' `structuredContent` against their tool's `outputSchema` (`OutputSchemas`). Default `true`. */
  readonly validateStructuredContent?: boolean | undefined
  /** What answers the server's requests; their presence adds to the declared `capabilities`. */
  readonly handlers?: ClientHandlers | undefined
  /** How many `notifications/message` entries become log entries (default `Logging.DEFAULT_RATE_LIMIT`). */
  readonly logRateLimit?: Logging.RateLimit | undefined
  /**
   * The delays between renewals of HTTP sessions the server lost before a request succeeded on them; when it ends,
   * the session fails with `SessionsForgotten`. Default `SessionRenewal.DEFAULT_SCHEDULE` (250 ms, 500 ms, 1 s).
   */
  readonly sessionRenewal?: Schedule.Schedule<unknown, unknown> | undefined
  /** How tasks are polled (floor and cap). Default `TaskWatch.DEFAULT_FLOOR_MS` and `TaskWatch.DEFAULT_CAP`. */
  readonly taskPolling?: TaskWatch.Polling | undefined
}
