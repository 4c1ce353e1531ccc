/**
 * What both fronts do with one message from a host, once it is parsed: the host a 2026-07-28 request is served as,
 * the exchange of a request, and the answer its outcome becomes.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type { Exchange, Host } from "./Host.ts"
import * as HostModule from "./Host.ts"
import type * as Modern from "./Modern.ts"
import * as Rpc from "./Rpc.ts"

let requests = 0

/** The host a 2026-07-28 request is served as: one per request, built from its envelope. */
export const modernHost = (
  envelope: Modern.Envelope,
  options: {
    readonly transport: "stdio" | "http"
    readonly profile: string | undefined
    readonly push?: ((message: Record<string, unknown>) => boolean) | undefined
  }
): Host => {
  const host = HostModule.make({
    id: `request-${++requests}`,
    era: "modern",
    transport: options.transport,
    profile: options.profile,
    protocolVersion: envelope.protocolVersion,
    push: options.push
  })
  host.clientInfo = envelope.clientInfo
  host.capabilities = envelope.capabilities
  host.logLevel = envelope.logLevel
  host.initialized = true
  return host
}

/** The progress token of a request (`params._meta.progressToken`), if it gave one. */
export const progressToken = (params: unknown): string | number | undefined => {
  const meta = Rpc.isRecord(params) ? params["_meta"] : undefined
  const token = Rpc.isRecord(meta) ? meta["progressToken"] : undefined
  return typeof token === "string" || typeof token === "number" ? token : undefined
}

/** The exchange of one request. */
export const exchange = (
  host: Host,
  id: string | number,
  method: string,
  params: unknown,
  related: (message: Record<string, unknown>) => boolean
): Exchange => ({
  host,
  id,
  method,
  progressToken: progressToken(params),
  logLevel: host.logLevel,
  related
})

/** The response message of a request's outcome (a defect is an internal error, its details logged, not sent). */
export const answer = (
  id: string | number,
  exit: Exit.Exit<unknown, Rpc.RpcError>
): Effect.Effect<{ readonly message: Record<string, unknown>; readonly error: Rpc.RpcError | undefined }> => {
  if (Exit.isSuccess(exit)) return Effect.succeed({ message: Rpc.resultMessage(id, exit.value), error: undefined })
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure)) {
    return Effect.succeed({ message: Rpc.errorMessage(id, failure.value), error: failure.value })
  }
  const error = Rpc.error(Rpc.INTERNAL_ERROR, "The gateway failed to serve this request.")
  return Effect.logError("a request failed unexpectedly", exit.cause).pipe(
    Effect.as({ message: Rpc.errorMessage(id, error), error })
  )
}

/** The error of a message that is not JSON, or not a JSON-RPC message. */
export const malformed = (reason: string, notJson: boolean): Rpc.RpcError =>
  notJson
    ? Rpc.error(Rpc.PARSE_ERROR, `Parse error: ${reason}`)
    : Rpc.error(Rpc.INVALID_REQUEST, `Invalid request: ${reason}`)
