/**
 * The `initialize` handshake: offer the newest revision, check the answer's shape and version, then send
 * `notifications/initialized`. Shared by every transport (and run again after an HTTP session loss).
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Schema from "effect/Schema"
import { ProtocolError, UnsupportedProtocolVersion } from "../McpError.ts"
import type { ServerSession } from "../Protocol.ts"
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "../Protocol.ts"
import type { PendingTable, RequestError } from "./PendingTable.ts"
import { decodeInitialize } from "./WireDecoders.ts"

/** What the client says about itself. */
export interface ClientDescription {
  readonly server: string
  readonly clientInfo: { readonly name: string; readonly version: string; readonly title?: string }
  readonly capabilities: Readonly<Record<string, unknown>>
  /** Deadline of the `initialize` request (`Infinity`: none; the caller bounds readiness itself). */
  readonly timeoutMs: number
}

/** Errors of the handshake. */
export type HandshakeError = RequestError | UnsupportedProtocolVersion

/** The first line of a schema failure, for a `ProtocolError`'s detail. */
export const schemaDetail = (cause: Cause.Cause<Schema.SchemaError>): string => {
  const error = cause.reasons.find((reason) => reason._tag === "Fail")
  return error !== undefined && error._tag === "Fail" ? error.error.message.replace(/\n\s*/g, " ") : "invalid shape"
}

/** Runs the handshake; `initialized` sends the notification (the transport learns the version first). */
export const run = (
  pending: PendingTable,
  client: ClientDescription,
  initialized: (session: ServerSession) => void
): Effect.Effect<ServerSession, HandshakeError> =>
  Effect.gen(function*() {
    const { server } = client
    const raw = yield* pending.request("initialize", {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: client.capabilities,
      clientInfo: client.clientInfo
    }, { timeoutMs: client.timeoutMs, cancellable: false })
    const decoded = decodeInitialize(raw)
    if (Exit.isFailure(decoded)) {
      return yield* new ProtocolError({ server, method: "initialize", detail: schemaDetail(decoded.cause) })
    }
    const result = decoded.value
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      return yield* new UnsupportedProtocolVersion({
        server,
        answered: result.protocolVersion,
        supported: [...SUPPORTED_PROTOCOL_VERSIONS]
      })
    }
    const session: ServerSession = {
      protocolVersion: result.protocolVersion,
      serverInfo: result.serverInfo,
      capabilities: result.capabilities,
      instructions: result.instructions
    }
    initialized(session)
    return session
  })
