/**
 * Tasks as 2025-11-25 defines them (experimental, SEP-1686): the server declares `tasks.requests.tools.call` (and
 * `tasks.list`, `tasks.cancel`), each tool its `execution.taskSupport`; the client asks for a task with `task: {
 * ttl? }` in the `tools/call` params and gets `{ task }` back; `tasks/get` says where it is (`ttl` and `pollInterval`
 * in milliseconds); `tasks/result` waits for its end and answers exactly what the call would have (a result or a
 * JSON-RPC error). At `input_required` the client calls `tasks/result` at once: the server sends its requests
 * (elicitation, sampling) while that call waits, and the client's handlers answer them as any server request.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import { CapabilityNotSupported, ProtocolError } from "../McpError.ts"
import type { ServerSession } from "../Protocol.ts"
import { TaskCancelled, TaskUnsupported } from "../TaskError.ts"
import type { Task } from "../Tasks.ts"
import { TaskStatus } from "../Tasks.ts"
import type { Observed, Send, TaskProtocol } from "./TaskProtocol.ts"
import { isObject, objectAt } from "./TaskProtocol.ts"

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/** A `Task` on the 2025-11-25 wire. */
const WireTask = Schema.StructWithRest(
  Schema.Struct({
    taskId: Schema.String,
    status: TaskStatus,
    statusMessage: Schema.optionalKey(Schema.String),
    createdAt: Schema.String,
    lastUpdatedAt: Schema.String,
    ttl: Schema.optionalKey(Schema.NullOr(Schema.Number)),
    pollInterval: Schema.optionalKey(Schema.Number)
  }),
  Rest
)
const decodeTask = Schema.decodeUnknownExit(WireTask)

/** The `_meta` key of the text a server offers as an immediate tool answer while the task runs. */
const IMMEDIATE_RESPONSE = "io.modelcontextprotocol/model-immediate-response"

const toTask = (wire: typeof WireTask.Type): Task => ({
  taskId: wire.taskId,
  status: wire.status,
  createdAt: wire.createdAt,
  lastUpdatedAt: wire.lastUpdatedAt,
  ...(wire.statusMessage !== undefined ? { statusMessage: wire.statusMessage } : {}),
  ...(wire.ttl !== undefined ? { ttlMs: wire.ttl } : {}),
  ...(wire.pollInterval !== undefined ? { pollIntervalMs: wire.pollInterval } : {})
})

/** The capability each task method needs the server to declare. */
const NEEDS: Readonly<Record<string, ReadonlyArray<string>>> = {
  "tasks/get": ["tasks"],
  "tasks/result": ["tasks"],
  "tasks/list": ["tasks", "list"],
  "tasks/cancel": ["tasks", "cancel"]
}

/** What the tasks need of their session. */
export interface Parts {
  readonly server: string
  readonly scrub: (text: string) => string
}

/** The tasks of a 2025-11-25 session. */
export const make = (parts: Parts): TaskProtocol => {
  const { scrub, server } = parts
  const read = (method: string) => (raw: unknown): Effect.Effect<Observed, ProtocolError> => {
    const decoded = decodeTask(raw)
    return Exit.isSuccess(decoded)
      ? Effect.succeed({ task: toTask(decoded.value) })
      : Effect.fail(new ProtocolError({ server, method, detail: scrub(schemaDetail(decoded.cause)) }))
  }
  const offered = (session: ServerSession) =>
    objectAt(session.capabilities, ["tasks", "requests", "tools", "call"]) !== undefined
  const resultOf = (send: Send, taskId: string, timeoutMs?: number) => send("tasks/result", { taskId }, timeoutMs)

  return {
    offered,
    plan: ({ args, mode, name, session, support, ttlMs }) => {
      const plain = { _tag: "Send", params: { name, arguments: args ?? {} } } as const
      const task = {
        _tag: "Send",
        params: { name, arguments: args ?? {}, task: ttlMs === undefined ? {} : { ttl: ttlMs } }
      } as const
      if (mode === "never") return plain
      if (!offered(session)) {
        return mode === "auto" ? plain : {
          _tag: "Refuse",
          error: new CapabilityNotSupported({ server, method: "tools/call", capability: "tasks.requests.tools.call" })
        }
      }
      if (support === undefined) return mode === "auto" ? { _tag: "ListFirst" } : task
      if (support === "forbidden") {
        return mode === "auto" ? plain : { _tag: "Refuse", error: new TaskUnsupported({ server, tool: name }) }
      }
      return task
    },
    created: (raw) => {
      const task = isObject(raw) ? raw["task"] : undefined
      if (task === undefined) return Effect.succeed({ _tag: "Result", raw })
      const immediate = objectAt(raw, ["_meta"])?.[IMMEDIATE_RESPONSE]
      return Effect.map(read("tools/call")(task), (observed) => ({
        _tag: "Task",
        observed,
        immediateResponse: typeof immediate === "string" ? immediate : undefined
      }))
    },
    get: (send, taskId) => Effect.flatMap(send("tasks/get", { taskId }), read("tasks/get")),
    notified: (params) => {
      const decoded = decodeTask(params)
      return Exit.isSuccess(decoded) ? { task: toTask(decoded.value) } : undefined
    },
    settle: (send, { task }) => {
      switch (task.status) {
        case "working":
          return Effect.succeed({ _tag: "Poll" })
        case "input_required":
          // The server sends what it needs while tasks/result waits for the end (the spec's flow): no deadline of
          // its own, the caller's bounds it.
          return Effect.map(resultOf(send, task.taskId, Infinity), (raw) => ({ _tag: "Result", raw }))
        case "completed":
        case "failed":
          return Effect.map(resultOf(send, task.taskId), (raw) => ({ _tag: "Result", raw }))
        case "cancelled":
          return Effect.fail(
            new TaskCancelled({
              server,
              taskId: task.taskId,
              ...(task.statusMessage !== undefined ? { statusMessage: scrub(task.statusMessage) } : {})
            })
          )
      }
    },
    cancel: (send, taskId) =>
      Effect.flatMap(send("tasks/cancel", { taskId }), read("tasks/cancel")).pipe(Effect.map(Option.some)),
    list: (send, params) => send("tasks/list", params),
    result: Option.some((send, taskId) => resultOf(send, taskId, Infinity)),
    requires: (session, method) => {
      const path = NEEDS[method]
      return path === undefined || objectAt(session.capabilities, path) !== undefined
        ? undefined
        : new CapabilityNotSupported({ server, method, capability: path.join(".") })
    }
  }
}
