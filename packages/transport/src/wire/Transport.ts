/**
 * The message-level transport contract: what a session needs from a pipe to an MCP server.
 *
 * A transport moves whole JSON-RPC messages and reports its own end. It knows nothing of ids beyond routing
 * (HTTP answers a request on the request's own exchange), nothing of deadlines and nothing of the handshake: the
 * session owns those (it only tells the wire the handshake's outcome, `established`, and hands it the handshake's
 * last message, `initialized`, to wait until the wire has settled after it). Everything on the per-message path is
 * synchronous on purpose: `send` only queues, and the transport calls its `Receiver` from its own fibers, so the
 * session's hot path (stdio) pays no Effect step per message.
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import type { HttpError } from "../HttpError.ts"
import type { ClientClosed, MessageTooLarge, ProcessExited, ProtocolError } from "../McpError.ts"

/**
 * Which wire a transport speaks.
 *
 * @since 0.2.0
 * @category models
 */
export type Kind = "stdio" | "http" | "sse"

/**
 * One outbound JSON-RPC message, already encoded (a newline-terminated JSON text).
 *
 * @since 0.2.0
 * @category models
 */
export type Frame =
  | {
    readonly _tag: "Request"
    readonly id: number
    readonly method: string
    readonly text: string
    /** Headers of this request over HTTP (the modern era's `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`…). */
    readonly headers?: Readonly<Record<string, string>> | undefined
  }
  | Notification
  | { readonly _tag: "Response"; readonly text: string }

/**
 * One outbound notification, already encoded.
 *
 * @since 0.4.0
 * @category models
 */
export interface Notification {
  readonly _tag: "Notification"
  readonly method: string
  readonly text: string
}

/**
 * Why a transport failed one request without an answer from the server.
 *
 * @since 0.2.0
 * @category models
 */
export type RequestFailure = HttpError | MessageTooLarge | ProtocolError

/**
 * What the session hands the transport: where inbound messages and per-request failures go. Called from the
 * transport's fibers, synchronously; none of these may block.
 *
 * @since 0.2.0
 * @category models
 */
export interface Receiver {
  /** One inbound JSON-RPC message, as its JSON text. */
  readonly message: (text: string) => void
  /** The transport gave up on request `id` (HTTP error, stream lost, body too large). */
  readonly failRequest: (id: number, error: RequestFailure) => void
  /** Whether request `id` still waits for an answer (so a stream that ended without it is resumed). */
  readonly isPending: (id: number) => boolean
  /** The method of request `id` while it still waits (for an error about it); `undefined` once it does not. */
  readonly pendingMethod: (id: number) => string | undefined
  /** Milliseconds until request `id`'s deadline (`Infinity`: none); `undefined` once it no longer waits. */
  readonly timeLeft: (id: number) => number | undefined
  /**
   * The server forgot the session (HTTP only): the session fails what is in flight and initializes again (at once,
   * or on a backoff when the lost session was made by a renewal and `confirmed` is false: no request had succeeded on
   * it).
   */
  readonly sessionLost: (confirmed: boolean) => void
  /**
   * Request `id` waits for authorization (a token request, the user's browser): its deadline is held until `sent`.
   * A transport without authorization never calls it (nor `sent`): the deadline runs from when the request was queued.
   */
  readonly authorizing: (id: number) => void
  /**
   * Request `id` has just gone on the wire with its credentials: its deadline starts again from now, so that it
   * measures the server's silence and not the OAuth flow.
   */
  readonly sent: (id: number) => void
  /** Something the server sent was skipped; logged as a warning by the session. */
  readonly diagnose: (text: string) => void
  /**
   * The session's excerpt of server text for an error or a diagnostic: its secrets (the `Redacted` values the
   * session knows) replaced first, then on one line and cut after `max` characters (160 by default), a secret's
   * prefix left against the cut replaced too. A transport cuts server text with it, never by itself.
   */
  readonly excerpt: (text: string, max?: number) => string
  /**
   * The transport ended by itself (what `Transport.ended` then completes with). Calling it is optional; a transport
   * that does (stdio) has the session refuse new calls and fail pending ones in the same synchronous step, rather
   * than after the session's fiber has seen `ended`.
   */
  readonly ended: (ended: Ended) => void
}

/**
 * How the protocol era the handshake agreed on uses the wire: the session's era says it (`established`), so the
 * wire never compares protocol versions itself.
 *
 * @since 0.4.0
 * @category models
 */
export interface Conduct {
  /**
   * A response stream that drops before its answer is resumed (`GET` + `Last-Event-ID`; the legacy era). Else the
   * request fails with `StreamEnded` and the session sends it again (2026-07-28 has no resumption).
   */
  readonly resumesStreams: boolean
  /** A request is cancelled by closing its stream, not by `notifications/cancelled` (2026-07-28 over HTTP). */
  readonly cancelsByAbort: boolean
}

/**
 * How a transport ended by itself (not by `close`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Ended {
  readonly reason: string
  /**
   * What calls fail with now, when the transport knows better than "closed" (stdio: `ProcessExited` with the exit
   * code, signal and stderr tail). Absent: `ClientClosed` with `reason`.
   */
  readonly error?: ProcessExited | ClientClosed | undefined
}

/**
 * A live transport: what every wire does. Built by each transport's `make` in a `Scope`; closing that scope ends it
 * too. What only one wire has is that wire's own API (`Stdio.StdioTransport`: the pid, the stderr tail, `kill`, the
 * pipe's `write`; `StreamableHttp.StreamableHttp`: the session id, the server's stream, the authorization context).
 *
 * @since 0.2.0
 * @category models
 */
export interface Transport {
  readonly kind: Kind
  /** Queues one message. Never blocks and never fails: a request that cannot go out fails through the receiver. */
  readonly send: (frame: Frame) => void
  /** The session stopped waiting for request `id` (deadline, interruption): its HTTP exchange is aborted. */
  readonly abandon: (id: number) => void
  /**
   * The handshake is done with this protocol version (sent as `MCP-Protocol-Version` from now on), and the era
   * uses the wire as `conduct` says.
   */
  readonly established: (protocolVersion: string, conduct: Conduct) => void
  /**
   * Sends the handshake's last message (`notifications/initialized`, which the legacy era sends) and completes once
   * the wire is settled after it, so that no request of the session's caller overtakes what the wire opens then. At
   * once on stdio and legacy HTTP+SSE (the message is queued, in order); on Streamable HTTP once the notification's
   * POST is answered and, when the server accepted it, the server's own stream (the GET) has its first answer: open
   * (200), or refused (405, or another status: what the server sends unprompted does not arrive then). Never fails;
   * the session bounds the wait (a GET that never answers).
   */
  readonly initialized: (frame: Notification) => Effect.Effect<void>
  /** Completes when the transport can no longer carry messages by itself (never before `close` for plain HTTP). */
  readonly ended: Effect.Effect<Ended>
  /** Ends the transport, bounded: aborts every exchange and stream and ends the session (`DELETE`) if any. */
  readonly close: Effect.Effect<void>
}
