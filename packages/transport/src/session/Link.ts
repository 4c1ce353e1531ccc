/**
 * A session's one way to its wire. The wire opens with the session's `Receiver`, whose targets (the pending table,
 * the dispatcher, the handshake, the shutdown) must exist first; they reach the wire through the link, connected
 * once when the wire is open. Nothing goes out before that: the handshake, the first sender, starts after it.
 *
 * The link also keeps what the session told the wire (the negotiated protocol version, for tracing), and the
 * per-request fast path of a pipe that carries every message as it is (stdio's `write`: no `Frame` per call).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Outlet } from "../internal/PendingTable.ts"
import type { ClientClosed, ProcessExited } from "../McpError.ts"
import type { Conduct, Frame, Kind, Notification, Transport } from "../wire/Transport.ts"

/**
 * A wire as the session sees it: the `Transport` every wire is, and what some wires have of their own (declared on
 * their own types, `Stdio.StdioTransport` and `StreamableHttp.StreamableHttp`), which the session uses when it is
 * there: stdio's `write` (the per-request fast path), `kill`, `refusal` and log `annotations`; Streamable HTTP's
 * `sessionId`, `serverStream` and `authorizationContext`.
 */
export interface Wire extends Transport {
  readonly write?: ((text: string) => void) | undefined
  readonly kill?: Effect.Effect<void> | undefined
  readonly refusal?: (() => ProcessExited | ClientClosed | undefined) | undefined
  readonly annotations?: Readonly<Record<string, unknown>> | undefined
  readonly sessionId?: (() => string | undefined) | undefined
  readonly serverStream?: (() => string | undefined) | undefined
  readonly authorizationContext?: Effect.Effect<number> | undefined
}

/** The link of one session. */
export interface Link {
  /** Connects the wire (once). */
  readonly connect: (wire: Wire) => void
  /** Where the pending table sends requests, frames and abandons. */
  readonly outlet: Outlet
  readonly send: (frame: Frame) => void
  /** The wire's kind; `http` until connected (only tracing reads it then). */
  readonly kind: () => Kind
  readonly isHttp: () => boolean
  /** Why the wire takes no request any more, before it has ended (stdio: the process has exited). */
  readonly refusal: () => ProcessExited | ClientClosed | undefined
  /** The server's session id (`Mcp-Session-Id`), for tracing. */
  readonly sessionId: () => string | undefined
  /** Why the server's own stream (Streamable HTTP's GET) is not open, once the wire stopped opening it. */
  readonly serverStream: () => string | undefined
  /** The wire's authorization context (changes with the credentials it sends); `0` for a wire without one. */
  readonly authorizationContext: Effect.Effect<number>
  /** Tells the wire the negotiated version and how the era uses it (`Conduct`), and keeps the version. */
  readonly established: (protocolVersion: string, conduct: Conduct) => void
  /** Sends the handshake's last message and completes once the wire is settled after it (`Transport.initialized`). */
  readonly initialized: (frame: Notification) => Effect.Effect<void>
  /** The last negotiated version, for tracing. */
  readonly protocolVersion: () => string | undefined
  /** Ends the wire: bounded (`close`), or at once (`force`: the wire's `kill`, else its `close`). */
  readonly end: (mode: "close" | "force") => Effect.Effect<void>
  /** The wire's own `kill` (stdio: SIGKILL to the process group), when it has one. */
  readonly kill: () => Effect.Effect<void> | undefined
  /** Log annotations of the session's lines about this wire (stdio: the pid). */
  readonly annotations: () => Readonly<Record<string, unknown>>
}

/** A link not yet connected. */
export const make = (): Link => {
  let wire: Wire | undefined
  let version: string | undefined
  let request: Outlet["request"] = (id, method, text, headers) =>
    wire?.send({ _tag: "Request", id, method, text, headers })
  return {
    connect: (connected) => {
      wire = connected
      const write = connected.write
      if (write !== undefined) request = (_id, _method, text) => write(text)
    },
    outlet: {
      request: (id, method, text, headers) => request(id, method, text, headers),
      send: (frame) => wire?.send(frame),
      abandon: (id) => wire?.abandon(id)
    },
    send: (frame) => wire?.send(frame),
    kind: () => wire?.kind ?? "http",
    isHttp: () => wire?.kind === "http",
    refusal: () => wire?.refusal?.(),
    sessionId: () => wire?.sessionId?.(),
    serverStream: () => wire?.serverStream?.(),
    authorizationContext: Effect.suspend(() => wire?.authorizationContext ?? Effect.succeed(0)),
    established: (protocolVersion, conduct) => {
      version = protocolVersion
      wire?.established(protocolVersion, conduct)
    },
    initialized: (frame) => Effect.suspend(() => wire === undefined ? Effect.void : wire.initialized(frame)),
    protocolVersion: () => version,
    end: (mode) =>
      Effect.suspend(() => {
        if (wire === undefined) return Effect.void
        return mode === "force" && wire.kill !== undefined ? wire.kill : wire.close
      }),
    kill: () => wire?.kill,
    annotations: () => wire?.annotations ?? { transport: wire?.kind }
  }
}
