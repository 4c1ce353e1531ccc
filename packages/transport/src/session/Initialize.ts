/**
 * The `initialize` handshake, shared by every transport (and run again after an HTTP session loss): offer the
 * newest revision, check the answer's shape and version, then send `notifications/initialized` (through
 * `initialized`, which first tells the transport the negotiated version).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import { ProtocolError, RemoteError, UnsupportedProtocolVersion } from "../McpError.ts"
import type { ServerSession } from "../Protocol.ts"
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "../Protocol.ts"
import { decodeInitialize } from "./WireDecoders.ts"

/** What the client says about itself. */
export interface ClientDescription {
  readonly server: string
  readonly clientInfo: { readonly name: string; readonly version: string; readonly title?: string }
  readonly capabilities: Readonly<Record<string, unknown>>
  /** Deadline of the `initialize` request (`Infinity`: none; the caller bounds readiness itself). */
  readonly timeoutMs: number
}

/** The one request path of the caller's connection. */
export type Request<E> = (
  method: string,
  params: unknown,
  options: { readonly timeoutMs: number; readonly cancellable: boolean }
) => Effect.Effect<unknown, E>

/** A `-32022` answer to `initialize` listing the server's versions: no version in common. */
const versionRejection = (server: string, error: unknown): UnsupportedProtocolVersion | undefined => {
  if (!(error instanceof RemoteError) || error.code !== -32022) return undefined
  const data = error.data
  if (typeof data !== "object" || data === null || !("supported" in data) || !Array.isArray(data.supported)) {
    return undefined
  }
  return new UnsupportedProtocolVersion({
    server,
    requested: LATEST_PROTOCOL_VERSION,
    serverSupported: data.supported.filter((v: unknown): v is string => typeof v === "string"),
    supported: [...SUPPORTED_PROTOCOL_VERSIONS]
  })
}

/**
 * Runs the handshake over `request`; `initialized` runs with the session (it sends `notifications/initialized` and
 * waits for the wire to settle) before the session is returned.
 */
export const run: <E>(
  request: Request<E>,
  client: ClientDescription,
  initialized: (session: ServerSession) => Effect.Effect<void>
) => Effect.Effect<ServerSession, E | ProtocolError | UnsupportedProtocolVersion> = Effect.fnUntraced(function*<E>(
  request: Request<E>,
  client: ClientDescription,
  initialized: (session: ServerSession) => Effect.Effect<void>
) {
  const { server } = client
  const raw = yield* request("initialize", {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: client.capabilities,
    clientInfo: client.clientInfo
  }, { timeoutMs: client.timeoutMs, cancellable: false }).pipe(
    Effect.mapError((error): E | UnsupportedProtocolVersion => versionRejection(server, error) ?? error)
  )
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
    instructions: result.instructions,
    era: "legacy"
  }
  yield* initialized(session)
  return session
})
