/**
 * Tasks as 2026-07-28 defines them: the `io.modelcontextprotocol/tasks` extension (SEP-2663). The client declares
 * the extension in every request's capabilities and the server decides, call by call, whether a `tools/call` becomes
 * a task (`resultType: "task"`, the task's fields inline, `ttlSeconds` and `pollIntervalMilliseconds`). `tasks/get`
 * carries everything: the result of a completed task, the JSON-RPC error of a failed one, the input an
 * `input_required` one asks for (answered with `tasks/update`); an opaque `requestState` is echoed on the next request
 * for the task. `tasks/cancel` and `tasks/update` are only acknowledged; there is no `tasks/list` and no
 * `tasks/result`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { NotInEra } from "../EraError.ts"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import { CapabilityNotSupported, ProtocolError, RemoteError } from "../McpError.ts"
import type { ServerSession } from "../Protocol.ts"
import { TaskCancelled } from "../TaskError.ts"
import type { Task } from "../Tasks.ts"
import { TaskStatus } from "../Tasks.ts"
import { CLIENT_CAPABILITIES } from "./Meta.ts"
import * as Mrtr from "./Mrtr.ts"
import type { Observed, Send, Step, TaskProtocol } from "./TaskProtocol.ts"
import { isObject, objectAt } from "./TaskProtocol.ts"

/** The extension's identifier, in `capabilities.extensions`. */
export const EXTENSION = "io.modelcontextprotocol/tasks"

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/** A task (a `DetailedTask`) on the 2026-07-28 wire. */
const WireTask = Schema.StructWithRest(
  Schema.Struct({
    taskId: Schema.String,
    status: TaskStatus,
    statusMessage: Schema.optionalKey(Schema.String),
    createdAt: Schema.String,
    lastUpdatedAt: Schema.String,
    ttlSeconds: Schema.optionalKey(Schema.NullOr(Schema.Number)),
    pollIntervalMilliseconds: Schema.optionalKey(Schema.Number),
    requestState: Schema.optionalKey(Schema.String),
    result: Schema.optionalKey(Schema.Unknown),
    error: Schema.optionalKey(Schema.Unknown),
    inputRequests: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
  }),
  Rest
)
const decodeTask = Schema.decodeUnknownExit(WireTask)

/** A JSON-RPC error object, as a failed task carries it. */
const WireError = Schema.StructWithRest(
  Schema.Struct({ code: Schema.Number, message: Schema.String, data: Schema.optionalKey(Schema.Unknown) }),
  Rest
)
const decodeError = Schema.decodeUnknownExit(WireError)

const toObserved = (wire: typeof WireTask.Type): Observed => {
  const task: Task = {
    taskId: wire.taskId,
    status: wire.status,
    createdAt: wire.createdAt,
    lastUpdatedAt: wire.lastUpdatedAt,
    ...(wire.statusMessage !== undefined ? { statusMessage: wire.statusMessage } : {}),
    ...(wire.ttlSeconds !== undefined ? { ttlMs: wire.ttlSeconds === null ? null : wire.ttlSeconds * 1000 } : {}),
    ...(wire.pollIntervalMilliseconds !== undefined ? { pollIntervalMs: wire.pollIntervalMilliseconds } : {})
  }
  return {
    task,
    ...(wire.requestState !== undefined ? { requestState: wire.requestState } : {}),
    ...("result" in wire ? { result: wire.result } : {}),
    ...("error" in wire ? { error: wire.error } : {}),
    ...(wire.inputRequests !== undefined ? { inputRequests: wire.inputRequests } : {})
  }
}

/** `capabilities` with the tasks extension added (what a modern request declares). */
export const declare = (capabilities: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => ({
  ...capabilities,
  extensions: { ...objectAt(capabilities, ["extensions"]), [EXTENSION]: {} }
})

/** `capabilities` without the tasks extension (a call that must not become a task). */
const withoutExtension = (capabilities: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  const { [EXTENSION]: _, ...extensions } = objectAt(capabilities, ["extensions"]) ?? {}
  const { extensions: __, ...rest } = capabilities
  return Object.keys(extensions).length === 0 ? rest : { ...rest, extensions }
}

/** What the tasks need of their session. */
export interface Parts {
  readonly server: string
  readonly protocolVersion: string
  /** The capabilities every request of the session declares (the extension among them). */
  readonly capabilities: Readonly<Record<string, unknown>>
  /** Answers what an `input_required` task asks (the client's handlers, as for `input_required` results). */
  readonly answer: Mrtr.Answer | undefined
  readonly scrub: (text: string) => string
  readonly scrubValue: (value: unknown) => unknown
}

const withState = (params: Record<string, unknown>, requestState: string | undefined) =>
  requestState === undefined ? params : { ...params, requestState }

/** The tasks of a 2026-07-28 session. */
export const make = (parts: Parts): TaskProtocol => {
  const { scrub, server } = parts
  const read = (method: string) => (raw: unknown): Effect.Effect<Observed, ProtocolError> => {
    const decoded = decodeTask(raw)
    return Exit.isSuccess(decoded)
      ? Effect.succeed(toObserved(decoded.value))
      : Effect.fail(new ProtocolError({ server, method, detail: scrub(schemaDetail(decoded.cause)) }))
  }
  const get = (send: Send, taskId: string, requestState: string | undefined) =>
    Effect.flatMap(send("tasks/get", withState({ taskId }, requestState)), read("tasks/get"))
  /** A terminal status seen without its payload (a notification that left it out): `tasks/get` has it. */
  const complete = (send: Send, observed: Observed, field: "result" | "error") =>
    field in observed
      ? Effect.succeed(observed)
      : Effect.flatMap(get(send, observed.task.taskId, observed.requestState), (fetched) =>
        field in fetched
          ? Effect.succeed(fetched)
          : Effect.fail(
            new ProtocolError({
              server,
              method: "tasks/get",
              detail: `a ${fetched.task.status} task carries no ${field}`
            })
          ))
  const failure = (error: unknown): Effect.Effect<never, RemoteError | ProtocolError> => {
    const decoded = decodeError(error)
    if (Exit.isFailure(decoded)) {
      return Effect.fail(
        new ProtocolError({
          server,
          method: "tasks/get",
          detail: `a failed task's error: ${scrub(schemaDetail(decoded.cause))}`
        })
      )
    }
    const { code, data, message } = decoded.value
    return Effect.fail(
      new RemoteError({
        server,
        method: "tools/call",
        code,
        remoteMessage: scrub(message),
        ...(data !== undefined ? { data: parts.scrubValue(data) } : {})
      })
    )
  }

  return {
    offered: (session: ServerSession) => objectAt(session.capabilities, ["extensions", EXTENSION]) !== undefined,
    plan: ({ args, mode, name, session }) => {
      const params = { name, arguments: args ?? {} }
      if (mode === "never") {
        return {
          _tag: "Send",
          params: { ...params, _meta: { [CLIENT_CAPABILITIES]: withoutExtension(parts.capabilities) } }
        }
      }
      if (mode === "always" && objectAt(session.capabilities, ["extensions", EXTENSION]) === undefined) {
        return {
          _tag: "Refuse",
          error: new CapabilityNotSupported({ server, method: "tools/call", capability: `extensions.${EXTENSION}` })
        }
      }
      return { _tag: "Send", params }
    },
    created: (raw) =>
      isObject(raw) && raw["resultType"] === "task"
        ? Effect.map(read("tools/call")(raw), (observed) => ({ _tag: "Task", observed, immediateResponse: undefined }))
        : Effect.succeed({ _tag: "Result", raw }),
    get,
    notified: (params) => {
      const decoded = decodeTask(params)
      return Exit.isSuccess(decoded) ? toObserved(decoded.value) : undefined
    },
    settle: (send, observed, answered) => {
      const { task } = observed
      switch (task.status) {
        case "working":
          return Effect.succeed({ _tag: "Poll" })
        case "completed":
          return Effect.map(complete(send, observed, "result"), (done) => ({ _tag: "Result", raw: done.result }))
        case "failed":
          return Effect.flatMap(complete(send, observed, "error"), (done) => failure(done.error))
        case "cancelled":
          return Effect.fail(
            new TaskCancelled({
              server,
              taskId: task.taskId,
              ...(task.statusMessage !== undefined ? { statusMessage: scrub(task.statusMessage) } : {})
            })
          )
        case "input_required": {
          const fresh = Object.entries(observed.inputRequests ?? {}).filter(([key]) => !answered.has(key))
          if (fresh.length === 0) return Effect.succeed({ _tag: "Poll" })
          return Mrtr.answerAll(
            { server, method: "tools/call", capabilities: parts.capabilities, answer: parts.answer },
            { inputRequests: Object.fromEntries(fresh) }
          ).pipe(
            Effect.flatMap(({ inputResponses }) =>
              send("tasks/update", withState({ taskId: task.taskId, inputResponses }, observed.requestState))
            ),
            Effect.map((): Step => {
              for (const [key] of fresh) answered.add(key)
              return { _tag: "Poll" }
            })
          )
        }
      }
    },
    cancel: (send, taskId, requestState) =>
      Effect.as(send("tasks/cancel", withState({ taskId }, requestState)), Option.none()),
    list: () => Effect.fail(new NotInEra({ server, method: "tasks/list", protocolVersion: parts.protocolVersion })),
    result: Option.none(),
    requires: () => undefined
  }
}
