/**
 * One remote MCP server over HTTP, as a scoped Effect resource: Streamable HTTP, the legacy HTTP+SSE transport,
 * or auto-detection between the two (the spec's algorithm: POST `initialize`; on 400/404/405 without a modern
 * error, GET for an `endpoint` event).
 *
 * `make` returns at once; `initialize` runs in the background, as for stdio. Closing the scope ends the session
 * (`DELETE`, bounded) and aborts every exchange and stream.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Redacted } from "effect"
 * import { RemoteClient } from "@mcp-fleet/transport"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* RemoteClient.make({
 *     url: "https://mcp.example.com/mcp",
 *     headers: { authorization: Redacted.make("Bearer …") }
 *   })
 *   yield* client.awaitReady
 *   return yield* client.listTools()
 * }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici))
 * ```
 *
 * @since 0.2.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as ClientHandlers from "./ClientHandlers.ts"
import { HttpStatusError, InvalidUrl } from "./HttpError.ts"
import * as EraProbe from "./internal/EraProbe.ts"
import * as Url from "./internal/http/Url.ts"
import * as Options from "./McpClientOptions.ts"
import * as McpSession from "./McpSession.ts"
import type { ProtocolChoice } from "./Protocol.ts"
import type * as LegacySseModule from "./transport/LegacySse.ts"

/**
 * What `make` needs to talk to one remote MCP server.
 *
 * @since 0.2.0
 * @category options
 */
export interface RemoteOptions {
  /** The server's MCP endpoint (`http:` or `https:`). */
  readonly url: string
  /** Headers sent on every request (`Authorization: Bearer …`); `Redacted` values never appear in any output. */
  readonly headers?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
  /** `http` (Streamable HTTP), `sse` (legacy HTTP+SSE) or `auto` (try the first, fall back). Default `auto`. */
  readonly transport?: "http" | "sse" | "auto" | undefined
  /** A label for logs and errors. Default: the URL's host. */
  readonly name?: string | undefined
  /** Deadline of each request, `initialize` included. Absent, zero or negative → 30 seconds. */
  readonly requestTimeout?: Duration.Input | undefined
  readonly clientInfo?: { readonly name: string; readonly version: string; readonly title?: string } | undefined
  readonly capabilities?: Readonly<Record<string, unknown>> | undefined
  /** Largest JSON body, and largest single event of a stream, in bytes. Default 4 MiB. */
  readonly maxMessageBytes?: number | undefined
  readonly maxInFlight?: number | undefined
  readonly maxPages?: number | undefined
  readonly notificationBuffer?: number | undefined
  readonly notificationReplay?: number | undefined
  /** Bound of the `DELETE` that ends the session at close. Default 2 seconds. */
  readonly closeTimeout?: Duration.Input | undefined
  /**
   * The protocol era: `auto` (default) sends `server/discover` first and falls back to `initialize`; `legacy`,
   * `modern` or a version pin it. The era found is cached per endpoint for the program's life.
   */
  readonly protocol?: ProtocolChoice | undefined
  /** Deadline of the `server/discover` probe under `auto`. Default 5 seconds. */
  readonly probeTimeout?: Duration.Input | undefined
  /** The log level sent in `_meta` of modern requests. */
  readonly logLevel?: string | undefined
  /**
   * The delays between renewals of sessions the server lost before a request succeeded on them (Streamable HTTP);
   * when the schedule ends, the client fails with `SessionsForgotten`. Default: 250 ms, 500 ms, 1 s.
   */
  readonly sessionRenewal?: Schedule.Schedule<unknown, unknown> | undefined
  /**
   * What answers the server's `roots/list`, `elicitation/create` and `sampling/createMessage`; each one present is
   * declared in `capabilities`. A missing one is taken from the `Roots`, `Elicitation` or `Sampling` service when
   * the program provides it. Default: none (`capabilities: {}`).
   */
  readonly handlers?: ClientHandlers.ClientHandlers | undefined
}

/**
 * A client of one remote server: the session's interface (its `url` is the URL with credentials redacted).
 *
 * @since 0.2.0
 * @category models
 */
export type RemoteClient = McpSession.McpSession

/**
 * A URL as it may be shown: user, password and secret-looking query values (`token`, `key`, `auth`…) replaced by
 * `***`. Accepts a `Redacted` URL (config files keep them so).
 *
 * @since 0.2.0
 * @category formatting
 */
export const redactUrl = (url: string | Redacted.Redacted<string>): string =>
  Url.redact(Redacted.isRedacted(url) ? Redacted.value(url) : url)

const positive = (n: number | undefined, fallback: number): number =>
  n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback

const millisOr = (input: Duration.Input | undefined, fallback: number): number => {
  if (input === undefined) return fallback
  const ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  return Number.isFinite(ms) && ms > 0 ? ms : fallback
}

/**
 * How long the legacy transport waits for its `endpoint` event: the request timeout less a millisecond, or, when
 * auto-detection opens it, what is left of initialize's deadline (`withinMs`) less a tenth of it (at most 100 ms), so
 * that the endpoint's bound always expires first.
 */
const endpointWaitMillis = (requestTimeoutMs: number, withinMs: number | undefined): number => {
  const own = requestTimeoutMs > 1 ? requestTimeoutMs - 1 : requestTimeoutMs
  if (withinMs === undefined || withinMs === Infinity) return own
  return Math.max(0, Math.min(own, withinMs - Math.min(100, Math.max(1, withinMs / 10))))
}

/** The URL, parsed, or why it cannot be used. */
const parseUrl = (server: string, raw: string): Effect.Effect<URL, InvalidUrl> => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Effect.fail(new InvalidUrl({ server, url: Url.redact(raw), reason: "it is not an absolute URL" }))
  }
  return url.protocol === "http:" || url.protocol === "https:"
    ? Effect.succeed(url)
    : Effect.fail(new InvalidUrl({ server, url: Url.redact(url), reason: `${url.protocol} is not http: or https:` }))
}

const hostOf = (raw: string): string => {
  try {
    return new URL(raw).host || raw
  } catch {
    return "remote"
  }
}

/**
 * Opens a session with a remote server and returns its client at once; `initialize` continues in the background.
 *
 * Needs the `HttpClient` service (apps provide `NodeHttpClient.layerUndici` from `@effect/platform-node`) and a
 * `Scope`: closing it ends the session.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  options: RemoteOptions
): Effect.Effect<RemoteClient, InvalidUrl, Scope.Scope | HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const server = options.name ?? hostOf(options.url)
    const given = yield* parseUrl(server, options.url)
    const url = new URL(given)
    url.username = ""
    url.password = ""
    // Credentials in the URL become Basic authentication (as curl and browsers do), unless a header already says.
    const basic = given.username !== "" || given.password !== ""
      ? `Basic ${btoa(`${decodeURIComponent(given.username)}:${decodeURIComponent(given.password)}`)}`
      : undefined
    const named = Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === "authorization")
    const headers: Readonly<Record<string, string | Redacted.Redacted<string>>> = basic !== undefined && !named
      ? { ...options.headers, authorization: Redacted.make(basic) }
      : options.headers ?? {}
    const requestTimeoutMs = Options.requestTimeoutMillis(options.requestTimeout)
    const maxMessageBytes = positive(options.maxMessageBytes, 4 * 1024 * 1024)
    const secrets: Array<string> = []
    for (const value of Object.values(headers)) {
      if (!Redacted.isRedacted(value)) continue
      const text = Redacted.value(value)
      secrets.push(text)
      const bearer = /^\s*\S+\s+(\S+)\s*$/.exec(text)
      if (bearer !== null) secrets.push(bearer[1]!)
    }
    if (given.password !== "") secrets.push(decodeURIComponent(given.password))
    const mode = options.transport ?? "auto"
    // The HTTP wires (and `effect/http`, SSE parsing, `@mcp-fleet/auth` behind them) load on the first remote
    // session, not at import: a stdio-only program never loads them.
    const [LegacySse, StreamableHttp] = yield* Effect.promise(() =>
      Promise.all([import("./transport/LegacySse.ts"), import("./transport/StreamableHttp.ts")])
    )
    const legacy = (
      receiver: Parameters<typeof LegacySseModule.make>[1],
      refused?: HttpStatusError,
      withinMs?: number
    ) =>
      LegacySse.make({
        server,
        url,
        headers,
        maxMessageBytes,
        // The endpoint's bound expires before the first request's own deadline, so a server that never names its
        // endpoint is reported as that (ConnectionFailed), not as a RequestTimeout of whichever request happened to
        // be queued. Opened at once (transport: "sse"), both bounds are the request timeout: a millisecond apart
        // (two equal timers raced under load). Opened by auto-detection, initialize has already spent the time of
        // its refused POST: the bound is what is left of its deadline, less a margin.
        connectTimeoutMs: endpointWaitMillis(requestTimeoutMs, withinMs),
        notifyTimeoutMs: requestTimeoutMs,
        // Auto-detection: a failed fallback reports the modern refusal first, then why the fallback failed.
        connectFailure: refused === undefined ? undefined : (method, error) =>
          new HttpStatusError({
            server,
            method,
            status: refused.status,
            ...(refused.wwwAuthenticate !== undefined ? { wwwAuthenticate: refused.wwwAuthenticate } : {}),
            ...(refused.retryAfter !== undefined ? { retryAfter: refused.retryAfter } : {}),
            detail: `${refused.detail}; the legacy HTTP+SSE fallback failed too: ${error.message}`
          })
      }, receiver)
    return yield* McpSession.make({
      server,
      requestTimeoutMs,
      initializeTimeoutMs: requestTimeoutMs,
      clientInfo: options.clientInfo ?? { name: "mcp-fleet", version: "0.1.0" },
      capabilities: options.capabilities ?? {},
      maxInFlight: positive(options.maxInFlight, 1024),
      maxPages: positive(options.maxPages, 20),
      notificationBuffer: positive(options.notificationBuffer, 256),
      notificationReplay: options.notificationReplay !== undefined && options.notificationReplay >= 0
        ? Math.floor(options.notificationReplay)
        : 32,
      secrets,
      url: Url.redact(given),
      // Legacy HTTP+SSE (2024-11-05) has no modern era to probe for.
      protocol: options.protocol ?? (mode === "sse" ? "legacy" : "auto"),
      probeTimeoutMs: millisOr(options.probeTimeout, EraProbe.DEFAULT_PROBE_TIMEOUT_MS),
      eraKey: url.href,
      logLevel: options.logLevel,
      sessionRenewal: options.sessionRenewal,
      handlers: yield* ClientHandlers.fromContext(options.handlers)
    }, (receiver) =>
      mode === "sse" ? legacy(receiver) : StreamableHttp.make({
        server,
        url,
        headers,
        maxMessageBytes,
        notifyTimeoutMs: requestTimeoutMs,
        closeTimeoutMs: millisOr(options.closeTimeout, 2_000),
        maxResumeAttempts: 5,
        legacy: mode === "auto" ? legacy : undefined
      }, receiver))
  })
