/**
 * What becomes of a call that runs as a task when its server restarts or reconnects (`McpManager/TaskResume.ts`):
 *
 * - stdio (in-memory processes, TestClock): the task lives in the process; a restart or an exit ends the waiting call
 *   at once with `TaskLost` (`remote: false`), with the clock unmoved: never a wait for a poll that cannot answer;
 * - Streamable HTTP (a real `node:http` server on 127.0.0.1 whose tasks outlive its sessions): a restart of the
 *   server's client ends the old session, and the call follows the same task on the new client to its result; a
 *   server that no longer knows the task ends the call with `TaskLost`.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { HttpPeer, McpPeer, TaskPeer } from "@mcp-fleet/testing"
import type { Tasks } from "@mcp-fleet/transport"
import { Cause, Clock, Context, Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import type * as Http from "node:http"
import { McpManager } from "../src/index.ts"
import { build } from "./fleetPeers.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const found = Cause.findErrorOption(exit.cause)
  if (Option.isNone(found)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.value
}

/** A call of `job` whose first task status completes `first` with the task's id. */
const callJob = (manager: McpManager.McpManager["Service"], server: string, first: Deferred.Deferred<string>) =>
  manager.call(server, "job", {}, {
    onTaskStatus: (task: Tasks.Task) => Effect.asVoid(Deferred.succeed(first, task.taskId))
  })

describe("a task when its stdio server restarts or exits", () => {
  it.effect("restart: the waiting call fails at once with TaskLost, not remote; nothing is resumed", () =>
    Effect.gen(function*() {
      const tasks = TaskPeer.make({ pollInterval: 60_000 })
      const manager = yield* build({ servers: { lab: { command: "lab" } } }, McpPeer.layer(tasks.script))
      yield* manager.waitForReady("lab")
      const first = yield* Deferred.make<string>()
      const call = yield* Effect.forkChild(callJob(manager, "lab", first))
      const taskId = yield* Deferred.await(first)
      yield* manager.restart("lab")
      const error = failureOf(yield* Fiber.await(call))
      assert.strictEqual(error._tag, "TaskLost")
      if (error._tag !== "TaskLost") return
      assert.strictEqual(error.taskId, taskId)
      assert.isFalse(error.remote)
      assert.strictEqual(yield* Clock.currentTimeMillis, 0, "no poll interval was waited out")
      assert.strictEqual(tasks.requests().filter((r) => r.method === "tasks/get").length, 0, "nothing resumed")
    }).pipe(Effect.scoped))

  it.effect("exit: the process dies under a waiting call: TaskLost at once, and the server goes offline", () =>
    Effect.gen(function*() {
      const tasks = TaskPeer.make({ pollInterval: 60_000 })
      const controlled = yield* McpPeer.controlled(tasks.script)
      const manager = yield* build({ servers: { lab: { command: "lab" } } }, controlled.layer)
      yield* manager.waitForReady("lab")
      const first = yield* Deferred.make<string>()
      const call = yield* Effect.forkChild(callJob(manager, "lab", first))
      yield* Deferred.await(first)
      yield* (yield* controlled.peer).exit(1)
      const error = failureOf(yield* Fiber.await(call))
      assert.strictEqual(error._tag, "TaskLost")
      assert.include(error.message, "exited with code 1")
      assert.strictEqual(yield* Clock.currentTimeMillis, 0)
    }).pipe(Effect.scoped))
})

/** A 2025-11-25 Streamable HTTP server whose tasks outlive its sessions (a task store of its own, as a service). */
const taskServer = () => {
  const tasks = new Map<string, { status: string; waiting: Array<() => void> }>()
  let created = 0
  const task = (taskId: string) => ({
    taskId,
    status: tasks.get(taskId)?.status ?? "working",
    createdAt: "2026-01-01T00:00:00Z",
    lastUpdatedAt: "2026-01-01T00:00:00Z",
    pollInterval: 20
  })
  const rpcError = (res: Http.ServerResponse, id: unknown, code: number, message: string) =>
    HttpPeer.json(res, { jsonrpc: "2.0", id, error: { code, message } })
  const peer = HttpPeer.mcpPeer({
    override: (request, res, state) => {
      const msg = request.message
      if (request.method !== "POST" || msg === undefined) return false
      if (msg.method === "initialize") {
        state.sessions++
        state.session = `s${state.sessions}`
        HttpPeer.json(
          res,
          HttpPeer.result(msg.id, {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
            serverInfo: { name: "tasks", version: "1" }
          }),
          200,
          { "mcp-session-id": state.session }
        )
        return true
      }
      if (msg.id === undefined) return false
      const params = HttpPeer.paramsOf(request)
      const taskId = typeof params["taskId"] === "string" ? params["taskId"] : ""
      switch (msg.method) {
        case "tools/list":
          HttpPeer.json(
            res,
            HttpPeer.result(msg.id, {
              tools: [{ name: "job", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }]
            })
          )
          return true
        case "tools/call": {
          const id = `http-task-${++created}`
          tasks.set(id, { status: "working", waiting: [] })
          HttpPeer.json(res, HttpPeer.result(msg.id, { task: task(id) }))
          return true
        }
        case "tasks/get":
          if (!tasks.has(taskId)) rpcError(res, msg.id, -32602, "Failed to retrieve task: Task not found")
          else HttpPeer.json(res, HttpPeer.result(msg.id, task(taskId)))
          return true
        case "tasks/result": {
          const held = tasks.get(taskId)
          if (held === undefined) rpcError(res, msg.id, -32602, "Failed to retrieve task: Task not found")
          else {
            const send = () => HttpPeer.callResult(msg.id, `done ${taskId}`)
            if (held.status === "completed") HttpPeer.json(res, send())
            else held.waiting.push(() => HttpPeer.json(res, send()))
          }
          return true
        }
        default:
          return false
      }
    }
  })
  return {
    handler: peer.handler,
    complete: (taskId: string) => {
      const held = tasks.get(taskId)
      if (held === undefined) return
      held.status = "completed"
      for (const send of held.waiting.splice(0)) send()
    },
    forget: () => tasks.clear()
  }
}

const buildRemote = (url: string) =>
  Effect.map(
    Layer.build(
      McpManager.layer({ servers: { lab: { url, transport: "http" } } }).pipe(
        Layer.provide([NodeServices.layer, NodeHttpClient.layerUndici])
      )
    ),
    (context) => Context.get(context, McpManager.McpManager)
  )

const sessionOf = (request: HttpPeer.Recorded) => request.headers["mcp-session-id"]

describe("a task when its remote server's client reconnects", { timeout: 30_000 }, () => {
  it.live("the call follows the same task on the new client (a new session) to its result", () =>
    Effect.gen(function*() {
      const server = taskServer()
      const peer = yield* HttpPeer.serve(server.handler)
      const manager = yield* buildRemote(peer.url)
      yield* manager.waitForReady("lab")
      const first = yield* Deferred.make<string>()
      const call = yield* Effect.forkChild(callJob(manager, "lab", first))
      const taskId = yield* Deferred.await(first)
      yield* manager.restart("lab")
      // The new client polls the task on its own session.
      const polled = yield* peer.waitFor((r) =>
        r.message?.method === "tasks/get" && HttpPeer.paramsOf(r)["taskId"] === taskId && sessionOf(r) !== "s1"
      )
      assert.notStrictEqual(sessionOf(polled), "s1")
      server.complete(taskId)
      const result = yield* Fiber.join(call)
      assert.deepStrictEqual(result.content, [{ type: "text", text: `done ${taskId}` }])
      assert.lengthOf(peer.calls("tools/call"), 1, "the task was not started again")
    }).pipe(Effect.scoped))

  it.live("a server that no longer knows the task (it restarted): the call ends with TaskLost", () =>
    Effect.gen(function*() {
      const server = taskServer()
      const peer = yield* HttpPeer.serve(server.handler)
      const manager = yield* buildRemote(peer.url)
      yield* manager.waitForReady("lab")
      const first = yield* Deferred.make<string>()
      const call = yield* Effect.forkChild(callJob(manager, "lab", first))
      const taskId = yield* Deferred.await(first)
      server.forget()
      yield* manager.restart("lab")
      const error = failureOf(yield* Fiber.await(call))
      assert.strictEqual(error._tag, "TaskLost")
      if (error._tag !== "TaskLost") return
      assert.strictEqual(error.taskId, taskId)
      assert.isFalse(error.remote)
      assert.lengthOf(peer.calls("tools/call"), 1)
    }).pipe(Effect.scoped))
})
