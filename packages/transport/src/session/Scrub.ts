/**
 * Rebuilds a transport's failure with its server-derived text passed through the session's `Redactor` (the
 * values of `Redacted` headers, a URL's password): a server that echoes "invalid token <token>" must not leak it.
 *
 * The transports make their excerpts with the same redactor (`Receiver.excerpt`), so what they cut had its
 * secrets replaced first; this is the second pass over every field, whole. A `ConnectionFailed` reason (the HTTP
 * client's own text, uncut) is cut here, after its secrets are replaced.
 *
 * @internal
 */
import { AuthorizationRequired, ConnectionFailed, HttpStatusError, RedirectRefused, StreamEnded } from "../HttpError.ts"
import type { Redactor } from "../internal/Redactor.ts"
import type { InitializeError } from "../McpError.ts"
import { ProtocolError, UnsupportedProtocolVersion } from "../McpError.ts"
import type { RequestFailure } from "../wire/Transport.ts"

/** The same failure with its server-derived text scrubbed. */
export const failure = (redactor: Redactor, error: RequestFailure): RequestFailure => {
  const scrub = redactor.text
  switch (error._tag) {
    case "HttpStatusError":
      return new HttpStatusError({
        server: error.server,
        method: error.method,
        status: error.status,
        detail: scrub(error.detail),
        ...(error.wwwAuthenticate !== undefined ? { wwwAuthenticate: scrub(error.wwwAuthenticate) } : {}),
        ...(error.retryAfter !== undefined ? { retryAfter: scrub(error.retryAfter) } : {})
      })
    case "ProtocolError":
      return new ProtocolError({ server: error.server, method: error.method, detail: scrub(error.detail) })
    case "ConnectionFailed":
      return new ConnectionFailed({ ...fields(error), url: scrub(error.url), reason: redactor.excerpt(error.reason) })
    case "StreamEnded":
      return new StreamEnded({ ...fields(error), reason: scrub(error.reason) })
    case "RedirectRefused":
      return new RedirectRefused({ ...fields(error), location: scrub(error.location) })
    case "AuthorizationRequired":
      return new AuthorizationRequired({
        reason: scrub(error.reason),
        ...(error.server !== undefined ? { server: error.server } : {}),
        ...(error.method !== undefined ? { method: error.method } : {}),
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(error.resource !== undefined ? { resource: error.resource } : {})
      })
    case "SessionExpired":
    case "SessionsForgotten":
    case "MessageTooLarge":
      return error
  }
}

/** A handshake failure with the server's text in it scrubbed (a version string, a Schema error quoting it). */
export const initializeFailure = (scrub: (text: string) => string, error: InitializeError): InitializeError => {
  if (error._tag === "ProtocolError") {
    return new ProtocolError({ server: error.server, method: error.method, detail: scrub(error.detail) })
  }
  if (error._tag === "UnsupportedProtocolVersion" && error.answered !== undefined) {
    return new UnsupportedProtocolVersion({
      server: error.server,
      answered: scrub(error.answered),
      supported: error.supported
    })
  }
  return error
}

const fields = (error: { readonly server: string; readonly method: string }) => ({
  server: error.server,
  method: error.method
})
