/**
 * JSON-RPC on the gateway's front: the error codes it answers with, the error it fails with, and the frames it
 * writes. Messages are parsed by the transport's `Wire.classify` (the same guards the client reads with).
 *
 * @internal
 */
import * as Data from "effect/Data"

/** JSON-RPC and MCP error codes. */
export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const METHOD_NOT_FOUND = -32601
export const INVALID_PARAMS = -32602
export const INTERNAL_ERROR = -32603
/** MCP: the resource does not exist (2025-11-25 and 2026-07-28). */
export const RESOURCE_NOT_FOUND = -32002
/** MCP 2026-07-28: the headers and the body disagree (SEP-2243). */
export const HEADER_MISMATCH = -32020
/** MCP 2026-07-28: the request needs a client capability the request did not declare. */
export const MISSING_CAPABILITY = -32021
/** MCP 2026-07-28: the protocol version is not one the server speaks. */
export const UNSUPPORTED_VERSION = -32022
/** The gateway is at a limit (calls in flight, hosts): try again later. */
export const OVERLOADED = -32003

/** A JSON-RPC error answer: what the host is told, nothing more. */
export class RpcError extends Data.TaggedError("RpcError")<{
  readonly code: number
  readonly message: string
  readonly data?: unknown
}> {}

/** An error answer of `code`. */
export const error = (code: number, message: string, data?: unknown): RpcError =>
  data === undefined ? new RpcError({ code, message }) : new RpcError({ code, message, data })

/** The JSON-RPC response object of a result. */
export const resultMessage = (id: string | number, result: unknown): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id,
  result
})

/** The JSON-RPC response object of an error (`id` null when the request's id could not be read). */
export const errorMessage = (id: string | number | null, failure: RpcError): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id,
  error: failure.data === undefined
    ? { code: failure.code, message: failure.message }
    : { code: failure.code, message: failure.message, data: failure.data }
})

/** A notification object. */
export const notificationMessage = (method: string, params: unknown): Record<string, unknown> =>
  params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }

/** A request object (server → host). */
export const requestMessage = (id: string | number, method: string, params: unknown): Record<string, unknown> =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }

/** Whether `value` is a plain object. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The log levels, least severe first (RFC 5424 order, as MCP lists them). */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const

/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number]

/** Whether `value` names a log level. */
export const isLogLevel = (value: unknown): value is LogLevel =>
  typeof value === "string" && (LOG_LEVELS as ReadonlyArray<string>).includes(value)

/** Whether an entry at `level` passes a host's `threshold` (no threshold: everything passes). */
export const passes = (level: unknown, threshold: LogLevel | undefined): boolean =>
  threshold === undefined || !isLogLevel(level) || LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold)
