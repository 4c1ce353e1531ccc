/**
 * What becomes of a call that runs as a task when its server restarts or reconnects (`McpManager/TaskResume.ts`):
 *
 * - stdio (in-memory processes, TestClock): the task lives in the process; a restart or an exit ends the waiting call
 *   at once with `TaskLost` (`remote: false`), with the clock unmoved: never a wait for a poll that cannot answer;
 * - Streamable HTTP (a real `node:http` server on 127.0.0.1 whose tasks outlive its sessions; time is the TestClock,
 *   through `Sleeps`, so a test latches on "the follower now waits for its next poll"): a restart of the server's
 *   client ends the old session, and the call follows the same task on the new client to its result; a server that
 *   no longer knows the task ends the call with `TaskLost`; a call follows its task again at most `MAX_RESUMES`
 *   times, and never past its deadline (the task is then cancelled on the server).
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { HttpPeer, McpPeer, Sleeps, TaskPeer } from "@mcp-fleet/testing"
import type { Features, Tasks } from "@mcp-fleet/transport"
import { Cause, Clock, Context, Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import type * as Http from "node:http"
import { McpManager } from "../src/index.ts"
import { MAX_RESUMES } from "../src/McpManager/TaskResume.ts"
import { build } from "./fleetPeers.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const found = Cause.findErrorOption(exit.cause)
  if (Option.isNone(found)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.value
}

/** A call of `job` whose first task status completes `first` with the task's id; every status goes to `seen`. */
const callJob = (
  manager: McpManager.McpManager["Service"],
  server: string,
  first: Deferred.Deferred<string>,
  options: Features.ToolCallOptions = {},
  seen: Array<Tasks.TaskStatus> = []
) =>
  manager.call(server, "job", {}, {
    ...options,
    onTaskStatus: (task: Tasks.Task) =>
      Effect.suspend(() => {
        seen.push(task.status)
        return Effect.asVoid(Deferred.succeed(first, task.taskId))
      })
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
      const error = failureOf(yield* Sleeps.awaitEvent(Fiber.await(call)))
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
      const error = failureOf(yield* Sleeps.awaitEvent(Fiber.await(call)))
      assert.strictEqual(error._tag, "TaskLost")
      assert.include(error.message, "exited with code 1")
      assert.strictEqual(yield* Clock.currentTimeMillis, 0)
      assert.strictEqual((yield* manager.serverHealth("lab")).state, "offline")
    }).pipe(Effect.scoped))
})

/** The server's suggested poll interval: a length no other wait of the manager asks for. */
const POLL_MS = 12_345

/** A 2025-11-25 Streamable HTTP server whose tasks outlive its sessions (a task store of its own, as a service). */
const taskServer = () => {
  const tasks = new Map<string, { status: string; waiting: Array<() => void> }>()
  let created = 0
  const task = (taskId: string) => ({
    taskId,
    status: tasks.get(taskId)?.status ?? "working",
    createdAt: "2026-01-01T00:00:00Z",
    lastUpdatedAt: "2026-01-01T00:00:00Z",
    pollInterval: POLL_MS
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
        case "tasks/cancel": {
          const held = tasks.get(taskId)
          if (held === undefined) rpcError(res, msg.id, -32602, "Failed to cancel task: Task not found")
          else {
            held.status = "cancelled"
            HttpPeer.json(res, HttpPeer.result(msg.id, task(taskId)))
          }
          return true
        }
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
    status: (taskId: string) => tasks.get(taskId)?.status,
    forget: () => tasks.clear()
  }
}

/** The manager of one remote server `lab` at `url`, on the reporting clock. */
const buildRemote = (url: string, sleeps: Sleeps.Sleeps) =>
  Effect.map(
    Layer.build(
      McpManager.layer({ servers: { lab: { url, transport: "http" } } }).pipe(
        Layer.provide([NodeServices.layer, NodeHttpClient.layerUndici])
      )
    ).pipe(Effect.provideService(Clock.Clock, sleeps.clock)),
    (context) => Context.get(context, McpManager.McpManager)
  )

const sessionOf = (request: HttpPeer.Recorded) => request.headers["mcp-session-id"]

/** The sessions on which the server was asked about `taskId` with `method`, in order. */
const sessionsAsking = (peer: HttpPeer.Peer, method: string, taskId: string) =>
  peer.calls(method).filter((r) => HttpPeer.paramsOf(r)["taskId"] === taskId).map(sessionOf)

/**
 * A remote server with a call of `job` waiting on its task: the call (on the reporting clock) and the task's id, once
 * the call's follower waits for its first poll.
 */
const waitingCall = (options: Features.ToolCallOptions = {}) =>
  Effect.gen(function*() {
    const server = taskServer()
    const peer = yield* HttpPeer.serve(server.handler)
    const sleeps = yield* Sleeps.make
    const manager = yield* buildRemote(peer.url, sleeps)
    yield* Sleeps.awaitEvent(manager.waitForReady("lab"))
    const first = yield* Deferred.make<string>()
    const seen: Array<Tasks.TaskStatus> = []
    const call = yield* Effect.forkChild(
      callJob(manager, "lab", first, options, seen).pipe(Effect.provideService(Clock.Clock, sleeps.clock))
    )
    const taskId = yield* Sleeps.awaitEvent(Deferred.await(first))
    yield* Sleeps.awaitEvent(sleeps.next(POLL_MS))
    return { server, peer, sleeps, manager, call, taskId, seen }
  })

describe("a task when its remote server's client reconnects", { timeout: 30_000 }, () => {
  it.effect("the call follows the same task on the new client (a new session) to its result", () =>
    Effect.gen(function*() {
      const { call, manager, peer, seen, server, sleeps, taskId } = yield* waitingCall()
      yield* manager.restart("lab")
      // The new client asked for the task on its own session and now waits for its next poll.
      yield* Sleeps.awaitEvent(sleeps.next(POLL_MS))
      const asked = sessionsAsking(peer, "tasks/get", taskId)
      assert.lengthOf(asked, 1, "one tasks/get, by the new client")
      assert.notStrictEqual(asked[0], "s1")
      assert.isDefined(asked[0])
      assert.isUndefined(call.pollUnsafe(), "the call still waits on its task")
      server.complete(taskId)
      yield* TestClock.adjust(POLL_MS)
      const result = yield* Sleeps.awaitEvent(Fiber.join(call))
      assert.deepStrictEqual(result.content, [{ type: "text", text: `done ${taskId}` }])
      assert.deepStrictEqual(sessionsAsking(peer, "tasks/result", taskId), [asked[0]], "the result, on the new session")
      assert.lengthOf(peer.calls("tools/call"), 1, "the task was not started again")
      // onTaskStatus: the first client's status, the new client's first one, then the end.
      assert.deepStrictEqual(seen, ["working", "working", "completed"])
    }).pipe(Effect.scoped))

  it.effect("a server that no longer knows the task (it restarted): the call ends with TaskLost", () =>
    Effect.gen(function*() {
      const { call, manager, peer, server, taskId } = yield* waitingCall()
      server.forget()
      yield* manager.restart("lab")
      const error = failureOf(yield* Sleeps.awaitEvent(Fiber.await(call)))
      assert.strictEqual(error._tag, "TaskLost")
      if (error._tag !== "TaskLost") return
      assert.strictEqual(error.taskId, taskId)
      assert.isFalse(error.remote)
      assert.include(error.message, "Task not found")
      assert.lengthOf(sessionsAsking(peer, "tasks/get", taskId), 1, "asked once, on the new client")
      assert.lengthOf(peer.calls("tools/call"), 1)
    }).pipe(Effect.scoped))

  it.effect(`a call follows its task again at most ${MAX_RESUMES} times: the next cut ends it with TaskLost`, () =>
    Effect.gen(function*() {
      const { call, manager, peer, server, sleeps, taskId } = yield* waitingCall()
      for (let resume = 1; resume <= MAX_RESUMES; resume++) {
        yield* manager.restart("lab")
        yield* Sleeps.awaitEvent(sleeps.next(POLL_MS))
        assert.lengthOf(sessionsAsking(peer, "tasks/get", taskId), resume)
      }
      yield* manager.restart("lab")
      // Had the call resumed once more, this would be its result.
      server.complete(taskId)
      const error = failureOf(yield* Sleeps.awaitEvent(Fiber.await(call)))
      assert.strictEqual(error._tag, "TaskLost")
      if (error._tag !== "TaskLost") return
      assert.strictEqual(error.taskId, taskId)
      assert.isTrue(error.remote, "cut off again, the task may live on: the cap, not the server, ended the call")
      const asked = sessionsAsking(peer, "tasks/get", taskId)
      assert.lengthOf(asked, MAX_RESUMES)
      assert.lengthOf(new Set(asked), MAX_RESUMES, "each resume on a new session")
      assert.lengthOf(peer.calls("tasks/result"), 0)
      assert.lengthOf(peer.calls("tools/call"), 1)
    }).pipe(Effect.scoped))

  it.effect("the call's deadline bounds the resumed task: RequestTimeout, and the task is cancelled on the server", () =>
    Effect.gen(function*() {
      const { call, manager, peer, server, sleeps, taskId } = yield* waitingCall({ timeout: "90 seconds" })
      yield* TestClock.adjust(30_000)
      // The first client polled the task meanwhile (at 12.345 and 24.69 s) on its own session.
      const polledBefore = sessionsAsking(peer, "tasks/get", taskId)
      yield* manager.restart("lab")
      yield* Sleeps.awaitEvent(sleeps.next(POLL_MS))
      const resumedOn = sessionsAsking(peer, "tasks/get", taskId)[polledBefore.length]
      assert.isDefined(resumedOn)
      assert.notInclude(polledBefore, resumedOn, "followed again on a new session")
      // 60 s of the 90 are left: polls at 12.345 s steps still find the task working, the deadline ends the call.
      yield* TestClock.adjust(60_000)
      const error = failureOf(yield* Sleeps.awaitEvent(Fiber.await(call)))
      assert.strictEqual(error._tag, "RequestTimeout")
      if (error._tag !== "RequestTimeout") return
      assert.strictEqual(error.timeoutMs, 90_000)
      const cancelled = yield* Sleeps.awaitEvent(peer.waitFor((r) => r.message?.method === "tasks/cancel"))
      assert.strictEqual(HttpPeer.paramsOf(cancelled)["taskId"], taskId)
      assert.strictEqual(sessionOf(cancelled), resumedOn, "cancelled by the client that followed it")
      assert.strictEqual(server.status(taskId), "cancelled")
    }).pipe(Effect.scoped))
})
