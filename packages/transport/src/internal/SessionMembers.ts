/**
 * The members every `McpClient` takes from its session as they are, whatever the transport.
 *
 * @internal
 */
import type * as McpSession from "../McpSession.ts"
import * as Features from "../session/Features.ts"

/** The session's own members of an `McpClient`. */
export const sharedMembers = (session: McpSession.McpSession) => ({
  ...Features.pick(session),
  callToolStream: session.callToolStream,
  name: session.name,
  isAlive: session.isAlive,
  serverStream: session.serverStream,
  isReady: session.isReady,
  awaitReady: session.awaitReady,
  session: session.session,
  listTools: session.listTools,
  callTool: session.callTool,
  ping: session.ping,
  request: session.request,
  notifications: session.notifications,
  listen: session.listen,
  awaitTerminated: session.awaitTerminated,
  /** Why the client is not usable: its handshake's failure or its end. */
  lastError: (): string | undefined => {
    const state = session.readiness()
    return state._tag === "Failed" || state._tag === "Closed" ? state.error.message : undefined
  }
})
