/**
 * What an era says about tasks, as one value per era (`Era.tasks`): how a `tools/call` asks for a task, how its
 * answer and a task's state read on the wire, what a task's status asks of the client next, and how it is
 * cancelled and listed. `LegacyTasks` is 2025-11-25's experimental form (SEP-1686), `ModernTasks` 2026-07-28's
 * extension (SEP-2663). `Tasks` (the session's part) and `TaskWatch` (one followed task) speak only this interface.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { CapabilityNotSupported, InitializeError, NotReady, ProtocolError } from "../McpError.ts"
import type { ServerSession } from "../Protocol.ts"
import type { TaskCancelled, TaskUnsupported } from "../TaskError.ts"
import type { Task, TaskMode, TaskSupport } from "../Tasks.ts"

/** What a task request can fail with: the request's error, or the session's end (it goes through the readiness gate). */
export type RequestError = InitializeError | NotReady

/** One request for a task, sent by the session (readiness-gated; `timeoutMs` absent: the client's request timeout). */
export type Send = (method: string, params: unknown, timeoutMs?: number) => Effect.Effect<unknown, RequestError>

/** A task as one answer or notification showed it, with what its era carries besides. */
export interface Observed {
  readonly task: Task
  /** 2026-07-28: the opaque state the server asks to be echoed on the next request for the task. */
  readonly requestState?: string | undefined
  /** 2026-07-28: a completed task's result, inline. */
  readonly result?: unknown
  /** 2026-07-28: a failed task's JSON-RPC error, inline. */
  readonly error?: unknown
  /** 2026-07-28: what an `input_required` task asks of the client, by key. */
  readonly inputRequests?: Readonly<Record<string, unknown>> | undefined
}

/** What a `tools/call` answer is: a plain result, or a task created. */
export type Created =
  | { readonly _tag: "Result"; readonly raw: unknown }
  | { readonly _tag: "Task"; readonly observed: Observed; readonly immediateResponse: string | undefined }

/** How a `tools/call` goes out. */
export type Plan =
  /** Send these params; the answer may be a task (`created` reads it). */
  | { readonly _tag: "Send"; readonly params: unknown }
  /** The call cannot run as asked: nothing is sent. */
  | { readonly _tag: "Refuse"; readonly error: CapabilityNotSupported | TaskUnsupported }
  /** Whether the tool runs as a task is not known yet: list the tools, then plan again. */
  | { readonly _tag: "ListFirst" }

/** What a task's status asks of the client next. */
export type Step =
  | { readonly _tag: "Poll" }
  /** The underlying call's result (a `CallToolResult` still to decode). */
  | { readonly _tag: "Result"; readonly raw: unknown }

/** One `tools/call` to plan. */
export interface Call {
  readonly session: ServerSession
  readonly name: string
  readonly args: Readonly<Record<string, unknown>> | undefined
  readonly mode: TaskMode
  /** The tool's `execution.taskSupport` from the last listing; `undefined`: not listed. */
  readonly support: TaskSupport | undefined
  /** The lifetime asked for the task, in milliseconds. */
  readonly ttlMs: number | undefined
}

/** One era's tasks. */
export interface TaskProtocol {
  /** Whether the server runs `tools/call` as tasks at all (2025-11-25: the capability; 2026-07-28: the extension). */
  readonly offered: (session: ServerSession) => boolean
  readonly plan: (call: Call) => Plan
  /** Reads a `tools/call` answer. */
  readonly created: (raw: unknown) => Effect.Effect<Created, ProtocolError>
  /** `tasks/get`. */
  readonly get: (send: Send, taskId: string, requestState: string | undefined) => Effect.Effect<Observed, RequestError>
  /** Reads `notifications/tasks/status` params; `undefined` when they do not describe a task. */
  readonly notified: (params: unknown) => Observed | undefined
  /**
   * What the status asks next: keep polling (after answering the input it asks for, `answered` holding the keys
   * already answered), or the call's result (fetched when the era does not carry it inline).
   */
  readonly settle: (
    send: Send,
    observed: Observed,
    answered: Set<string>
  ) => Effect.Effect<Step, RequestError | TaskCancelled>
  /** `tasks/cancel`: the task as the server says it is then (2025-11-25), or nothing (2026-07-28 only acknowledges). */
  readonly cancel: (
    send: Send,
    taskId: string,
    requestState: string | undefined
  ) => Effect.Effect<Option.Option<Observed>, RequestError>
  /** One page of `tasks/list` (2026-07-28 has none: `NotInEra`). */
  readonly list: (send: Send, params: { readonly cursor?: string }) => Effect.Effect<unknown, RequestError>
  /** `tasks/result`, which waits for the end (2025-11-25), or none: the result comes with `tasks/get` (2026-07-28). */
  readonly result: Option.Option<(send: Send, taskId: string) => Effect.Effect<unknown, RequestError>>
  /** What `method` needs the server to declare, when it does not: the typed methods check it before sending. */
  readonly requires: (session: ServerSession, method: string) => CapabilityNotSupported | undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The object at `path` in `value`, when every step is an object. */
export const objectAt = (value: unknown, path: ReadonlyArray<string>): Record<string, unknown> | undefined => {
  let at: unknown = value
  for (const key of path) at = isRecord(at) && Object.hasOwn(at, key) ? at[key] : undefined
  return isRecord(at) ? at : undefined
}

/** Whether `value` is a JSON object. */
export const isObject = isRecord
