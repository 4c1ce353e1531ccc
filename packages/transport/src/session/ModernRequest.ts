/**
 * One request in MCP's modern era (2026-07-28), over any transport: the `_meta` every request carries, the HTTP
 * headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), `resultType`, multi-round-trip input
 * (`Mrtr`), and a response stream that broke (re-issued with a new id: the era has no resumption).
 *
 * - `resultType` absent or `complete` is a result; `input_required` on a method that may ask for input starts a
 *   round; `task` on `tools/call` is a created task (the tasks extension; `session/Tasks.ts` follows it); any other
 *   value is a `ProtocolError` for that call only (the connection lives).
 * - `ping` and `logging/setLevel` do not exist in the era: `NotInEra`, nothing is sent.
 * - A re-issue after a broken stream shares the call's one deadline: it gets what is left of the call's timeout (and
 *   of `maxTotalTimeout`), never a fresh one, and a call with nothing left fails with `RequestTimeout` naming the
 *   call's own timeout. A call whose streams always broke after 1.5 s once took 4.5 s against a 2 s timeout.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { NotInEra } from "../EraError.ts"
import type { ProgressHooks, RequestOptions } from "../internal/PendingTable.ts"
import type { RequestError } from "../McpError.ts"
import { ProtocolError, RequestTimeout } from "../McpError.ts"
import * as ModernHeaders from "../wire/http/ModernHeaders.ts"
import * as CallDeadline from "./CallDeadline.ts"
import * as Meta from "./Meta.ts"
import * as Mrtr from "./Mrtr.ts"

/** Methods whose result may be a task (`resultType: "task"`, the `io.modelcontextprotocol/tasks` extension). */
const TASK_METHODS = new Set(["tools/call"])
/** Methods removed in the modern era. */
const REMOVED = new Set(["ping", "logging/setLevel"])
/** Re-issues of a request whose response stream broke before its answer. */
export const MAX_REISSUES = 2

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
  /** The session's clock, in milliseconds: a re-issue gets what is left of the call's deadline. */
  readonly now: () => number
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
    readonly progress?: ProgressHooks | undefined
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
    const deadline = CallDeadline.start(config.now, options.timeoutMs, options.progress)
    const attempt = (reissues: number): Effect.Effect<unknown, RequestError> => {
      if (reissues === 0) return config.send(method, merged, { ...options, progress: deadline.progress, headers })
      const left = deadline.left()
      if (left === undefined) {
        return Effect.fail(new RequestTimeout({ server, method, timeoutMs: deadline.bound() }))
      }
      return config.send(method, merged, { ...options, ...left, headers }).pipe(
        Effect.mapError((error) =>
          error._tag === "RequestTimeout" ? new RequestTimeout({ server, method, timeoutMs: deadline.bound() }) : error
        )
      )
    }
    const withReissues = (reissues: number): Effect.Effect<unknown, RequestError> =>
      attempt(reissues).pipe(
        Effect.catchIf(
          (error) => error._tag === "StreamEnded" && reissues < MAX_REISSUES,
          () => withReissues(reissues + 1)
        )
      )
    return Effect.flatMap(withReissues(0), (result) => {
      const type = isRecord(result) ? result["resultType"] : undefined
      if (
        type === undefined || type === "complete" || (type === "input_required" && mayAskInput) ||
        (type === "task" && TASK_METHODS.has(method))
      ) {
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
