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
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as ClientHandlers from "./ClientHandlers.ts"
import type { InvalidUrl } from "./HttpError.ts"
import { HttpStatusError } from "./HttpError.ts"
import * as Options from "./McpClientOptions.ts"
import * as McpSession from "./McpSession.ts"
import type * as LegacySseModule from "./transport/LegacySse.ts"

/**
 * What `make` needs to talk to one remote MCP server (see `McpClientOptions.RemoteOptions`).
 *
 * @since 0.2.0
 * @category options
 */
export type RemoteOptions = Options.RemoteOptions

/**
 * A client of one remote server: the session's interface (its `url` is the URL with credentials redacted).
 *
 * @since 0.2.0
 * @category models
 */
export type RemoteClient = McpSession.McpSession

/**
 * A URL as it may be shown (see `McpClientOptions.redactUrl`).
 *
 * @since 0.2.0
 * @category formatting
 */
export const redactUrl: (url: string | Redacted.Redacted<string>) => string = Options.redactUrl

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
    const opts = yield* Options.resolveRemote(options)
    const { headers, maxMessageBytes, mode, requestTimeoutMs, url } = opts
    const server = opts.name
    // The HTTP wires (and `effect/http`, SSE parsing, `@mcp-fleet/auth` behind them) load on the first remote
    // session, not at import: a stdio-only program never loads them.
    const [LegacySse, StreamableHttp] = yield* Effect.promise(() =>
      Promise.all([import("./transport/LegacySse.ts"), import("./transport/StreamableHttp.ts")])
    )
    const legacy = (receiver: Parameters<typeof LegacySseModule.make>[1], refused?: HttpStatusError) =>
      LegacySse.make({
        server,
        url,
        headers,
        maxMessageBytes,
        // The endpoint's bound expires a millisecond before the first request's own deadline (both are the request
        // timeout), so a server that never names its endpoint is reported as that (ConnectionFailed), not as a
        // RequestTimeout of whichever request happened to be queued: two equal timers raced under load.
        connectTimeoutMs: requestTimeoutMs > 1 ? requestTimeoutMs - 1 : requestTimeoutMs,
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
      clientInfo: opts.clientInfo,
      capabilities: opts.capabilities,
      maxInFlight: opts.maxInFlight,
      maxPages: opts.maxPages,
      notificationBuffer: opts.notificationBuffer,
      notificationReplay: opts.notificationReplay,
      secrets: opts.secrets,
      url: opts.shownUrl,
      protocol: opts.protocol,
      probeTimeoutMs: opts.probeTimeoutMs,
      eraKey: url.href,
      logLevel: opts.logLevel,
      handlers: yield* ClientHandlers.fromContext(options.handlers)
    }, (receiver) =>
      mode === "sse" ? legacy(receiver) : StreamableHttp.make({
        server,
        url,
        headers,
        maxMessageBytes,
        notifyTimeoutMs: requestTimeoutMs,
        closeTimeoutMs: opts.closeTimeoutMs,
        maxResumeAttempts: 5,
        legacy: mode === "auto" ? legacy : undefined
      }, receiver))
  })
