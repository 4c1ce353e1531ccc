/**
 * The traced request path: one client span and one `mcp.client.operation.duration` observation per request, and
 * the span's `traceparent` in `params._meta`. Built only when telemetry is on (see `Telemetry.ts`); otherwise the
 * session sends through the pending table directly and none of this runs.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
import * as Metric from "effect/Metric"
import * as Predicate from "effect/Predicate"
import type * as Tracer from "effect/Tracer"
import type { RequestOptions } from "../internal/PendingTable.ts"
import type { RequestError } from "../McpError.ts"
import * as Telemetry from "../Telemetry.ts"
import type { Kind } from "../wire/Transport.ts"
import * as Meta from "./Meta.ts"

/** A request function of the pending table's shape. */
export type Request = (method: string, params: unknown, options: RequestOptions) => Effect.Effect<unknown, RequestError>

/** What the spans say about the session; read at each request (the protocol version and session id change). */
export interface Subject {
  readonly server: string
  readonly transport: () => Kind
  readonly protocolVersion: () => string | undefined
  readonly sessionId: () => string | undefined
  readonly url: string | undefined
  readonly settings: Telemetry.Settings
  readonly clock: Clock.Clock
}

/** A tool call's `isError: true` as the exit the span ends with (status ERROR, described by this message). */
class ToolError extends Error {
  override readonly name = "ToolError"
}

const stringOf = (params: unknown, key: string): string | undefined => {
  if (!Predicate.isObject(params)) return undefined
  const value = params[key]
  return typeof value === "string" ? value : undefined
}

const json = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? "null"
  } catch {
    return "[unserializable]"
  }
}

/** The address and port of a remote server's (already redacted) URL. */
const address = (url: string | undefined): Record<string, string | number> => {
  if (url === undefined || !URL.canParse(url)) return {}
  const parsed = new URL(url)
  const port = parsed.port !== "" ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80
  return { "server.address": parsed.hostname, "server.port": port }
}

/** The attributes an error gives a span and the duration metric. */
const errorAttributes = (error: RequestError): Record<string, string> =>
  error._tag === "RemoteError"
    ? { "error.type": String(error.code), "rpc.response.status_code": String(error.code) }
    : { "error.type": error._tag }

/** `request`, traced. */
export const traced = (request: Request, subject: Subject): Request => {
  const { clock, server, settings } = subject
  const where = address(subject.url)
  return (method, params, options) => {
    const target = method === "tools/call" || method === "prompts/get" ? stringOf(params, "name") : undefined
    const kind = subject.transport()
    const attributes: Record<string, unknown> = {
      "mcp.method.name": method,
      "mcp.server.name": server,
      "network.transport": kind === "stdio" ? "pipe" : "tcp",
      ...(kind === "stdio" ? {} : { "network.protocol.name": "http", ...where })
    }
    const version = subject.protocolVersion()
    if (version !== undefined) attributes["mcp.protocol.version"] = version
    const sessionId = subject.sessionId()
    if (sessionId !== undefined) attributes["mcp.session.id"] = sessionId
    if (method === "tools/call" && target !== undefined) {
      attributes["gen_ai.tool.name"] = target
      attributes["gen_ai.operation.name"] = "execute_tool"
    } else if (method === "prompts/get" && target !== undefined) {
      attributes["gen_ai.prompt.name"] = target
    }
    const uri = method.startsWith("resources/") ? stringOf(params, "uri") : undefined
    if (uri !== undefined) attributes["mcp.resource.uri"] = uri
    if (settings.recordPayloads && method === "tools/call" && Predicate.isObject(params)) {
      attributes["gen_ai.tool.call.arguments"] = json(params["arguments"])
    }
    const name = target === undefined ? method : `${method} ${target}`
    return Effect.useSpan(name, { kind: "client", attributes }, (span) => {
      const started = clock.currentTimeMillisUnsafe()
      const carried = Meta.merge(params, { traceparent: HttpTraceContext.toHeaders(span)["traceparent"] })
      return request(method, carried, {
        ...options,
        onId: (id) => span.attribute("jsonrpc.request.id", String(id))
      }).pipe(Effect.onExit((exit) => {
        const labels = finish(span, exit, method, target)
        const seconds = (clock.currentTimeMillisUnsafe() - started) / 1000
        return Metric.update(Metric.withAttributes(Telemetry.operationDuration, labels), seconds)
      }))
    })
  }

  /** Sets the outcome's attributes on the span (ending it as failed for a tool error); returns the metric's. */
  function finish(
    span: Tracer.Span,
    exit: Exit.Exit<unknown, RequestError>,
    method: string,
    target: string | undefined
  ): Record<string, string> {
    const labels: Record<string, string> = { "mcp.method.name": method }
    for (const key of ["network.transport", "mcp.protocol.version"]) {
      const value = span.attributes.get(key)
      if (typeof value === "string") labels[key] = value
    }
    if (target !== undefined) labels[method === "tools/call" ? "gen_ai.tool.name" : "gen_ai.prompt.name"] = target
    if (Exit.isSuccess(exit)) {
      const result = exit.value
      if (settings.recordPayloads && method === "tools/call") span.attribute("gen_ai.tool.call.result", json(result))
      if (method === "tools/call" && Predicate.isObject(result) && result["isError"] === true) {
        span.attribute("error.type", "tool_error")
        labels["error.type"] = "tool_error"
        span.end(clock.currentTimeNanosUnsafe(), Exit.fail(new ToolError(`tool ${target ?? ""} returned isError`)))
      }
      return labels
    }
    const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    if (failure === undefined || failure._tag !== "Fail") return labels
    for (const [key, value] of Object.entries(errorAttributes(failure.error))) {
      span.attribute(key, value)
      labels[key] = value
    }
    return labels
  }
}
