/**
 * The session's calls: the readiness gate every call passes (`ErrIndexBuilding` / `NotReady` while the first
 * handshake runs, the handshake's or the end's error after it, a wait while an HTTP session is renewed), the
 * per-call deadline, `tools/call` with its result decoded, and `tools/list` over the shared cursor loop.
 *
 * The per-call path is untraced on purpose: `Effect.fn` (a span plus a captured call-site stack) cost about 4.5 µs
 * per call, a quarter of the whole client's CPU per call at concurrency 64 (BENCHMARKS.md). A caller who wants a
 * span per call wraps the effect in `Effect.withSpan`.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type { CallOptions, ToolList as ListedTools } from "../McpClient.ts"
import * as Options from "../McpClientOptions.ts"
import { ErrIndexBuilding, NotReady, ProtocolError, RequestTimeout } from "../McpError.ts"
import type { CallToolError, InitializeError, ListToolsError, Readiness, RequestError } from "../McpSession.ts"
import type { CallToolResult, ServerSession } from "../Protocol.ts"
import type { FeatureOptions } from "../session/Context.ts"
import * as Progress from "../session/Progress.ts"
import type { DiscoveredTool } from "../Tool.ts"
import * as CursorLoop from "./CursorLoop.ts"
import * as ListCache from "./ListCache.ts"
import type { PendingTable } from "./PendingTable.ts"
import { schemaDetail } from "./SchemaDetail.ts"
import * as ToolList from "./ToolList.ts"
import { decodeCallResult } from "./WireDecoders.ts"

/** What the calls need from their session. */
export interface Context {
  readonly server: string
  readonly requestTimeoutMs: number
  readonly maxPages: number
  readonly pending: PendingTable
  readonly readiness: () => Readiness
  /** Why the transport takes no request any more, before the session has seen its end (stdio's drain window). */
  readonly refusal: () => RequestError | undefined
  readonly scrub: (text: string) => string
  /** The tools list kept for its `ttlMs` (2026-07-28), read and filled at `now`. */
  readonly toolsCache: ListCache.ListCache<ListedTools>
  readonly now: () => number
  /** Sends a request another way than the pending table's plain path (the modern era), or `undefined`: not routed. */
  readonly route?: (
    method: string,
    params: unknown,
    settings: {
      readonly timeoutMs: number
      readonly cancellable: boolean
      readonly inputRequired?: "answer" | "return" | undefined
    }
  ) => Effect.Effect<unknown, RequestError> | undefined
  /** A check that refuses some listed tools (with the reason), and what to do once the listing is complete. */
  readonly toolCheck?: (session: ServerSession) => {
    readonly check: (tool: DiscoveredTool) => string | undefined
    readonly done: () => void
  } | undefined
}

/** The calls of one session. */
export interface Calls {
  /** The deadline of one call: its own `timeout`, capped by the session's. */
  readonly timeoutOf: (options: CallOptions | undefined) => number
  /** One request, ungated; with progress options, its reports go to `onProgress` before its answer. */
  readonly request: (
    method: string,
    params?: unknown,
    options?: FeatureOptions
  ) => Effect.Effect<unknown, RequestError>
  /** The readiness gate (see the module's note). */
  readonly whenReady: <A, E, E2>(
    starting: () => E,
    options: CallOptions | undefined,
    use: (session: ServerSession) => Effect.Effect<A, E2>
  ) => Effect.Effect<A, E | E2 | InitializeError>
  readonly callTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: FeatureOptions
  ) => Effect.Effect<CallToolResult, CallToolError>
  readonly listTools: (options?: CallOptions) => Effect.Effect<ListedTools, ListToolsError>
}

/** Builds the calls over `context`. */
export const make = (context: Context): Calls => {
  const { pending, scrub, server, toolsCache } = context

  const timeoutOf = (options: CallOptions | undefined) =>
    options?.timeout === undefined
      ? context.requestTimeoutMs
      : Math.min(Options.requestTimeoutMillis(options.timeout), context.requestTimeoutMs)

  const request = (method: string, params?: unknown, options?: FeatureOptions) =>
    Progress.run(options, (hooks) => {
      const settings = {
        timeoutMs: timeoutOf(options),
        cancellable: true,
        progress: hooks,
        inputRequired: options?.inputRequired
      }
      return context.route?.(method, params, settings) ?? pending.request(method, params, settings)
    })

  /** Runs `use` with the session once ready; `starting` says why not while the first handshake runs. */
  const whenReady = <A, E, E2>(
    starting: () => E,
    options: CallOptions | undefined,
    use: (session: ServerSession) => Effect.Effect<A, E2>
  ): Effect.Effect<A, E | E2 | InitializeError> =>
    Effect.suspend((): Effect.Effect<A, E | E2 | InitializeError> => {
      const state = context.readiness()
      switch (state._tag) {
        case "Ready":
          return use(state.session)
        case "Renewing":
          return Deferred.await(state.done).pipe(
            Effect.timeoutOption(timeoutOf(options)),
            Effect.flatMap((session): Effect.Effect<A, E2 | RequestTimeout> =>
              Option.isSome(session)
                ? use(session.value)
                : Effect.fail(new RequestTimeout({ server, method: "initialize", timeoutMs: timeoutOf(options) }))
            )
          )
        case "Starting":
          // A process that died while starting is that death, not "still starting" (stdio's drain window).
          return Effect.fail(context.refusal() ?? starting())
        case "Failed":
        case "Closed":
          return Effect.fail(state.error)
      }
    })

  const toCallResult = (raw: unknown): Effect.Effect<CallToolResult, ProtocolError> => {
    const decoded = decodeCallResult(raw)
    return Exit.isSuccess(decoded)
      ? Effect.succeed(decoded.value)
      : Effect.fail(new ProtocolError({ server, method: "tools/call", detail: scrub(schemaDetail(decoded.cause)) }))
  }

  const listPage = ToolList.page(server)
  const scrubbedPage = (raw: unknown) =>
    Exit.mapError(
      listPage(raw),
      (error) => new ProtocolError({ server, method: error.method, detail: scrub(error.detail) })
    )

  const callTool = (name: string, args?: Readonly<Record<string, unknown>>, options?: FeatureOptions) =>
    whenReady(
      () => new ErrIndexBuilding({ server, tool: name }),
      options,
      () => Effect.flatMap(request("tools/call", { name, arguments: args ?? {} }, options), toCallResult)
    )

  const listTools = (options?: CallOptions): Effect.Effect<ListedTools, ListToolsError> =>
    whenReady(
      () => new NotReady({ server, operation: "listTools" }),
      options,
      (session) =>
        ListCache.through(toolsCache, "tools/list", context.now, (seen) =>
          Effect.suspend(() => {
            const refusing = context.toolCheck?.(session)
            const collected = ToolList.collector(scrub, refusing?.check)
            return CursorLoop.collect({
              server,
              method: "tools/list",
              maxPages: context.maxPages,
              protocolVersion: session.protocolVersion,
              fetch: (params) => Effect.map(request("tools/list", params, options), seen),
              page: scrubbedPage,
              onItems: collected.add
            }).pipe(Effect.map((pages): ListedTools => {
              refusing?.done()
              return { tools: collected.tools, instructions: session.instructions, skipped: collected.skipped, pages }
            }))
          }))
    ).pipe(Effect.withSpan("McpSession.listTools"))

  return { timeoutOf, request, whenReady, callTool, listTools }
}
