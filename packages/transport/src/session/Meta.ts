/**
 * The request `_meta` of MCP's modern era (2026-07-28): every request says which revision it speaks, what the
 * client can do and who it is, because there is no `initialize` to say it once.
 *
 * @internal
 */

/** The `_meta` keys this client sets. */
export const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
export const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
export const CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
export const LOG_LEVEL = "io.modelcontextprotocol/logLevel"
/** The result `_meta` key a modern server names itself with. */
export const SERVER_INFO = "io.modelcontextprotocol/serverInfo"

/** What the client says about itself on every modern request. */
export interface ClientMeta {
  readonly clientInfo: { readonly name: string; readonly version: string; readonly title?: string }
  readonly capabilities: Readonly<Record<string, unknown>>
  /** The log level the host asked for, when it asked (`…/logLevel`). */
  readonly logLevel?: string | undefined
}

/** The `_meta` of a modern request at `protocolVersion`. */
export const request = (protocolVersion: string, client: ClientMeta): Record<string, unknown> => {
  const meta: Record<string, unknown> = {
    [PROTOCOL_VERSION]: protocolVersion,
    [CLIENT_CAPABILITIES]: client.capabilities,
    [CLIENT_INFO]: client.clientInfo
  }
  if (client.logLevel !== undefined) meta[LOG_LEVEL] = client.logLevel
  return meta
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * `params` with `meta` merged into its `_meta`. Keys the caller put there (a progress token, `traceparent`, a
 * per-request capability) are kept as given; only the protocol version is always the session's, because the HTTP
 * `MCP-Protocol-Version` header must equal it. Params that are not an object are returned unchanged.
 */
export const merge = (params: unknown, meta: Readonly<Record<string, unknown>>): unknown => {
  if (params === undefined) return { _meta: { ...meta } }
  if (!isRecord(params)) return params
  const own = params["_meta"]
  const pinned = PROTOCOL_VERSION in meta ? { [PROTOCOL_VERSION]: meta[PROTOCOL_VERSION] } : {}
  const merged = isRecord(own) ? { ...meta, ...own, ...pinned } : { ...meta }
  return { ...params, _meta: merged }
}
