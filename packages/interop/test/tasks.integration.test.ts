/**
 * Tasks (2025-11-25, SEP-1686) against server-everything 2026.8.31's task tool, `simulate-research-query`
 * (`execution.taskSupport: "required"`, four stages of a second each, `pollInterval` 1000 ms; with `ambiguous` and a
 * client that declares elicitation it asks for a clarification through `tasks/result`), over stdio and over
 * Streamable HTTP on 127.0.0.1:
 *
 * - `callTool` runs it as a task and returns the report as a plain call returns a result, with each stage seen as a
 *   status;
 * - an ambiguous query goes `input_required`: the client's elicitation handler answers the request the server sends
 *   while `tasks/result` waits, and the report carries the answer;
 * - the handle form: `startTool`, `cancel`, `listTasks`, `getTask`;
 * - the caller's interruption cancels the task on the server (seen by a `tasks/result` waiting on it: it ends).
 *
 * And through `McpManager`:
 *
 * - over stdio: `call` runs it as a task (each stage a status through `onTaskStatus`, the report as the result); a
 *   `restart` while the call waits ends it at once with `TaskLost` (`remote: false`): the task lived in the process;
 * - over Streamable HTTP (one server process, 127.0.0.1): a `restart` of the server's client while the call waits
 *   ends the old session, and the call asks the new client for the same task (`TaskResume`). server-everything keeps
 *   its tasks in the official SDK's `InMemoryTaskStore`, which binds a task to the session that created it (another
 *   session's `tasks/get` is "Task not found"): the call ends with `TaskLost` (`remote: false`) after that one
 *   `tasks/get`, never a hang and never a second `tools/call`. (A server that binds tasks to the authorization
 *   context instead lets the call follow it to its result: `packages/manager/test/Tasks.integration.test.ts`.)
 *
 * Every wait is on an event (a status the client saw, a call's end); real time passes only as the server works.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { McpManager } from "@mcp-fleet/manager"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpClient, Tool } from "@mcp-fleet/transport"
import type { Elicitation, Tasks } from "@mcp-fleet/transport"
import { Cause, Context, Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import type { Scope } from "effect"
import type { HttpClient } from "effect/http"
import type { ChildProcessSpawner } from "effect/process"
import * as HttpPeers from "../src/HttpPeers.ts"
import * as ReferenceServers from "../src/ReferenceServers.ts"

const TOOL = "simulate-research-query"
const layer = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const found = Cause.findErrorOption(exit.cause)
  if (Option.isNone(found)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.value
}

const textOf = (result: { readonly content: ReadonlyArray<{ readonly [key: string]: unknown }> }): string =>
  result.content.map((block) => (typeof block["text"] === "string" ? block["text"] : "")).join("\n")

/** Answers the research tool's clarification with the historical interpretation. */
const historical: Elicitation.Service = {
  form: (request) =>
    Effect.succeed(
      Object.hasOwn(request.requestedSchema.properties, "interpretation")
        ? { action: "accept", content: { interpretation: "historical" } }
        : { action: "decline" }
    )
}

type Connect = (
  handlers?: { readonly elicitation?: Elicitation.Service }
) => Effect.Effect<
  McpClient.McpClient,
  unknown,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | HttpClient.HttpClient
>

/** A client of server-everything over stdio. */
const overStdio: Connect = (handlers) =>
  McpClient.make({
    ...ReferenceServers.command("everything", ""),
    name: "everything",
    ...(handlers ? { handlers } : {})
  })

/** A client of server-everything over Streamable HTTP on 127.0.0.1 (the server lives as long as the scope). */
const overHttp: Connect = (handlers) =>
  Effect.flatMap(
    HttpPeers.start("everything-streamable"),
    (peer) =>
      McpClient.http({ url: peer.url, transport: "http", name: "everything", ...(handlers ? { handlers } : {}) })
  )

const suite = (wire: string, connect: Connect) =>
  describe(`server-everything's task tool over ${wire}`, { timeout: 60_000 }, () => {
    it.live("callTool runs it as a task: each stage a status, the report as a plain call's result", () =>
      Effect.gen(function*() {
        const client = yield* connect()
        yield* client.awaitReady
        const { tools } = yield* client.listTools()
        assert.strictEqual(Tool.taskSupport(tools.find((t) => t.name === TOOL)!), "required")
        assert.strictEqual(Tool.taskSupport(tools.find((t) => t.name === "echo")!), "forbidden")
        const seen: Array<Tasks.Task> = []
        const result = yield* client.callTool(TOOL, { topic: "tides" }, {
          onTaskStatus: (task) => Effect.sync(() => seen.push(task))
        })
        assert.include(textOf(result), "# Research Report: tides")
        assert.notStrictEqual(result.isError, true)
        assert.strictEqual(seen[0]?.status, "working")
        assert.strictEqual(seen.at(-1)?.status, "completed")
        assert.strictEqual(new Set(seen.map((t) => t.taskId)).size, 1, "one task")
        assert.include(seen.map((t) => t.statusMessage).join(" | "), "Analyzing content...")
        assert.strictEqual(seen[0]?.pollIntervalMs, 1_000)
        assert.strictEqual(seen[0]?.ttlMs, 300_000)
        // A tool that forbids tasks is refused as one, unsent.
        const refused = failureOf(yield* Effect.exit(client.callTool("echo", { message: "x" }, { task: "always" })))
        assert.strictEqual(refused._tag, "TaskUnsupported")
      }).pipe(Effect.scoped, Effect.provide(layer)))

    it.live("an ambiguous query goes input_required: the elicitation is answered while tasks/result waits", () =>
      Effect.gen(function*() {
        const client = yield* connect({ elicitation: historical })
        yield* client.awaitReady
        yield* client.listTools()
        const statuses: Array<Tasks.TaskStatus> = []
        const result = yield* client.callTool(TOOL, { topic: "tides", ambiguous: true }, {
          onTaskStatus: (task) => Effect.sync(() => statuses.push(task.status))
        })
        assert.include(textOf(result), "# Research Report: tides (historical)")
        assert.include(statuses, "input_required")
        assert.deepStrictEqual(client.stats().handlers?.answered, 1)
      }).pipe(Effect.scoped, Effect.provide(layer)))

    it.live("the handle form: startTool, cancel; listTasks and getTask say it is cancelled", () =>
      Effect.gen(function*() {
        const client = yield* connect()
        yield* client.awaitReady
        yield* client.listTools()
        const started = yield* client.startTool(TOOL, { topic: "storms" })
        assert.strictEqual(started._tag, "Task")
        if (started._tag !== "Task") return
        const { handle } = started
        assert.strictEqual(handle.created.status, "working")
        yield* handle.cancel
        const error = failureOf(yield* Effect.exit(handle.result))
        assert.strictEqual(error._tag, "TaskCancelled")
        assert.strictEqual((yield* client.getTask(handle.taskId)).status, "cancelled")
        const listed = (yield* client.listTasks()).tasks.find((t) => t.taskId === handle.taskId)
        assert.strictEqual(listed?.status, "cancelled")
      }).pipe(Effect.scoped, Effect.provide(layer)))

    it.live("interrupting the caller cancels the task on the server", () =>
      Effect.gen(function*() {
        const client = yield* connect()
        yield* client.awaitReady
        yield* client.listTools()
        const first = yield* Deferred.make<string>()
        const call = yield* Effect.forkChild(
          client.callTool(TOOL, { topic: "winds" }, {
            onTaskStatus: (task) => Deferred.succeed(first, task.taskId).pipe(Effect.asVoid)
          })
        )
        const taskId = yield* Deferred.await(first)
        // A tasks/result waits for the task's end: the server answers it once the cancel has ended the task.
        const waiting = yield* Effect.forkChild(client.taskResult(taskId), { startImmediately: true })
        yield* Fiber.interrupt(call)
        yield* Fiber.await(waiting)
        assert.strictEqual((yield* client.getTask(taskId)).status, "cancelled")
      }).pipe(Effect.scoped, Effect.provide(layer)))
  })

suite("stdio", overStdio)
suite("Streamable HTTP", overHttp)

const managerOf = (servers: ManagerOptions.ManagerOptions["servers"]) =>
  Effect.map(
    Layer.build(
      McpManager.layer({ servers }).pipe(Layer.provide([NodeServices.layer, NodeHttpClient.layerUndici]))
    ),
    (context) => Context.get(context, McpManager.McpManager)
  )

/** A call of the research tool whose statuses go to `seen`; `first` completes with its task's id. */
const research = (manager: McpManager.McpManager["Service"], topic: string) =>
  Effect.gen(function*() {
    const seen: Array<Tasks.Task> = []
    const first = yield* Deferred.make<string>()
    const call = yield* Effect.forkChild(manager.call("everything", TOOL, { topic }, {
      onTaskStatus: (task) =>
        Effect.suspend(() => {
          seen.push(task)
          return Effect.asVoid(Deferred.succeed(first, task.taskId))
        })
    }))
    return { call, seen, taskId: yield* Deferred.await(first) }
  })

describe("server-everything's task tool through the manager", { timeout: 60_000 }, () => {
  it.live("stdio: call runs it as a task to its report; a restart mid-task is TaskLost at once", () =>
    Effect.gen(function*() {
      const manager = yield* managerOf({ everything: ReferenceServers.command("everything", "") })
      yield* manager.waitForReady("everything")
      const done = yield* research(manager, "tides")
      const result = yield* Fiber.join(done.call)
      assert.include(textOf(result), "# Research Report: tides")
      assert.strictEqual(done.seen.at(-1)?.status, "completed")
      assert.strictEqual(new Set(done.seen.map((t) => t.taskId)).size, 1, "one task")

      const cut = yield* research(manager, "storms")
      yield* manager.restart("everything")
      const error = failureOf(yield* Fiber.await(cut.call))
      assert.strictEqual(error._tag, "TaskLost")
      if (error._tag !== "TaskLost") return
      assert.strictEqual(error.taskId, cut.taskId)
      assert.isFalse(error.remote)
      assert.notInclude(cut.seen.map((t) => t.status), "completed")
      const restarted = yield* manager.client("everything")
      assert.isUndefined(restarted.stats().requests["tasks/get"], "nothing resumed on the new process")
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.live("Streamable HTTP: a restart mid-task; the new session does not know the task (SDK task store): TaskLost", () =>
    Effect.gen(function*() {
      const peer = yield* HttpPeers.start("everything-streamable")
      const manager = yield* managerOf({ everything: { url: peer.url, transport: "http" } })
      yield* manager.waitForReady("everything")
      const before = yield* manager.client("everything")
      const cut = yield* research(manager, "currents")
      yield* manager.restart("everything")
      const error = failureOf(yield* Fiber.await(cut.call))
      const after = yield* manager.client("everything")
      assert.notStrictEqual(after, before, "a new client")
      assert.strictEqual(error._tag, "TaskLost")
      if (error._tag !== "TaskLost") return
      assert.strictEqual(error.taskId, cut.taskId)
      assert.isFalse(error.remote)
      assert.include(error.message, "Task not found")
      assert.strictEqual(after.stats().requests["tasks/get"], 1, "the new client asked for the task once")
      assert.isUndefined(after.stats().requests["tools/call"], "the task was not started again")
    }).pipe(Effect.scoped, Effect.provide(layer)))
})
