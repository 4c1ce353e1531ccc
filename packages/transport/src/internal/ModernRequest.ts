/**
 * One request in MCP's modern era (2026-07-28), over any transport: the `_meta` every request carries, the HTTP
 * headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), `resultType`, multi-round-trip input
 * (`Mrtr`), and a response stream that broke (re-issued with a new id: the era has no resumption).
 *
 * - `resultType` absent or `complete` is a result; `input_required` on a method that may ask for input starts a
 *   round; any other value is a `ProtocolError` for that call only (the connection lives).
 * - `ping` and `logging/setLevel` do not exist in the era: `NotInEra`, nothing is sent.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { NotInEra } from "../EraError.ts"
import type { RequestError } from "../McpError.ts"
import { ProtocolError } from "../McpError.ts"
import * as ModernHeaders from "../transport/http/ModernHeaders.ts"
import * as Meta from "./Meta.ts"
import * as Mrtr from "./Mrtr.ts"
import type { RequestOptions } from "./PendingTable.ts"

/** Methods removed in the modern era. */
const REMOVED = new Set(["ping", "logging/setLevel"])
/** Re-issues of a request whose response stream broke before its answer. */
const MAX_REISSUES = 2

/** What a modern request needs from its session. */
export interface Config {
  readonly server: string
  readonly client: Meta.ClientMeta
  /** Whether requests go over HTTP (then they carry the era's headers). */
  readonly http: boolean
  /** The designated header parameters of a listed tool, by name. */
  readonly toolHeaders: (tool: string) => ReadonlyArray<ModernHeaders.HeaderParameter> | undefined
  readonly answer: Mrtr.Answer | undefined
  readonly maxRounds: number
  /** The session's one request path (the pending table). */
  readonly send: (method: string, params: unknown, options: RequestOptions) => Effect.Effect<unknown, RequestError>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Builds the request function of a modern session. */
export const make = (config: Config) =>
(
  protocolVersion: string,
  method: string,
  params: unknown,
  options: {
    readonly timeoutMs: number
    readonly cancellable: boolean
    /** `return`: an `input_required` result is the answer (the caller relays the round); default `answer`. */
    readonly inputRequired?: "answer" | "return" | undefined
  }
): Effect.Effect<unknown, RequestError> => {
  const { server } = config
  if (REMOVED.has(method)) return Effect.fail(new NotInEra({ server, method, protocolVersion }))
  const meta = Meta.request(protocolVersion, config.client)
  const mayAskInput = Mrtr.METHODS.has(method)

  const once = (raw: unknown): Effect.Effect<unknown, RequestError> => {
    const merged = Meta.merge(raw, meta)
    const tool = method === "tools/call" && isRecord(merged) && typeof merged["name"] === "string"
      ? config.toolHeaders(merged["name"])
      : undefined
    const headers = config.http ? ModernHeaders.forRequest(method, merged, protocolVersion, tool) : undefined
    const attempt = (reissues: number): Effect.Effect<unknown, RequestError> =>
      config.send(method, merged, { ...options, headers }).pipe(
        Effect.catchIf(
          (error) => error._tag === "StreamEnded" && reissues < MAX_REISSUES,
          () => attempt(reissues + 1)
        )
      )
    return Effect.flatMap(attempt(0), (result) => {
      const type = isRecord(result) ? result["resultType"] : undefined
      if (type === undefined || type === "complete" || (type === "input_required" && mayAskInput)) {
        return Effect.succeed(result)
      }
      return Effect.fail(
        new ProtocolError({
          server,
          method,
          detail: `its result has resultType ${JSON.stringify(type)}, which this client does not know`
        })
      )
    })
  }

  if (!mayAskInput || options.inputRequired === "return") return once(params)
  return Mrtr.run({
    server,
    method,
    params,
    maxRounds: config.maxRounds,
    capabilities: config.client.capabilities,
    answer: config.answer,
    send: once
  })
}
