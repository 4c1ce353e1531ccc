/**
 * Every way an MCP client operation can fail, as Schema-based tagged errors.
 *
 * Each error carries the `server` label it concerns and reads as one sentence through `message`. Errors
 * that concern the child process carry its exit code or signal and the tail of its stderr.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { RequiredElicitation } from "./Elicitation.ts"
import type { EraError } from "./EraError.ts"
import * as ErrorKind from "./ErrorKind.ts"
import type { HttpError, InvalidUrl } from "./HttpError.ts"
import { oneLine } from "./internal/ServerText.ts"
import type { TaskError } from "./TaskError.ts"

const StderrTail = Schema.Array(Schema.String)

const tailSuffix = (tail: ReadonlyArray<string>): string => {
  const last = tail.length > 0 ? tail[tail.length - 1] : undefined
  return last === undefined ? "" : ` Last stderr line: ${JSON.stringify(oneLine(last))}.`
}

/**
 * The server's process could not be started (missing binary, missing working directory, bad arguments).
 *
 * @since 0.1.0
 * @category errors
 */
export class SpawnError extends Schema.TaggedError<SpawnError>()("SpawnError", {
  server: Schema.String,
  command: Schema.String,
  reason: Schema.String
}) {
  /** Permanent: the same command fails the same way until the configuration changes. */
  get kind(): ErrorKind.ConfigFault {
    return ErrorKind.configFault
  }
  override get message(): string {
    return `MCP server "${this.server}" could not be started (${this.command}): ${this.reason}.`
  }
}

/**
 * The server's process has exited (by itself or by a signal); the request can never be answered.
 *
 * @since 0.1.0
 * @category errors
 */
export class ProcessExited extends Schema.TaggedError<ProcessExited>()("ProcessExited", {
  server: Schema.String,
  code: Schema.NullOr(Schema.Number),
  signal: Schema.NullOr(Schema.String),
  stderrTail: StderrTail
}) {
  /** Transient: the manager restarts the server, so a later call can succeed (a bare client needs a new one). */
  get kind(): ErrorKind.Transient {
    return ErrorKind.transient
  }
  override get message(): string {
    const how = this.signal !== null
      ? `was killed by ${this.signal}`
      : this.code !== null
      ? `exited with code ${this.code}`
      : "exited"
    return `MCP server "${this.server}" ${how}.${tailSuffix(this.stderrTail)}`
  }
}

/**
 * The client was closed (its scope closed, or `forceClose` was called) before the operation finished.
 *
 * @since 0.1.0
 * @category errors
 */
export class ClientClosed extends Schema.TaggedError<ClientClosed>()("ClientClosed", {
  server: Schema.String,
  reason: Schema.String
}) {
  /** Permanent: the client was closed on purpose; a closed client never takes a call again. */
  get kind(): ErrorKind.CallerFault {
    return ErrorKind.callerFault
  }
  override get message(): string {
    return `The MCP client for "${this.server}" is closed (${this.reason}).`
  }
}

/**
 * A request got no answer before its deadline; `notifications/cancelled` was sent for it.
 *
 * @since 0.1.0
 * @category errors
 */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", {
  server: Schema.String,
  method: Schema.String,
  timeoutMs: Schema.Number
}) {
  /** Transient: the server was slow, not wrong. */
  get kind(): ErrorKind.Transient {
    return ErrorKind.transient
  }
  override get message(): string {
    return `MCP server "${this.server}" did not answer ${this.method} within ${this.timeoutMs} ms.`
  }
}

/**
 * The server answered with a JSON-RPC error object. `message` carries the server's text on one line, cut after 500
 * characters; `remoteMessage` keeps all of it.
 *
 * @since 0.1.0
 * @category errors
 */
export class RemoteError extends Schema.TaggedError<RemoteError>()("RemoteError", {
  server: Schema.String,
  method: Schema.String,
  code: Schema.Number,
  remoteMessage: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
}) {
  /** Transient only for the SDKs' connection-closed (-32000) and request-timeout (-32001) codes; an unknown tool, invalid params (-32602) or any other answer is the server's for good. */
  get kind(): ErrorKind.Transient | ErrorKind.ServerFault {
    return this.code === -32000 || this.code === -32001 ? ErrorKind.transient : ErrorKind.serverFault
  }
  override get message(): string {
    return `MCP server "${this.server}" answered ${this.method} with error ${this.code}: ${
      oneLine(withoutOwnCode(this.code, this.remoteMessage))
    }`
  }
}

/**
 * `text` without the `MCP error <code>: ` prefix the TypeScript SDK's servers put in front of their own error
 * messages, when `<code>` is the code the error carries (the message already says it); any other text is kept.
 */
const withoutOwnCode = (code: number, text: string): string => {
  const prefix = /^MCP error (-?\d+):\s*/.exec(text)
  return prefix !== null && Number(prefix[1]) === code && prefix[0].length < text.length
    ? text.slice(prefix[0].length)
    : text
}

/**
 * Why a request that needed URL elicitations (`-32042`) failed: the client has no URL-mode handler (`unhandled`),
 * the user declined or cancelled one, the handler failed or timed out, or the server asked again after the client had
 * completed them and retried once (`repeated`).
 *
 * @since 0.5.0
 * @category models
 */
export type UrlElicitationOutcome = "unhandled" | "declined" | "cancelled" | "failed" | "repeated"

const OUTCOMES: Readonly<Record<UrlElicitationOutcome, string>> = {
  unhandled: "this client has no URL-mode elicitation handler",
  declined: "the user declined",
  cancelled: "the user cancelled",
  failed: "the elicitation handler failed or did not answer in time",
  repeated: "the server asked again after they were completed and the request retried once"
}

const hostOf = (url: string): string => URL.canParse(url) ? new URL(url).host : url

/**
 * The server answered `-32042` (URL elicitation required, 2025-11-25): the request can proceed only once the user has
 * completed `elicitations` (each a URL to open, out of band). With a URL-mode elicitation handler the client hands
 * each one to it and, once all are accepted, retries the request once; this error says why that did not happen or
 * did not help (`outcome`).
 *
 * Its kind is the caller's, not `NeedsUser`: a URL elicitation concerns this one request (a third party's
 * authorization, a payment), not the client's access to the server, which stays usable for every other call.
 *
 * @since 0.5.0
 * @category errors
 */
export class UrlElicitationRequired extends Schema.TaggedError<UrlElicitationRequired>()("UrlElicitationRequired", {
  server: Schema.String,
  method: Schema.String,
  elicitations: Schema.Array(RequiredElicitation),
  outcome: Schema.Literals(["unhandled", "declined", "cancelled", "failed", "repeated"])
}) {
  /** The caller's: this request waits on the user's out-of-band action; the server itself is usable. */
  get kind(): ErrorKind.CallerFault {
    return ErrorKind.callerFault
  }
  override get message(): string {
    const hosts = [...new Set(this.elicitations.map((e) => hostOf(e.url)))].join(", ")
    return `MCP server "${this.server}" needs the user to complete ${this.elicitations.length} URL elicitation(s) (${
      oneLine(hosts)
    }) before ${this.method} can proceed: ${OUTCOMES[this.outcome]}.`
  }
}

/**
 * The server broke the protocol: a result of the wrong shape, a response with both `result` and `error`. `message`
 * carries `detail` on one line, cut after 500 characters.
 *
 * @since 0.1.0
 * @category errors
 */
export class ProtocolError extends Schema.TaggedError<ProtocolError>()("ProtocolError", {
  server: Schema.String,
  method: Schema.String,
  detail: Schema.String
}) {
  /** Permanent: the server broke the protocol; asking again gets the same answer. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    return `MCP server "${this.server}" sent an invalid answer to ${this.method}: ${oneLine(this.detail)}`
  }
}

/**
 * A paginated list needed more pages than the cap allows; the list is not returned truncated.
 *
 * @since 0.1.0
 * @category errors
 */
export class PageCapExceeded extends Schema.TaggedError<PageCapExceeded>()("PageCapExceeded", {
  server: Schema.String,
  method: Schema.String,
  pages: Schema.Number
}) {
  /** Permanent: the list is longer than the cap allows. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    return `MCP server "${this.server}" still had more ${this.method} results after ${this.pages} pages; the list was not truncated silently.`
  }
}

/**
 * A paginated list returned a cursor it had already returned: following it would loop forever.
 *
 * @since 0.1.0
 * @category errors
 */
export class RepeatedCursor extends Schema.TaggedError<RepeatedCursor>()("RepeatedCursor", {
  server: Schema.String,
  method: Schema.String,
  page: Schema.Number
}) {
  /** Permanent: the server's pagination loops. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    return `MCP server "${this.server}" repeated a ${this.method} cursor on page ${this.page}, which would loop forever.`
  }
}

/**
 * The server's answer was a line longer than `maxMessageBytes`; it was discarded without being buffered.
 *
 * @since 0.1.0
 * @category errors
 */
export class MessageTooLarge extends Schema.TaggedError<MessageTooLarge>()("MessageTooLarge", {
  server: Schema.String,
  method: Schema.String,
  bytes: Schema.Number,
  limit: Schema.Number,
  /** The answer came compressed in this encoding (HTTP `Content-Encoding`): `bytes` counts what it inflated to. */
  encoding: Schema.optionalKey(Schema.String)
}) {
  /** Permanent: the same answer is as large the next time. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    return this.encoding === undefined
      ? `MCP server "${this.server}" answered ${this.method} with a message of at least ${this.bytes} bytes, over the ${this.limit}-byte limit.`
      : `MCP server "${this.server}" answered ${this.method} with a ${this.encoding}-compressed body whose decompressed size passed the ${this.limit}-byte limit (maxMessageBytes): at least ${this.bytes} bytes.`
  }
}

/**
 * The server and this client share no protocol version: the server answered `initialize` with a version this
 * client does not speak (`answered`), or rejected the client's version with error `-32022` and listed the ones it
 * speaks (`serverSupported`). The client shuts such a server down.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsupportedProtocolVersion
  extends Schema.TaggedError<UnsupportedProtocolVersion>()("UnsupportedProtocolVersion", {
    server: Schema.String,
    /** The version the server answered with; absent when it rejected the request instead. */
    answered: Schema.optionalKey(Schema.String),
    /** The version this client offered, when the server rejected it. */
    requested: Schema.optionalKey(Schema.String),
    /** The versions the server says it supports (`data.supported` of its `-32022` error). */
    serverSupported: Schema.optionalKey(Schema.Array(Schema.String)),
    /** The versions this client supports. */
    supported: Schema.Array(Schema.String)
  })
{
  /** Permanent: no protocol version in common. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    if (this.answered === undefined) {
      return `MCP server "${this.server}" does not support protocol version ${
        JSON.stringify(this.requested ?? "")
      } (it supports ${oneLine((this.serverSupported ?? []).join(", "))}; this client supports ${
        this.supported.join(", ")
      }).`
    }
    return `MCP server "${this.server}" answered protocol version ${
      JSON.stringify(oneLine(this.answered, 100))
    }, which this client does not support (it supports ${this.supported.join(", ")}).`
  }
}

/**
 * Too many requests are already waiting for this server; the new one was refused rather than queued.
 *
 * @since 0.1.0
 * @category errors
 */
export class TooManyInFlight extends Schema.TaggedError<TooManyInFlight>()("TooManyInFlight", {
  server: Schema.String,
  limit: Schema.Number
}) {
  /** Transient: it can be sent once some of the requests in flight have finished. */
  get kind(): ErrorKind.Transient {
    return ErrorKind.transient
  }
  override get message(): string {
    return `MCP server "${this.server}" already has ${this.limit} requests in flight; try again when some have finished.`
  }
}

/**
 * An operation that needs the server's initialize answer (such as listing tools) was asked for before it came.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotReady extends Schema.TaggedError<NotReady>()("NotReady", {
  server: Schema.String,
  operation: Schema.String
}) {
  /** Transient: the server is still initializing. */
  get kind(): ErrorKind.Transient {
    return ErrorKind.transient
  }
  override get message(): string {
    return `MCP server "${this.server}" has not finished initializing, so ${this.operation} cannot be answered yet.`
  }
}

/**
 * A tool was called on a live server that has not finished starting (it may be building an index).
 *
 * The message is one whole sentence meant to be passed to a model verbatim: match the error by its tag
 * (`ErrIndexBuilding`) and forward `message`.
 *
 * @since 0.1.0
 * @category errors
 */
export class ErrIndexBuilding extends Schema.TaggedError<ErrIndexBuilding>()("ErrIndexBuilding", {
  server: Schema.String,
  tool: Schema.String
}) {
  /** Transient: the server is still starting up. */
  get kind(): ErrorKind.Transient {
    return ErrorKind.transient
  }
  override get message(): string {
    return `The "${this.server}" server is still starting up (it may be building its index), so "${this.tool}" cannot run yet; retry in a minute or use another tool meanwhile.`
  }
}

/**
 * Errors of the connection itself: the process is gone or the client is closed.
 *
 * @since 0.1.0
 * @category errors
 */
export type ConnectionError = ProcessExited | ClientClosed

/**
 * Errors any request can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type RequestError =
  | ConnectionError
  | RequestTimeout
  | RemoteError
  | UrlElicitationRequired
  | ProtocolError
  | MessageTooLarge
  | TooManyInFlight
  | InvalidParams
  | HttpError
  | EraError

/**
 * Errors of the background `initialize` handshake, seen by `awaitReady`.
 *
 * @since 0.1.0
 * @category errors
 */
export type InitializeError = RequestError | UnsupportedProtocolVersion

/**
 * Errors of `listTools`.
 *
 * @since 0.1.0
 * @category errors
 */
export type ListToolsError = InitializeError | NotReady | PageCapExceeded | RepeatedCursor

/**
 * Errors of `callTool`: the request's, and, for a call that runs as a task (`Tasks`), the task's end
 * (`TaskCancelled`, `TaskLost`), a refusal to run it as one (`TaskUnsupported`, `CapabilityNotSupported`), or a task
 * request sent while the session is not ready (`NotReady`); a result, plain or a task's, that does not match the
 * tool's `outputSchema` (`StructuredContentInvalid`).
 *
 * @since 0.1.0
 * @category errors
 */
export type CallToolError =
  | InitializeError
  | ErrIndexBuilding
  | NotReady
  | TaskError
  | CapabilityNotSupported
  | StructuredContentInvalid

/**
 * Every error of this package.
 *
 * @since 0.1.0
 * @category errors
 */
export type McpError = ListToolsError | CallToolError | SpawnError | InvalidUrl | StructuredContentInvalid

/**
 * The request's arguments could not be encoded as JSON (a cycle, a `BigInt`); nothing was sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidParams extends Schema.TaggedError<InvalidParams>()("InvalidParams", {
  server: Schema.String,
  method: Schema.String,
  detail: Schema.String
}) {
  /** Permanent: the same arguments cannot be sent as JSON next time either. */
  get kind(): ErrorKind.CallerFault {
    return ErrorKind.callerFault
  }
  override get message(): string {
    return `The arguments of ${this.method} for MCP server "${this.server}" cannot be sent as JSON: ${this.detail}.`
  }
}

/**
 * A tool's result has `structuredContent` that cannot be trusted: absent or not matching the tool's `outputSchema`
 * (checked by default, with `path`), or not decoding with the caller's schema (a typed call, `callTool(name, args,
 * { schema })`). The result itself was a success (`isError` results are returned, never checked).
 *
 * @since 0.3.0
 * @category errors
 */
export class StructuredContentInvalid extends Schema.TaggedError<StructuredContentInvalid>()(
  "StructuredContentInvalid",
  {
    server: Schema.String,
    tool: Schema.String,
    detail: Schema.String,
    /**
     * Checked against the tool's `outputSchema`: where the first mismatch is, as a JSON Pointer into
     * `structuredContent` (`""`: the whole value, or its absence). Absent for a typed call's own schema.
     */
    path: Schema.optionalKey(Schema.String)
  }
) {
  /** Permanent: the server's result does not have the shape the caller expects. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    if (this.path === undefined) {
      return `MCP server "${this.server}" answered tool "${this.tool}" with structuredContent that does not match the expected schema: ${
        oneLine(this.detail)
      }`
    }
    return `MCP server "${this.server}" answered tool "${this.tool}" with structuredContent that does not match the tool's outputSchema at ${
      this.path === "" ? "its root" : oneLine(this.path)
    }: ${oneLine(this.detail)}`
  }
}

/**
 * The server did not declare the capability a method needs (`resources`, `resources.subscribe`, `prompts`,
 * `completions`, `logging`), so the request was not sent.
 *
 * @since 0.3.0
 * @category errors
 */
export class CapabilityNotSupported extends Schema.TaggedError<CapabilityNotSupported>()("CapabilityNotSupported", {
  server: Schema.String,
  method: Schema.String,
  capability: Schema.String
}) {
  /** Permanent: the server declared what it offers at initialize. */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    return `MCP server "${this.server}" does not declare the "${this.capability}" capability, so ${this.method} was not sent.`
  }
}
