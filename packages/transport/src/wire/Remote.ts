/**
 * The wire of a remote server, chosen by `mode`: Streamable HTTP (`http`), legacy HTTP+SSE (`sse`), or
 * auto-detection between them (`auto`: Streamable HTTP, and the legacy wire when its `initialize` is refused).
 * The client loads this module (and the HTTP wires behind it) on its first remote session only.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { HttpStatusError } from "../HttpError.ts"
import * as AutoDetect from "./AutoDetect.ts"
import * as LegacySse from "./LegacySse.ts"
import * as StreamableHttp from "./StreamableHttp.ts"
import type { Receiver, Transport } from "./Transport.ts"

/** What the remote wires need, every default applied (`McpClientOptions.resolveRemote` gives them). */
export interface Options {
  readonly mode: "http" | "sse" | "auto"
  readonly server: string
  readonly url: URL
  readonly headers: Readonly<Record<string, string | Redacted.Redacted<string>>>
  readonly maxMessageBytes: number
  /** The session's request timeout: the bound of a notification's POST and of the legacy endpoint wait. */
  readonly requestTimeoutMs: number
  /** The bound of the `DELETE` that ends a Streamable HTTP session. */
  readonly closeTimeoutMs: number
}

/** A live remote wire: legacy HTTP+SSE, Streamable HTTP, or the auto-detecting one. */
export type Remote = Transport | StreamableHttp.StreamableHttp | AutoDetect.AutoDetect

/**
 * Opens the wire `options.mode` names. Nothing is sent until the session sends `initialize` (the legacy wire starts
 * connecting at once). Needs `HttpClient` and a `Scope` (closing it ends the wire).
 */
export const make = (
  options: Options,
  receiver: Receiver
): Effect.Effect<Remote, never, Scope.Scope | HttpClient.HttpClient> => {
  const { headers, maxMessageBytes, requestTimeoutMs, server, url } = options
  const legacy = (receiver: Receiver, refused?: HttpStatusError, withinMs?: number) =>
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
  if (options.mode === "sse") return legacy(receiver)
  const http = {
    server,
    url,
    headers,
    maxMessageBytes,
    notifyTimeoutMs: requestTimeoutMs,
    closeTimeoutMs: options.closeTimeoutMs,
    maxResumeAttempts: 5
  }
  return options.mode === "http" ? StreamableHttp.make(http, receiver) : AutoDetect.make({ http, legacy }, receiver)
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
