/**
 * What the feature modules (`Resources`, `Prompts`, `Completion`, `Features`) need of a session: its readiness
 * gate, its request path and its inbound streams. `Open` builds one; the modules never see the wire.
 *
 * @since 0.3.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type { ListCache } from "../internal/ListCache.ts"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import type {
  CapabilityNotSupported,
  InitializeError,
  NotReady,
  PageCapExceeded,
  RepeatedCursor,
  RequestError
} from "../McpError.ts"
import { ProtocolError } from "../McpError.ts"
import type { ServerNotification, ServerSession } from "../Protocol.ts"
import type { LoggingMessage } from "../ProtocolFeatures.ts"
import type { Task, TaskMode } from "../Tasks.ts"
import type { Capability } from "./Capabilities.ts"
import * as Capabilities from "./Capabilities.ts"
import type { Era } from "./Era.ts"
import type { ProgressOptions } from "./Progress.ts"

/**
 * Per-call options of every feature method: the call's own deadline, and progress.
 *
 * @since 0.3.0
 * @category options
 */
export interface FeatureOptions extends ProgressOptions {
  /** This call's own deadline; the effective one is the smaller of this and the client's `requestTimeout`. */
  readonly timeout?: Duration.Input | undefined
  /**
   * 2026-07-28: what becomes of a result that asks for input (`resultType: "input_required"`). `answer` (the
   * default): the client's handlers answer it and the request is sent again until it completes. `return`: the result
   * is returned as it came, for a caller that relays the round to someone else (a gateway relays it to its host).
   */
  readonly inputRequired?: "answer" | "return" | undefined
}

/**
 * The options of a tool call: the usual ones (`timeout`, progress…) and how tasks are used.
 *
 * A call that runs as a task (`Tasks`) is bounded as a whole by `maxTotalTimeout`, else by `timeout` (from its start, across
 * creation, polls and result, and not capped by the client's `requestTimeout`: outliving one request is what a task
 * is for), else only by the task's own TTL and the caller's interruption. Each request inside it is bounded by the
 * client's `requestTimeout`. When the bound passes, or the caller is interrupted, the task is cancelled on the
 * server (`tasks/cancel`) and the call fails with `RequestTimeout` (or is interrupted).
 *
 * @since 0.5.0
 * @category options
 */
export interface ToolCallOptions extends FeatureOptions {
  /** Whether the call runs as a task. Default `auto`. */
  readonly task?: TaskMode | undefined
  /** The lifetime asked for the task (2025-11-25 `task.ttl`); the server may choose another. Default: not asked. */
  readonly taskTtl?: Duration.Input | undefined
  /** Runs for each status the client sees of the call's task (created, each poll or notification that changed it). */
  readonly onTaskStatus?: ((task: Task) => Effect.Effect<void>) | undefined
}

/**
 * What a feature method can fail with: not ready yet (or never), the capability missing, or the request's own error.
 *
 * @since 0.3.0
 * @category errors
 */
export type FeatureError = InitializeError | NotReady | CapabilityNotSupported

/**
 * What a paginated feature list can fail with.
 *
 * @since 0.3.0
 * @category errors
 */
export type FeatureListError = FeatureError | PageCapExceeded | RepeatedCursor

/** A session as the feature modules see it. */
export interface Context {
  readonly server: string
  readonly maxPages: number
  readonly scrub: (text: string) => string
  /** Runs `use` once the session is ready; `NotReady` for `operation` while the first handshake runs. */
  readonly whenReady: <A, E>(
    operation: string,
    options: FeatureOptions | undefined,
    use: (session: ServerSession, era: Era) => Effect.Effect<A, E>
  ) => Effect.Effect<A, E | NotReady | InitializeError>
  /** The session's request path (deadline, cancellation, progress). */
  readonly request: (method: string, params: unknown, options?: FeatureOptions) => Effect.Effect<unknown, RequestError>
  readonly notifications: Stream.Stream<ServerNotification>
  readonly logMessages: Stream.Stream<LoggingMessage>
  /** The session's list caches (`ttlMs`, 2026-07-28) and its clock; absent: every list asks the server. */
  readonly lists?: { readonly cache: <A>() => ListCache<A>; readonly now: () => number } | undefined
}

/** Decodes a result with `schema`; a mismatch is a `ProtocolError` of `method` (server text scrubbed). */
export const decodeWith = <S extends Schema.Top & Schema.ConstraintDecoder<unknown>>(
  context: Context,
  method: string,
  schema: S
): (raw: unknown) => Effect.Effect<S["Type"], ProtocolError> => {
  const decode = Schema.decodeUnknownExit(schema)
  return (raw) => {
    const decoded = decode(raw)
    return Exit.isSuccess(decoded)
      ? Effect.succeed(decoded.value)
      : Effect.fail(
        new ProtocolError({ server: context.server, method, detail: context.scrub(schemaDetail(decoded.cause)) })
      )
  }
}

/**
 * One gated, capability-checked request: ready, `capability` declared, then `method` sent and its answer given to
 * `then`.
 */
export const gated = <A, E>(
  context: Context,
  operation: string,
  method: string,
  capability: Capability,
  options: FeatureOptions | undefined,
  send: (session: ServerSession, era: Era) => Effect.Effect<A, E>
): Effect.Effect<A, E | FeatureError> =>
  context.whenReady(
    operation,
    options,
    (session, era) =>
      Effect.andThen(Capabilities.require(context.server, session, method, capability), send(session, era))
  )
