/**
 * The session's tasks: task-augmented `tools/call` (the one-shot `callTool` that runs as a task when the tool or the
 * caller says so, and `startTool`, the handle form for hosts that show running tasks), and the typed task methods
 * (`getTask`, `taskResult`, `listTasks`, `cancelTask`, `followTask`, the `taskStatus` stream). What differs between
 * the eras is the era's `TaskProtocol`; one followed task is a `TaskWatch`.
 *
 * A one-shot call that became a task is bounded by its own deadline (`Tasks.CallOptions`); when it passes, or the
 * caller is interrupted, the task is cancelled on the server (`tasks/cancel`, in the session's background, bounded by
 * the request timeout) and the call fails with `RequestTimeout` (or is interrupted).
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as CursorLoop from "../internal/CursorLoop.ts"
import { millis } from "../internal/Durations.ts"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import type {
  CallToolError,
  CapabilityNotSupported,
  InitializeError,
  PageCapExceeded,
  RepeatedCursor,
  RequestError,
  StructuredContentInvalid,
  UrlElicitationRequired
} from "../McpError.ts"
import { ErrIndexBuilding, NotReady, ProtocolError, RequestTimeout } from "../McpError.ts"
import type { CallToolResult, ServerNotification, ServerSession } from "../Protocol.ts"
import { isUnknownTask, TaskLost } from "../TaskError.ts"
import type { Task, TaskHandle, TaskList, TaskSupport } from "../Tasks.ts"
import type * as TaskTypes from "../Tasks.ts"
import type { FeatureOptions, ToolCallOptions } from "./Context.ts"
import type * as Era from "./Era.ts"
import type { Created, Observed, Send, TaskProtocol } from "./TaskProtocol.ts"
import * as TaskRouter from "./TaskRouter.ts"
import * as TaskWatch from "./TaskWatch.ts"

/**
 * What a task method can fail with: the session not ready (or ended), the capability missing, the request's error.
 *
 * @since 0.5.0
 * @category errors
 */
export type TaskMethodError = InitializeError | NotReady | CapabilityNotSupported

/**
 * The task methods of a client.
 *
 * @since 0.5.0
 * @category models
 */
export interface TaskMethods {
  /** `tasks/get`: where a task is. */
  readonly getTask: (taskId: string, options?: FeatureOptions) => Effect.Effect<Task, TaskMethodError>
  /**
   * The result of a task once it ends (2025-11-25: `tasks/result`, which waits for the end; 2026-07-28: polls
   * `tasks/get` until the end). Bounded by `options.timeout` (not capped by the client's `requestTimeout`), else
   * unbounded. Decoded only: a task id does not say which tool ran, so no `outputSchema` is checked here.
   */
  readonly taskResult: (
    taskId: string,
    options?: FeatureOptions
  ) => Effect.Effect<CallToolResult, CallToolError>
  /** `tasks/list`, every page (2025-11-25; 2026-07-28 has no `tasks/list`: `NotInEra`). */
  readonly listTasks: (
    options?: FeatureOptions
  ) => Effect.Effect<TaskList, TaskMethodError | PageCapExceeded | RepeatedCursor>
  /**
   * `tasks/cancel`: the task as the server says it is then (2025-11-25), or none (2026-07-28 only acknowledges;
   * `getTask` says when it took effect).
   */
  readonly cancelTask: (taskId: string, options?: FeatureOptions) => Effect.Effect<Option.Option<Task>, TaskMethodError>
  /** `notifications/tasks/status` about `taskId` (every task when absent), decoded, from the moment the stream runs. */
  readonly taskStatus: (taskId?: string) => Stream.Stream<Task>
  /**
   * Calls a tool and returns at once: a handle on the task it became (polled while the current scope is open), or
   * its result when it did not become one.
   */
  readonly startTool: (
    name: string,
    args?: Readonly<Record<string, unknown>>,
    options?: ToolCallOptions
  ) => Effect.Effect<TaskTypes.Started<CallToolError>, CallToolError, Scope.Scope>
  /**
   * A handle on a task the client did not start here (listed, or started by another client of the same server, as
   * the manager does for a remote server reconnected while a call waited). A server that does not know the task is
   * `TaskLost`. With `tool` (the tool the task runs), its result is checked against that tool's `outputSchema` as a
   * plain call's is; without it (`tasks/get` does not say which tool a task runs), the result is only decoded.
   */
  readonly followTask: (
    taskId: string,
    options?: Pick<ToolCallOptions, "onTaskStatus" | "timeout"> & { readonly tool?: string | undefined }
  ) => Effect.Effect<TaskHandle<CallToolError>, TaskMethodError | TaskLost, Scope.Scope>
}

/** What the tasks need of their session. */
export interface Context {
  readonly server: string
  readonly scrub: (text: string) => string
  readonly requestTimeoutMs: number
  /** The session's clock, in milliseconds. */
  readonly now: () => number
  /** The readiness gate (`starting`: the error while the first handshake runs). */
  readonly whenReady: <A, E, E2, R = never>(
    starting: () => E,
    options: FeatureOptions | undefined,
    use: (session: ServerSession, era: Era.Era) => Effect.Effect<A, E2, R>
  ) => Effect.Effect<A, E | E2 | InitializeError, R>
  /** One request, ungated (deadline, progress; a `-32042` completed and retried once, `UrlElicitationRetry`). */
  readonly request: (method: string, params: unknown, options?: FeatureOptions) => Effect.Effect<unknown, RequestError>
  /** The `-32042` retry (`UrlElicitationRetry`), for the one request that does not go through `request`. */
  readonly urlElicitations: <A, E>(
    method: string,
    attempt: Effect.Effect<A, E>
  ) => Effect.Effect<A, E | UrlElicitationRequired>
  /** The era the last handshake chose. */
  readonly era: () => Era.Era
  readonly router: TaskRouter.TaskRouter
  readonly notifications: Stream.Stream<ServerNotification>
  /** Completes once the session has ended. */
  readonly ended: Effect.Effect<void>
  /** Why the session ended, once it has. */
  readonly endedWhy: () => string | undefined
  readonly remote: () => boolean
  readonly polling: TaskWatch.Polling
  /** Runs an effect in the session's background (a cancel that outlives its interrupted caller). */
  readonly background: (effect: Effect.Effect<void>) => void
  /**
   * Decodes a `tools/call` result of `tool`, checked against its `outputSchema` (`undefined`: not known, decoded
   * only).
   */
  readonly decodeResult: (
    tool: string | undefined
  ) => (raw: unknown) => Effect.Effect<CallToolResult, ProtocolError | StructuredContentInvalid>
  /** A tool's `execution.taskSupport` from the last listing (`undefined`: not listed). */
  readonly support: (tool: string) => TaskSupport | undefined
  /** Lists the tools (once, when a call must know a tool's task support and none was listed yet). */
  readonly listTools: Effect.Effect<unknown, unknown>
  readonly maxPages: number
}

/** The page envelope of `tasks/list`. */
const ListPage = Schema.StructWithRest(
  Schema.Struct({ tasks: Schema.Array(Schema.Unknown), nextCursor: Schema.optionalKey(Schema.String) }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
const decodeListPage = Schema.decodeUnknownExit(ListPage)

/** The session's tasks. */
export const make = (context: Context) => {
  const { server } = context

  /** One task request through the readiness gate, with the client's request timeout (or `timeoutMs`). */
  const send: Send = (method, params, timeoutMs) =>
    context.whenReady(
      () => new NotReady({ server, operation: method }),
      undefined,
      () => context.request(method, params, timeoutMs === undefined ? undefined : { timeout: timeoutMs })
    )
  /** `send`, where `Infinity` means no deadline (`tasks/result`, which waits for the task's end). */
  const unbounded: Send = (method, params, timeoutMs) =>
    timeoutMs === Infinity
      ? context.whenReady(
        () => new NotReady({ server, operation: method }),
        undefined,
        (_session, era) =>
          context.urlElicitations(method, era.request(method, params, { timeoutMs: Infinity, cancellable: true }))
      )
      : send(method, params, timeoutMs)

  const watchContext: TaskWatch.Context = {
    server,
    scrub: context.scrub,
    protocol: () => context.era().tasks,
    send: unbounded,
    notified: context.router.next,
    ended: context.ended,
    endedWhy: context.endedWhy,
    remote: context.remote,
    polling: context.polling
  }

  /** A typed task method: ready, the capability its era needs declared, then `use`. */
  const gated = <A, E, R = never>(
    method: string,
    options: FeatureOptions | undefined,
    use: (protocol: TaskProtocol) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | TaskMethodError, R> =>
    context.whenReady(
      () => new NotReady({ server, operation: method }),
      options,
      (session, era): Effect.Effect<A, E | CapabilityNotSupported, R> => {
        const missing = era.tasks.requires(session, method)
        return missing === undefined ? use(era.tasks) : Effect.fail(missing)
      }
    )

  const scrubTask = (task: Task): Task =>
    task.statusMessage === undefined ? task : { ...task, statusMessage: context.scrub(task.statusMessage) }

  /** The call's own bound when it runs as a task (see `Tasks.CallOptions`), in milliseconds; `Infinity`: none. */
  const taskDeadline = (options: ToolCallOptions | undefined): number =>
    options?.maxTotalTimeout !== undefined
      ? millis(options.maxTotalTimeout, Infinity)
      : options?.timeout !== undefined
      ? millis(options.timeout, Infinity)
      : Infinity

  /** Plans and sends a `tools/call`: what came back (a result or a task), or the refusal. */
  const send_ = (
    session: ServerSession,
    era: Era.Era,
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    options: ToolCallOptions | undefined
  ): Effect.Effect<Created, CallToolError> => {
    const call = {
      session,
      name,
      args,
      mode: options?.task ?? "auto",
      ttlMs: options?.taskTtl === undefined ? undefined : millis(options.taskTtl, 0) || undefined
    } as const
    const sendPlanned = (support: TaskSupport | undefined): Effect.Effect<Created, CallToolError> => {
      const plan = era.tasks.plan({ ...call, support })
      switch (plan._tag) {
        case "Refuse":
          return Effect.fail(plan.error)
        case "ListFirst":
          // The tool's task support is not known yet: list the tools once (a tool still unlisted is a plain call).
          return Effect.ignore(context.listTools).pipe(
            Effect.andThen(Effect.suspend(() => sendPlanned(context.support(name) ?? "forbidden")))
          )
        case "Send":
          return Effect.flatMap(context.request("tools/call", plan.params, options), era.tasks.created)
      }
    }
    return sendPlanned(context.support(name))
  }

  /** Waits for a task the call became, within the call's deadline; the deadline or an interruption cancels it. */
  const awaitTask = (
    name: string,
    created: Extract<Created, { _tag: "Task" }>,
    options: ToolCallOptions | undefined,
    startedAt: number
  ): Effect.Effect<CallToolResult, CallToolError> => {
    const deadline = taskDeadline(options)
    // Following starts without a gap (uninterruptible: it only sets up and forks the poll loop), and from then on an
    // interruption (the caller's, or the deadline's) cancels the task.
    const waited = Effect.scoped(Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        TaskWatch.follow(watchContext, created.observed, {
          decodeResult: context.decodeResult(name),
          immediateResponse: created.immediateResponse,
          onStatus: options?.onTaskStatus
        }),
        (handle) =>
          restore(handle.result).pipe(
            Effect.onInterrupt(() =>
              Effect.sync(() =>
                context.background(Effect.ignore(Effect.timeout(handle.cancel, context.requestTimeoutMs)))
              )
            )
          )
      )
    ))
    if (deadline === Infinity) return waited
    const left = Math.max(0, deadline - (context.now() - startedAt))
    return Effect.timeoutOrElse(waited, {
      duration: left,
      orElse: () => Effect.fail(new RequestTimeout({ server, method: "tools/call", timeoutMs: deadline }))
    })
  }

  /** `callTool`: a plain call, or a task followed to its end. */
  const callTool = (
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    options: ToolCallOptions | undefined
  ): Effect.Effect<CallToolResult, CallToolError> =>
    context.whenReady(
      () => new ErrIndexBuilding({ server, tool: name }),
      options,
      (session, era) => {
        const startedAt = context.now()
        return Effect.flatMap(send_(session, era, name, args, options), (created) =>
          created._tag === "Result"
            ? context.decodeResult(name)(created.raw)
            : awaitTask(name, created, options, startedAt))
      }
    )

  /** A handle on the task `taskId`, from its state now. */
  const followed = (
    protocol: TaskProtocol,
    taskId: string,
    tool: string | undefined,
    onStatus: ((task: Task) => Effect.Effect<void>) | undefined
  ) =>
    protocol.get(send, taskId, undefined).pipe(
      Effect.catchIf(
        isUnknownTask,
        (error) =>
          Effect.fail(
            new TaskLost({ server, taskId, reason: `the server does not know it (${error.message})`, remote: false })
          )
      ),
      Effect.flatMap((observed) =>
        TaskWatch.follow(watchContext, observed, { decodeResult: context.decodeResult(tool), onStatus })
      )
    )

  const methods: TaskMethods = {
    getTask: (taskId, options) =>
      gated("tasks/get", options, (protocol) =>
        Effect.map(
          protocol.get((method, params) => context.request(method, params, options), taskId, undefined),
          (observed) => scrubTask(observed.task)
        )),
    taskResult: (taskId, options) =>
      gated("tasks/result", options, (protocol) => {
        const timeoutMs = options?.timeout === undefined ? Infinity : millis(options.timeout, Infinity)
        const waited: Effect.Effect<CallToolResult, CallToolError> = Option.match(protocol.result, {
          onSome: (result) => Effect.flatMap(result(unbounded, taskId), context.decodeResult(undefined)),
          onNone: () =>
            Effect.scoped(Effect.flatMap(followed(protocol, taskId, undefined, undefined), (handle) => handle.result))
        })
        return timeoutMs === Infinity ? waited : Effect.timeoutOrElse(waited, {
          duration: timeoutMs,
          orElse: () => Effect.fail(new RequestTimeout({ server, method: "tasks/result", timeoutMs }))
        })
      }),
    listTasks: (options) =>
      gated("tasks/list", options, (protocol) =>
        Effect.suspend(() => {
          const tasks: Array<Task> = []
          const skipped: Array<TaskList["skipped"][number]> = []
          return CursorLoop.collect({
            server,
            method: "tasks/list",
            maxPages: context.maxPages,
            endsList: context.era().endsList,
            fetch: (params) => protocol.list((method, body) => context.request(method, body, options), params),
            page: (raw) => {
              const decoded = decodeListPage(raw)
              return Exit.isSuccess(decoded)
                ? Exit.succeed({ items: decoded.value.tasks, nextCursor: decoded.value.nextCursor })
                : Exit.fail(
                  new ProtocolError({
                    server,
                    method: "tasks/list",
                    detail: context.scrub(schemaDetail(decoded.cause))
                  })
                )
            },
            onItems: (items) => {
              for (const item of items) {
                const observed = protocol.notified(item)
                if (observed !== undefined) tasks.push(scrubTask(observed.task))
                else {
                  const id = TaskRouter.taskIdOf(item)
                  skipped.push({
                    index: tasks.length + skipped.length,
                    name: id === undefined ? undefined : context.scrub(id),
                    reason: "it is not a task (taskId, status, createdAt and lastUpdatedAt are required)"
                  })
                }
              }
            }
          }).pipe(Effect.map((pages): TaskList => ({ tasks, skipped, pages })))
        })),
    cancelTask: (taskId, options) =>
      gated("tasks/cancel", options, (protocol) =>
        Effect.map(
          protocol.cancel((method, params) => context.request(method, params, options), taskId, undefined),
          Option.map((observed: Observed) => scrubTask(observed.task))
        )),
    taskStatus: (taskId) =>
      context.notifications.pipe(
        Stream.filterMap((notification) => {
          if (notification.method !== TaskRouter.STATUS) return Result.failVoid
          const observed = context.era().tasks.notified(notification.params)
          return observed === undefined || (taskId !== undefined && observed.task.taskId !== taskId)
            ? Result.failVoid
            : Result.succeed(scrubTask(observed.task))
        })
      ),
    startTool: (name, args, options) =>
      context.whenReady(
        () => new ErrIndexBuilding({ server, tool: name }),
        options,
        (session, era) =>
          Effect.flatMap(
            send_(session, era, name, args, options),
            (created): Effect.Effect<TaskTypes.Started<CallToolError>, CallToolError, Scope.Scope> =>
              created._tag === "Result"
                ? Effect.map(context.decodeResult(name)(created.raw), (result) => ({ _tag: "Result", result }))
                : Effect.map(
                  TaskWatch.follow(watchContext, created.observed, {
                    decodeResult: context.decodeResult(name),
                    immediateResponse: created.immediateResponse,
                    onStatus: options?.onTaskStatus
                  }),
                  (handle) => ({ _tag: "Task", handle })
                )
          )
      ),
    followTask: (taskId, options) =>
      gated("tasks/get", options, (protocol) => followed(protocol, taskId, options?.tool, options?.onTaskStatus))
  }

  return { methods, callTool }
}
