/**
 * An in-memory MCP server with tasks (2025-11-25, SEP-1686), for `McpPeer`: it declares the `tasks` capability, lists
 * a tool `job` (its `execution.taskSupport` as asked) and a plain tool `plain`, creates a task for each
 * task-augmented `tools/call`, and answers `tasks/get`, `tasks/result` (held until the task ends, as the spec says),
 * `tasks/list` and `tasks/cancel`. The test moves each task (`move`), with or without a
 * `notifications/tasks/status`, and reads every request the peer received with the test clock's time (`requests`).
 *
 * @example
 * ```ts
 * import { McpPeer, TaskPeer } from "@mcp-fleet/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const tasks = TaskPeer.make({ pollInterval: 5_000 })
 *   const layer = McpPeer.layer(tasks.script, tasks.frames)
 *   // … call "job", then: const id = yield* tasks.created(); yield* tasks.move(id, "completed")
 * })
 * ```
 *
 * @since 0.5.0
 */
import { Clock, Deferred, Effect, Exit } from "effect"
import type * as FakeSpawner from "./FakeSpawner.ts"
import type * as McpPeer from "./McpPeer.ts"

/**
 * A task status (2025-11-25).
 *
 * @since 0.5.0
 * @category models
 */
export type Status = "working" | "input_required" | "completed" | "failed" | "cancelled"

/**
 * How the peer behaves.
 *
 * @since 0.5.0
 * @category models
 */
export interface Options {
  /** The `pollInterval` its tasks suggest, in milliseconds; absent: none. */
  readonly pollInterval?: number | undefined
  /** The `ttl` its tasks say (milliseconds, `null`: for ever); absent: none. Default absent. */
  readonly ttl?: number | null | undefined
  /** `job`'s `execution.taskSupport`; `"absent"` leaves `execution` out. Default `required`. */
  readonly taskSupport?: "required" | "optional" | "forbidden" | "absent" | undefined
  /** The `tasks` capability it declares; `false`: none. Default `{ list, cancel, requests.tools.call }`. */
  readonly capability?: Readonly<Record<string, unknown>> | false | undefined
  /** `job`'s `outputSchema`; absent: none. */
  readonly outputSchema?: Readonly<Record<string, unknown>> | undefined
}

/**
 * A request the peer received, with the test clock's time when it did.
 *
 * @since 0.5.0
 * @category models
 */
export interface Received {
  readonly method: string
  readonly params: Record<string, unknown>
  readonly at: number
}

/**
 * One task the peer holds.
 *
 * @since 0.5.0
 * @category models
 */
export interface Held {
  readonly taskId: string
  status: Status
  statusMessage: string | undefined
  lastUpdatedAt: string
  /** What `tasks/result` answers once the task ends: a result, or a JSON-RPC error. */
  outcome: { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } }
  /** The ids of the `tasks/result` requests waiting for the end. */
  readonly waiting: Array<unknown>
}

/**
 * The peer and its controls.
 *
 * @since 0.5.0
 * @category models
 */
export interface TaskPeer {
  /** The `McpPeer` script (`initialize` with the capability, every request answered). */
  readonly script: McpPeer.Script
  /** Every frame the peer received (for `McpPeer.awaitMethod`). */
  readonly frames: Array<unknown>
  /** Every request the peer received, in order, with the clock's time. */
  readonly requests: () => ReadonlyArray<Received>
  /** Waits until the peer has created `n` tasks (default 1) and returns the id of the `n`-th. */
  readonly created: (n?: number) => Effect.Effect<string>
  /** Waits until the peer has handled `n` requests of `method` (default 1): their effects are done. */
  readonly handled: (method: string, n?: number) => Effect.Effect<void>
  /** A task the peer holds. */
  readonly task: (taskId: string) => Held | undefined
  /**
   * Moves a task to `status` (a terminal one answers the `tasks/result` requests waiting for it), with a
   * `notifications/tasks/status` when `notify`. `completed` answers `result` (default: a text `done <taskId>`);
   * `failed` answers `error` when given, else an `isError` result.
   */
  readonly move: (
    taskId: string,
    status: Status,
    options?: {
      readonly statusMessage?: string | undefined
      readonly result?: unknown
      readonly error?: { readonly code: number; readonly message: string } | undefined
      readonly notify?: boolean | undefined
    }
  ) => Effect.Effect<void>
  /** Forgets every task, as a restarted server does: each is then unknown (`-32602`). */
  readonly forget: () => void
  /** Answers the next `count` `tasks/get` with this JSON-RPC error instead (a server in trouble). */
  readonly failGets: (count: number, error: { readonly code: number; readonly message: string }) => void
}

const DEFAULT_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isTerminal = (status: Status) => status === "completed" || status === "failed" || status === "cancelled"

/**
 * A task peer.
 *
 * @since 0.5.0
 * @category constructors
 */
export const make = (options: Options = {}): TaskPeer => {
  const frames: Array<unknown> = []
  const requests: Array<Received> = []
  const held = new Map<string, Held>()
  const order: Array<string> = []
  const waiters = new Set<() => void>()
  const wakeAll = () => {
    for (const wake of [...waiters]) wake()
  }
  /** Waits until `ready()` gives a value: checked now, then after each request the peer handled. */
  const until = <A>(ready: () => A | undefined): Effect.Effect<A> =>
    Effect.suspend(() => {
      const now = ready()
      if (now !== undefined) return Effect.succeed(now)
      const done = Deferred.makeUnsafe<A>()
      const wake = () => {
        const value = ready()
        if (value !== undefined) Deferred.doneUnsafe(done, Exit.succeed(value))
      }
      waiters.add(wake)
      return Deferred.await(done).pipe(Effect.ensuring(Effect.sync(() => waiters.delete(wake))))
    })
  const failing: Array<{ readonly code: number; readonly message: string }> = []
  let current: FakeSpawner.Peer | undefined
  let clock = 0

  const stamp = () => `2026-01-01T00:00:${String(clock++ % 60).padStart(2, "0")}.000Z`
  const wire = (task: Held) => ({
    taskId: task.taskId,
    status: task.status,
    createdAt: "2026-01-01T00:00:00.000Z",
    lastUpdatedAt: task.lastUpdatedAt,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    ...(options.ttl !== undefined ? { ttl: options.ttl } : {}),
    ...(options.pollInterval !== undefined ? { pollInterval: options.pollInterval } : {})
  })
  const error = (id: unknown, code: number, message: string) => ({ jsonrpc: "2.0", id, error: { code, message } })
  const answer = (peer: FakeSpawner.Peer, id: unknown, task: Held) =>
    peer.send(
      "result" in task.outcome
        ? { jsonrpc: "2.0", id, result: task.outcome.result }
        : error(id, task.outcome.error.code, task.outcome.error.message)
    )

  const tools = () => [
    {
      name: "job",
      inputSchema: { type: "object" },
      ...(options.outputSchema === undefined ? {} : { outputSchema: options.outputSchema }),
      ...(options.taskSupport === "absent" ? {} : { execution: { taskSupport: options.taskSupport ?? "required" } })
    },
    { name: "plain", inputSchema: { type: "object" } }
  ]

  const onRequest = (msg: McpPeer.Message, peer: FakeSpawner.Peer): Effect.Effect<unknown> =>
    Effect.ensuring(handle(msg, peer), Effect.sync(wakeAll))

  const handle = (msg: McpPeer.Message, peer: FakeSpawner.Peer): Effect.Effect<unknown> =>
    Effect.gen(function*() {
      current = peer
      const method = String(msg.method)
      const params = isRecord(msg.params) ? msg.params : {}
      requests.push({ method, params, at: yield* Clock.currentTimeMillis })
      const taskId = typeof params["taskId"] === "string" ? params["taskId"] : ""
      const task = held.get(taskId)
      switch (method) {
        case "tools/list":
          return { tools: tools() }
        case "tools/call": {
          if (params["name"] === "plain") return { content: [{ type: "text", text: "plain" }] }
          if (!isRecord(params["task"])) {
            if ((options.taskSupport ?? "required") === "required") {
              yield* peer.send(error(msg.id, -32601, "job requires task augmentation"))
              return undefined
            }
            return { content: [{ type: "text", text: "job ran without a task" }] }
          }
          const id = `task-${order.length + 1}`
          const created: Held = {
            taskId: id,
            status: "working",
            statusMessage: undefined,
            lastUpdatedAt: stamp(),
            outcome: { result: { content: [{ type: "text", text: `done ${id}` }] } },
            waiting: []
          }
          held.set(id, created)
          order.push(id)
          return { task: wire(created) }
        }
        case "tasks/get": {
          const failure = failing.shift()
          if (failure !== undefined) {
            yield* peer.send(error(msg.id, failure.code, failure.message))
            return undefined
          }
          if (task === undefined) {
            yield* peer.send(error(msg.id, -32602, "Failed to retrieve task: Task not found"))
            return undefined
          }
          return wire(task)
        }
        case "tasks/result":
          if (task === undefined) {
            yield* peer.send(error(msg.id, -32602, "Failed to retrieve task: Task not found"))
            return undefined
          }
          if (isTerminal(task.status)) yield* answer(peer, msg.id, task)
          else task.waiting.push(msg.id)
          return undefined
        case "tasks/list":
          return { tasks: order.flatMap((id) => held.has(id) ? [wire(held.get(id)!)] : []) }
        case "tasks/cancel":
          if (task === undefined || isTerminal(task.status)) {
            yield* peer.send(error(msg.id, -32602, `Cannot cancel task: ${task?.status ?? "not found"}`))
            return undefined
          }
          task.status = "cancelled"
          task.statusMessage = "cancelled by request"
          task.lastUpdatedAt = stamp()
          task.outcome = { error: { code: -32603, message: "the task was cancelled" } }
          for (const id of task.waiting.splice(0)) yield* answer(peer, id, task)
          return wire(task)
        default:
          yield* peer.send(error(msg.id, -32601, `unknown method ${method}`))
          return undefined
      }
    })

  return {
    script: {
      initialize: {
        capabilities: {
          tools: {},
          ...(options.capability === false ? {} : { tasks: options.capability ?? DEFAULT_CAPABILITY })
        }
      },
      onRequest
    },
    frames,
    requests: () => requests,
    created: (n = 1) => until(() => order[n - 1]),
    handled: (method, n = 1) =>
      until(() => requests.filter((r) => r.method === method).length >= n ? true : undefined).pipe(Effect.asVoid),
    task: (taskId) => held.get(taskId),
    move: (taskId, status, moveOptions = {}) =>
      Effect.gen(function*() {
        const task = held.get(taskId)
        if (task === undefined) return
        task.status = status
        task.statusMessage = moveOptions.statusMessage
        task.lastUpdatedAt = stamp()
        if (status === "completed" && moveOptions.result !== undefined) task.outcome = { result: moveOptions.result }
        if (status === "failed") {
          task.outcome = moveOptions.error !== undefined
            ? { error: moveOptions.error }
            : { result: { content: [{ type: "text", text: `failed ${taskId}` }], isError: true } }
        }
        const peer = current
        if (peer === undefined) return
        if (moveOptions.notify === true) {
          yield* peer.send({ jsonrpc: "2.0", method: "notifications/tasks/status", params: wire(task) })
        }
        if (isTerminal(status)) { for (const id of task.waiting.splice(0)) yield* answer(peer, id, task) }
      }),
    forget: () => {
      held.clear()
    },
    failGets: (count, failure) => {
      for (let i = 0; i < count; i++) failing.push(failure)
    }
  }
}
