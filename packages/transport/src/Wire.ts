/**
 * The wire primitives a server shares with the client: JSON-RPC 2.0 classification of one message (hand-written
 * guards that never throw), newline framing of a byte stream with a size cap, and the frame encoders. The gateway's
 * server side (`@mcp-fleet/gateway`) reads and writes its hosts' messages with these, so both ends of mcp-fleet
 * parse the protocol the same way.
 *
 * This module only re-exports what the client already uses internally; it is the one place a server depends on, so
 * that the transport's own layering can move underneath it.
 *
 * @example
 * ```ts
 * import { Wire } from "@mcp-fleet/transport"
 *
 * const message = Wire.classify(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
 * // message._tag === "Request"
 * ```
 *
 * @since 0.4.0
 */
import * as JsonRpc from "./internal/JsonRpc.ts"
import * as ModernHeaders from "./wire/http/ModernHeaders.ts"
import * as Framer from "./wire/Stdio/LineFramer.ts"

/**
 * A JSON-RPC id: a string or an integer, never null.
 *
 * @since 0.4.0
 * @category models
 */
export type Id = JsonRpc.Id

/**
 * One classified message: a request, a notification, a result, an error, or why it is none of them.
 *
 * @since 0.4.0
 * @category models
 */
export type Incoming = JsonRpc.Incoming

/**
 * Parses and classifies one message's text. Never throws: bad JSON is `NotJson`, a bad envelope `Invalid` (with the
 * id when one could be read). Batches (arrays) are `Invalid`.
 *
 * @since 0.4.0
 * @category parsing
 */
export const classify: (text: string) => Incoming = JsonRpc.classify

/**
 * Reads the top-level `id` of a message too large to parse, from its head and tail excerpts.
 *
 * @since 0.4.0
 * @category parsing
 */
export const sniffId: (head: string, tail: string) => Id | undefined = JsonRpc.sniffId

/**
 * What a `LineFramer` reports, synchronously from `push` and `end`: each line, each line over the cap (its size and
 * excerpts of both ends), each line that is not UTF-8.
 *
 * @since 0.4.0
 * @category framing
 */
export type FramerHandler = Framer.FramerHandler

/**
 * Splits a byte stream into newline-terminated UTF-8 lines; a line over `maxBytes` is never buffered whole.
 *
 * @since 0.4.0
 * @category framing
 */
export const LineFramer: typeof Framer.LineFramer = Framer.LineFramer

/**
 * A framer instance (see the constructor above).
 *
 * @since 0.4.0
 * @category framing
 */
export type LineFramer = Framer.LineFramer

/**
 * A request frame, newline-terminated.
 *
 * @since 0.4.0
 * @category encoding
 */
export const requestFrame: (id: number, method: string, params: unknown) => string = JsonRpc.requestFrame

/**
 * A notification frame, newline-terminated.
 *
 * @since 0.4.0
 * @category encoding
 */
export const notificationFrame: (method: string, params: unknown) => string = JsonRpc.notificationFrame

/**
 * A result frame, newline-terminated.
 *
 * @since 0.4.0
 * @category encoding
 */
export const resultFrame: (id: Id, result: unknown) => string = JsonRpc.resultFrame

/**
 * An error frame (code and message only), newline-terminated.
 *
 * @since 0.4.0
 * @category encoding
 */
export const errorFrame: (id: Id, code: number, message: string) => string = JsonRpc.errorFrame

/**
 * One designated header parameter of a tool (2026-07-28, SEP-2243): where it is in the arguments, its
 * `Mcp-Param-*` header and its type.
 *
 * @since 0.4.0
 * @category headers
 */
export type HeaderParameter = ModernHeaders.HeaderParameter

/**
 * A tool's `x-mcp-header` annotations read from its `inputSchema`: its designated parameters, or the rule they break.
 *
 * @since 0.4.0
 * @category headers
 */
export const headerAnnotations: (inputSchema: unknown) => ModernHeaders.Annotations = ModernHeaders.annotations

/**
 * A header value as sent: as it is when it is plain visible ASCII without surrounding whitespace, else in the
 * `=?base64?…?=` sentinel.
 *
 * @since 0.4.0
 * @category headers
 */
export const headerValue: (value: string) => string = ModernHeaders.headerValue
