/**
 * What a 2026-07-28 request must carry, checked before it is served: the `_meta` envelope (protocol version, client
 * info, capabilities, log level) and, over HTTP, the standard headers (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`) and a tool's `Mcp-Param-*` headers (SEP-2243), which must agree with the body.
 *
 * @internal
 */
import { Wire } from "@mcp-fleet/transport"
import type { ClientInfo } from "./Host.ts"
import * as Rpc from "./Rpc.ts"

/** The `_meta` keys of the envelope. */
export const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
export const CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
export const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
export const LOG_LEVEL = "io.modelcontextprotocol/logLevel"

/** The revisions served in this era. */
export const SUPPORTED = ["2026-07-28"]

/** What a request's envelope says. */
export interface Envelope {
  readonly protocolVersion: string
  readonly clientInfo: ClientInfo | undefined
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly logLevel: Rpc.LogLevel | undefined
}

/** The protocol version a request's body claims, if it claims one (`params._meta[…/protocolVersion]`). */
export const claimedVersion = (params: unknown): string | undefined => {
  const meta = Rpc.isRecord(params) ? params["_meta"] : undefined
  const version = Rpc.isRecord(meta) ? meta[PROTOCOL_VERSION] : undefined
  return typeof version === "string" ? version : undefined
}

/** Whether a protocol version belongs to the 2026-07-28 era (or a later one this gateway does not speak). */
export const isModernVersion = (version: string): boolean => version >= "2026"

/** Reads the envelope of a request that claims the era; the error to answer when it is missing or unsupported. */
export const envelope = (params: unknown): Envelope | Rpc.RpcError => {
  const meta = Rpc.isRecord(params) ? params["_meta"] : undefined
  if (!Rpc.isRecord(meta)) {
    return Rpc.error(
      Rpc.INVALID_PARAMS,
      "Invalid params: a 2026-07-28 request must carry the per-request envelope (params._meta)",
      { envelope: { missing: ["_meta"] } }
    )
  }
  const version = meta[PROTOCOL_VERSION]
  if (typeof version !== "string") {
    return Rpc.error(
      Rpc.INVALID_PARAMS,
      `Invalid params: the per-request envelope has no ${PROTOCOL_VERSION}`,
      { envelope: { missing: [PROTOCOL_VERSION] } }
    )
  }
  if (!SUPPORTED.includes(version)) return unsupported(version)
  const info = meta[CLIENT_INFO]
  const capabilities = meta[CLIENT_CAPABILITIES]
  if (!Rpc.isRecord(capabilities)) {
    return Rpc.error(
      Rpc.INVALID_PARAMS,
      `Invalid params: the per-request envelope has no ${CLIENT_CAPABILITIES} object`,
      { envelope: { missing: [CLIENT_CAPABILITIES] } }
    )
  }
  const level = meta[LOG_LEVEL]
  return {
    protocolVersion: version,
    clientInfo: Rpc.isRecord(info) && typeof info["name"] === "string" && typeof info["version"] === "string"
      ? { name: info["name"], version: info["version"] }
      : undefined,
    capabilities,
    logLevel: Rpc.isLogLevel(level) ? level : undefined
  }
}

/** The error of a protocol version this gateway does not speak (-32022, with the ones it does). */
export const unsupported = (requested: string): Rpc.RpcError =>
  Rpc.error(Rpc.UNSUPPORTED_VERSION, `Unsupported protocol version: ${requested}`, {
    supported: SUPPORTED,
    requested
  })

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/

/**
 * A header value as the sender meant it: surrounding whitespace dropped (RFC 9110), the `=?base64?…?=` sentinel
 * decoded (strictly: bad padding or characters are `undefined`, which never matches).
 */
export const decodeHeader = (raw: string): string | undefined => {
  const value = raw.trim()
  if (!value.startsWith("=?base64?") || !value.endsWith("?=")) return value
  const match = SENTINEL.exec(value)
  const encoded = match?.[1]
  if (encoded === undefined || encoded.length % 4 !== 0) return undefined
  return utf8(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0)))
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/** The text of `bytes`, or `undefined` when they are not UTF-8. Never throws. */
const utf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

const mismatch = (detail: string): Rpc.RpcError =>
  Rpc.error(Rpc.HEADER_MISMATCH, `Bad Request: the request headers and body disagree: ${detail}`, {
    mismatch: { detail }
  })

const NAMED: Readonly<Record<string, string>> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" }

/**
 * Checks the standard headers of a 2026-07-28 HTTP request against its body; `inputSchema` is the called tool's
 * (for its `Mcp-Param-*` headers). `undefined`: they agree.
 */
export const checkHeaders = (
  header: (name: string) => string | undefined,
  method: string,
  params: unknown,
  protocolVersion: string,
  inputSchema: unknown
): Rpc.RpcError | undefined => {
  const version = header("mcp-protocol-version")
  if (version !== undefined && version.trim() !== protocolVersion) {
    return mismatch(`MCP-Protocol-Version is ${version.trim()}, the body says ${protocolVersion}`)
  }
  const methodHeader = header("mcp-method")
  if (methodHeader === undefined) return mismatch("the required Mcp-Method header is absent")
  if (methodHeader.trim() !== method) {
    return mismatch(`Mcp-Method is ${methodHeader.trim()}, the body's method ${method}`)
  }
  const key = NAMED[method]
  if (key === undefined || !Rpc.isRecord(params)) return undefined
  const name = params[key]
  const nameHeader = header("mcp-name")
  if (typeof name === "string") {
    if (nameHeader === undefined) return mismatch(`the body carries params.${key} but the Mcp-Name header is absent`)
    if (decodeHeader(nameHeader) !== name) return mismatch(`Mcp-Name does not match params.${key}`)
  }
  if (method !== "tools/call" || inputSchema === undefined) return undefined
  const annotations = Wire.headerAnnotations(inputSchema)
  if (annotations._tag === "Invalid") return undefined
  const args = params["arguments"]
  for (const parameter of annotations.parameters) {
    let value: unknown = args
    for (const step of parameter.path) {
      value = Rpc.isRecord(value) && Object.hasOwn(value, step)
        ? value[step]
        : undefined
    }
    const raw = header(parameter.header.toLowerCase())
    if (value === undefined || value === null) {
      if (raw !== undefined) return mismatch(`${parameter.header} is sent but the argument is absent`)
      continue
    }
    if (raw === undefined) {
      return mismatch(`the argument of ${parameter.header} is in the body but the header is absent`)
    }
    const decoded = decodeHeader(raw)
    if (decoded === undefined) return mismatch(`${parameter.header} is not valid base64`)
    if (decoded !== String(value)) return mismatch(`${parameter.header} does not match its argument`)
  }
  return undefined
}
