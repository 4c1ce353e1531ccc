/**
 * What a Streamable HTTP transport knows of its session, in one place: the server's `Mcp-Session-Id`, the
 * negotiated version, how the era uses the wire, whether the server is known to hold the session, a generation that
 * a session loss bumps (streams of an older session stop), whether the transport is closed, and the authorization
 * context (the credentials requests last went out with). Every request reads its headers from here.
 *
 * @internal
 */
import type { Conduct } from "../Transport.ts"
import type { ErrorBody } from "./Exchange.ts"

/** Session ids are visible ASCII (MCP 2025-03-26 §Session Management); another is not sent back. */
const SESSION_ID = /^[\x21-\x7e]+$/

/** What a request is, for its headers. */
export type RequestKind = "initialize" | "post" | "get" | "delete"

/** One transport's session state. */
export class HttpSession {
  /** The server's session id, once its initialize answer gave one. */
  id: string | undefined = undefined
  /** The negotiated protocol version (`MCP-Protocol-Version` on every request after the handshake). */
  version: string | undefined = undefined
  /** How the session's era uses the wire (`established`): the legacy era's until the handshake says otherwise. */
  conduct: Conduct = { resumesStreams: true, cancelsByAbort: false }
  /** Bumped on every session loss: streams of an older session stop. */
  generation = 0
  closed = false
  /** A request that carried the current session id was answered with a success: the server knows the session. */
  confirmed = false
  /** Counts changes of the credentials requests go out with (`McpAuth` refreshed or replaced the token). */
  authorizationContext = 0
  private credentials: string | undefined = undefined
  private readonly user: Readonly<Record<string, string>>

  /** `user`: the user's own headers, sent on every request. */
  constructor(user: Readonly<Record<string, string>>) {
    this.user = user
  }

  /** The headers of a request of `kind`: the user's, `Accept`, the session's (not on initialize), `Last-Event-ID`. */
  headers(kind: RequestKind, lastEventId?: string): Record<string, string> {
    const h: Record<string, string> = { ...this.user }
    if (kind === "get") h["accept"] = "text/event-stream"
    else if (kind !== "delete") h["accept"] = "application/json, text/event-stream"
    if (kind !== "initialize") {
      if (this.id !== undefined) h["mcp-session-id"] = this.id
      if (this.version !== undefined) h["mcp-protocol-version"] = this.version
    }
    if (lastEventId !== undefined) h["last-event-id"] = lastEventId
    return h
  }

  /** The initialize answer's `Mcp-Session-Id` header: the session from now on (a malformed one: none). */
  initialized(header: string | undefined): void {
    this.id = header !== undefined && SESSION_ID.test(header) ? header : undefined
    this.confirmed = false
  }

  /** A status that says the session is gone, for a request that carried `sentWith`. */
  isLoss(status: number, body: ErrorBody, sentWith: string | undefined): boolean {
    return sentWith !== undefined && (status === 404 || (status === 400 && /session/i.test(body.text)))
  }

  /**
   * The session `sentWith` is gone: forgets it and says whether the server had known it, or `undefined` when
   * `sentWith` is no longer the session (an older one's loss, already reported) or the transport is closed.
   */
  lose(sentWith: string | undefined): { readonly confirmed: boolean } | undefined {
    if (this.closed || sentWith === undefined || sentWith !== this.id) return undefined
    const confirmed = this.confirmed
    this.id = undefined
    this.version = undefined
    this.confirmed = false
    this.generation++
    return { confirmed }
  }

  /** A request that carried `sentWith` succeeded: if that is still the session, the server knows it. */
  confirm(sentWith: string | undefined): void {
    if (sentWith !== undefined && sentWith === this.id) this.confirmed = true
  }

  /** Requests went out with the credentials `identity`: another one than before is another authorization context. */
  authorized(identity: string): void {
    if (identity === this.credentials) return
    if (this.credentials !== undefined) this.authorizationContext++
    this.credentials = identity
  }
}
