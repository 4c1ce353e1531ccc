/**
 * The session's calls: the readiness gate every call passes (`ErrIndexBuilding` / `NotReady` while the first
 * handshake runs, the handshake's or the end's error after it, a wait while an HTTP session is renewed), the
 * per-call deadline, the decoding of a `tools/call` result (the call itself, plain or as a task, is `Tasks`'), and
 * `tools/list` over the shared cursor loop.
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
import * as CursorLoop from "../internal/CursorLoop.ts"
import { DEFAULT_REQUEST_TIMEOUT_MS, millis } from "../internal/Durations.ts"
import * as ListCache from "../internal/ListCache.ts"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import { NotReady, ProtocolError, RequestTimeout } from "../McpError.ts"
import type {
  InitializeError,
  ListToolsError,
  RequestError,
  StructuredContentInvalid,
  UrlElicitationRequired
} from "../McpError.ts"
import type { CallToolResult, ServerSession } from "../Protocol.ts"
import type { DiscoveredTool } from "../Tool.ts"
import type { FeatureOptions } from "./Context.ts"
import type * as Era from "./Era.ts"
import type * as OutputSchemas from "./OutputSchemas.ts"
import * as Progress from "./Progress.ts"
import type { Readiness } from "./Readiness.ts"
import type { CallOptions, ToolList as ListedTools } from "./Session.ts"
import * as ToolList from "./ToolList.ts"
import { decodeCallResult } from "./WireDecoders.ts"

/** What the calls need from their session. */
export interface Context {
  readonly server: string
  readonly requestTimeoutMs: number
  readonly maxPages: number
  readonly readiness: () => Readiness
  /** The era the last handshake chose (before the first: legacy): how requests go, lists end, tools are checked. */
  readonly era: () => Era.Era
  /** Why the transport takes no request any more, before the session has seen its end (stdio's drain window). */
  readonly refusal: () => RequestError | undefined
  readonly scrub: (text: string) => string
  /** The tools list kept for its `ttlMs` (2026-07-28), read and filled at `now`. */
  readonly toolsCache: ListCache.ListCache<ListedTools>
  readonly now: () => number
  /** Told every tool of each complete listing (their task support is kept for the calls). */
  readonly onListed?: ((tools: ReadonlyArray<DiscoveredTool>) => void) | undefined
  /** Tool results checked against their tool's `outputSchema`. */
  readonly outputSchemas: OutputSchemas.OutputSchemas
  /** Completes the URL elicitations a `-32042` answer requires and sends the request again, once. */
  readonly urlElicitations: <A, E>(
    method: string,
    attempt: Effect.Effect<A, E>
  ) => Effect.Effect<A, E | UrlElicitationRequired>
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
  readonly whenReady: <A, E, E2, R = never>(
    starting: () => E,
    options: CallOptions | undefined,
    use: (session: ServerSession, era: Era.Era) => Effect.Effect<A, E2, R>
  ) => Effect.Effect<A, E | E2 | InitializeError, R>
  /**
   * Decodes a `tools/call` result of `tool` (a wrong shape is a `ProtocolError`, server text scrubbed), then checks
   * it against the tool's `outputSchema` (`OutputSchemas`); `undefined` (a followed task whose tool is not known):
   * decoded only.
   */
  readonly decodeResult: (
    tool: string | undefined
  ) => (raw: unknown) => Effect.Effect<CallToolResult, ProtocolError | StructuredContentInvalid>
  readonly listTools: (options?: CallOptions) => Effect.Effect<ListedTools, ListToolsError>
}

/** Builds the calls over `context`. */
export const make = (context: Context): Calls => {
  const { scrub, server, toolsCache } = context

  const timeoutOf = (options: CallOptions | undefined) =>
    options?.timeout === undefined
      ? context.requestTimeoutMs
      : Math.min(millis(options.timeout, DEFAULT_REQUEST_TIMEOUT_MS), context.requestTimeoutMs)

  const request = (method: string, params?: unknown, options?: FeatureOptions) =>
    context.urlElicitations(
      method,
      Progress.run(options, (hooks) => {
        const settings = {
          timeoutMs: timeoutOf(options),
          cancellable: true,
          progress: hooks,
          inputRequired: options?.inputRequired
        }
        return context.era().request(method, params, settings)
      })
    )

  /** Runs `use` with the session once ready; `starting` says why not while the first handshake runs. */
  const whenReady = <A, E, E2, R = never>(
    starting: () => E,
    options: CallOptions | undefined,
    use: (session: ServerSession, era: Era.Era) => Effect.Effect<A, E2, R>
  ): Effect.Effect<A, E | E2 | InitializeError, R> =>
    Effect.suspend((): Effect.Effect<A, E | E2 | InitializeError, R> => {
      const state = context.readiness()
      switch (state._tag) {
        case "Ready":
          return use(state.session, context.era())
        case "Renewing":
          return Deferred.await(state.done).pipe(
            Effect.timeoutOption(timeoutOf(options)),
            Effect.flatMap((session): Effect.Effect<A, E2 | RequestTimeout, R> =>
              Option.isSome(session)
                ? use(session.value, context.era())
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

  /** The raw result decoded, then checked against the tool's outputSchema (`OutputSchemas`): one step per call. */
  const toCallResult = (name: string | undefined) =>
  (
    raw: unknown
  ): Effect.Effect<CallToolResult, ProtocolError | StructuredContentInvalid> => {
    const decoded = decodeCallResult(raw)
    return Exit.isSuccess(decoded)
      ? name === undefined ? Effect.succeed(decoded.value) : context.outputSchemas.check(name, decoded.value)
      : Effect.fail(new ProtocolError({ server, method: "tools/call", detail: scrub(schemaDetail(decoded.cause)) }))
  }

  const listPage = ToolList.page(server)
  const scrubbedPage = (raw: unknown) =>
    Exit.mapError(
      listPage(raw),
      (error) => new ProtocolError({ server, method: error.method, detail: scrub(error.detail) })
    )

  const listTools = (options?: CallOptions): Effect.Effect<ListedTools, ListToolsError> =>
    whenReady(
      () => new NotReady({ server, operation: "listTools" }),
      options,
      (session, era) =>
        ListCache.through(toolsCache, "tools/list", context.now, (seen) =>
          Effect.suspend(() => {
            const refusing = era.toolCheck()
            const collected = ToolList.collector(scrub, refusing?.check)
            return CursorLoop.collect({
              server,
              method: "tools/list",
              maxPages: context.maxPages,
              endsList: era.endsList,
              fetch: (params) => Effect.map(request("tools/list", params, options), seen),
              page: scrubbedPage,
              onItems: collected.add
            }).pipe(Effect.map((pages): ListedTools => {
              refusing?.done()
              context.onListed?.(collected.tools)
              return { tools: collected.tools, instructions: session.instructions, skipped: collected.skipped, pages }
            }))
          })).pipe(Effect.tap((list) => Effect.sync(() => context.outputSchemas.listed(list.tools))))
    ).pipe(Effect.withSpan("McpClient.listTools"))

  return { timeoutOf, request, whenReady, decodeResult: toCallResult, listTools }
}
