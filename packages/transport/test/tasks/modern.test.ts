/**
 * Tasks in 2026-07-28 (the `io.modelcontextprotocol/tasks` extension, SEP-2663) under the TestClock, against an
 * in-memory modern server: the extension declared on every request (and left out for `task: "never"`), a task the
 * server chose to create, `tasks/get` with `requestState` echoed and `Mcp-Name` set to the task id, the result or
 * the JSON-RPC error inline, input answered with `tasks/update`, cancellation acknowledged, no `tasks/list`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Sleeps } from "@mcp-fleet/testing"
import { Cause, Clock, Deferred, Effect, Exit, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import { EraCache } from "../../src/session/EraCache.ts"
import { error, result, session } from "../era/memoryPeer.ts"
import type { Respond, Sent } from "../era/memoryPeer.ts"

const EXTENSION = "io.modelcontextprotocol/tasks"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const found = Cause.findErrorOption(exit.cause)
  if (Option.isNone(found)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.value
}

const fresh = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(Effect.scoped(effect), EraCache, new Map())

/** A 2026-07-28 task in one of its states. */
const task = (status: string, fields: Record<string, unknown> = {}) => ({
  resultType: "complete",
  taskId: "t1",
  status,
  createdAt: "2026-07-28T10:00:00Z",
  lastUpdatedAt: "2026-07-28T10:00:01Z",
  ttlSeconds: 60,
  pollIntervalMilliseconds: 2_000,
  ...fields
})

/** A modern server that declares the tasks extension; `rest` answers everything but `server/discover`. */
const tasksServer = (rest: Respond): Respond => (sent, reply) => {
  if (sent.method === "server/discover") {
    return reply(result(sent, {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {}, extensions: { [EXTENSION]: {} } },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "1" } }
    }))
  }
  if (sent.id === undefined) return
  rest(sent, reply)
}

const capabilitiesOf = (sent: Sent): unknown => {
  const meta = sent.params["_meta"]
  return typeof meta === "object" && meta !== null && "io.modelcontextprotocol/clientCapabilities" in meta
    ? meta["io.modelcontextprotocol/clientCapabilities"]
    : undefined
}

describe("tasks in 2026-07-28 (the tasks extension)", () => {
  it.effect("the server makes a task: polled with requestState echoed and Mcp-Name = taskId; the result inline", () =>
    fresh(Effect.gen(function*() {
      const sleeps = yield* Sleeps.make
      const respond = tasksServer((sent, reply) => {
        if (sent.method === "tools/call") {
          return reply(result(sent, { ...task("working", { requestState: "s1" }), resultType: "task" }))
        }
        if (sent.method === "tasks/get" && sent.params["requestState"] === "s1") {
          return reply(result(sent, task("working", { requestState: "s2", statusMessage: "half way" })))
        }
        if (sent.method === "tasks/get") {
          return reply(result(sent, task("completed", { result: { content: [{ type: "text", text: "inline" }] } })))
        }
        reply(error(sent, -32601, "no"))
      })
      const { client, sent } = yield* session(respond, { kind: "http" })
      yield* client.awaitReady
      const statuses: Array<string> = []
      const call = yield* Effect.forkChild(
        client.callTool("slow", { n: 1 }, {
          onTaskStatus: (t) =>
            Effect.sync(() => statuses.push(`${t.status}${t.statusMessage ? ` ${t.statusMessage}` : ""}`))
        }).pipe(Effect.provideService(Clock.Clock, sleeps.clock))
      )
      for (let i = 0; i < 2; i++) {
        yield* Sleeps.awaitEvent(sleeps.next(2_000))
        yield* TestClock.adjust(2_000)
      }
      const done = yield* Fiber.join(call)
      assert.deepStrictEqual(done.content, [{ type: "text", text: "inline" }])
      assert.deepStrictEqual(statuses, ["working", "working half way", "completed"])
      const gets = sent.filter((s) => s.method === "tasks/get")
      assert.deepStrictEqual(gets.map((s) => s.params["requestState"]), ["s1", "s2"])
      assert.deepStrictEqual(gets.map((s) => s.headers?.["mcp-name"]), ["t1", "t1"])
      assert.deepStrictEqual(gets.map((s) => s.params["taskId"]), ["t1", "t1"])
      const call0 = sent.find((s) => s.method === "tools/call")!
      assert.isFalse("task" in call0.params, "no task param: the server decides")
      assert.deepStrictEqual(capabilitiesOf(call0), { extensions: { [EXTENSION]: {} } })
    })))

  it.effect("a failed task is the call's JSON-RPC error (RemoteError of tools/call), scrubbed", () =>
    fresh(Effect.gen(function*() {
      const respond = tasksServer((sent, reply) => {
        if (sent.method === "tools/call") return reply(result(sent, { ...task("working"), resultType: "task" }))
        reply(
          result(
            sent,
            task("failed", { error: { code: -32603, message: "quota sk-secret-value hit", data: { n: 1 } } })
          )
        )
      })
      const sleeps = yield* Sleeps.make
      const { client } = yield* session(respond, { secrets: ["sk-secret-value"] })
      yield* client.awaitReady
      const call = yield* Effect.forkChild(
        client.callTool("slow", {}).pipe(Effect.provideService(Clock.Clock, sleeps.clock))
      )
      yield* Sleeps.awaitEvent(sleeps.next(2_000))
      yield* TestClock.adjust(2_000)
      const failure = failureOf(yield* Fiber.await(call))
      assert.strictEqual(failure._tag, "RemoteError")
      if (failure._tag !== "RemoteError") return
      assert.strictEqual(failure.method, "tools/call")
      assert.strictEqual(failure.code, -32603)
      assert.notInclude(failure.message, "sk-secret-value")
    })))

  it.effect("input_required: each input request is answered once, with tasks/update and the latest requestState", () =>
    fresh(Effect.gen(function*() {
      let updates = 0
      const respond = tasksServer((sent, reply) => {
        if (sent.method === "tools/call") return reply(result(sent, { ...task("working"), resultType: "task" }))
        if (sent.method === "tasks/update") {
          updates++
          return reply(result(sent, { resultType: "complete" }))
        }
        if (updates === 0) {
          return reply(result(
            sent,
            task("input_required", {
              requestState: "ask",
              inputRequests: {
                name: { method: "elicitation/create", params: { message: "name?", requestedSchema: {} } }
              }
            })
          ))
        }
        reply(result(sent, task("completed", { result: { content: [{ type: "text", text: "thanks" }] } })))
      })
      const answered: Array<unknown> = []
      const { client, sent } = yield* session(respond, {
        capabilities: { elicitation: {} },
        answerInput: (method, params) =>
          Effect.sync(() => answered.push({ method, params })).pipe(
            Effect.as({ action: "accept", content: { name: "Ada" } })
          )
      })
      yield* client.awaitReady
      const sleeps = yield* Sleeps.make
      const call = yield* Effect.forkChild(
        client.callTool("ask", {}).pipe(Effect.provideService(Clock.Clock, sleeps.clock))
      )
      for (let i = 0; i < 2; i++) {
        yield* Sleeps.awaitEvent(sleeps.next(2_000))
        yield* TestClock.adjust(2_000)
      }
      assert.deepStrictEqual((yield* Fiber.join(call)).content, [{ type: "text", text: "thanks" }])
      assert.strictEqual(answered.length, 1)
      const update = sent.find((s) => s.method === "tasks/update")!
      assert.deepStrictEqual(update.params["inputResponses"], { name: { action: "accept", content: { name: "Ada" } } })
      assert.strictEqual(update.params["requestState"], "ask")
      assert.strictEqual(update.params["taskId"], "t1")
    })))

  it.effect("task: \"never\" leaves the extension out of that request; listTasks is NotInEra; cancel is acknowledged", () =>
    fresh(Effect.gen(function*() {
      const respond = tasksServer((sent, reply) => {
        if (sent.method === "tools/call") return reply(result(sent, { resultType: "complete", content: [] }))
        if (sent.method === "tasks/cancel") return reply(result(sent, { resultType: "complete" }))
        reply(error(sent, -32601, "no"))
      })
      const { client, sent } = yield* session(respond, { capabilities: { elicitation: {} } })
      yield* client.awaitReady
      yield* client.callTool("plain", {}, { task: "never" })
      assert.deepStrictEqual(capabilitiesOf(sent.find((s) => s.method === "tools/call")!), { elicitation: {} })
      const list = failureOf(yield* Effect.exit(client.listTasks()))
      assert.strictEqual(list._tag, "NotInEra")
      assert.isTrue(Option.isNone(yield* client.cancelTask("t9")))
      assert.deepStrictEqual(sent.find((s) => s.method === "tasks/cancel")?.params["taskId"], "t9")
    })))

  it.effect("the deadline cancels the task with its requestState", () =>
    fresh(Effect.gen(function*() {
      const respond = tasksServer((sent, reply) => {
        if (sent.method === "tools/call") {
          return reply(result(sent, { ...task("working", { requestState: "r1" }), resultType: "task" }))
        }
        if (sent.method === "tasks/cancel") {
          Deferred.doneUnsafe(cancelled, Exit.succeed(sent))
          return reply(result(sent, { resultType: "complete" }))
        }
        reply(result(sent, task("working", { requestState: "r2" })))
      })
      const cancelled = Deferred.makeUnsafe<Sent>()
      const sleeps = yield* Sleeps.make
      const { client } = yield* session(respond)
      yield* client.awaitReady
      const call = yield* Effect.forkChild(
        client.callTool("slow", {}, { timeout: "3 seconds" }).pipe(Effect.provideService(Clock.Clock, sleeps.clock))
      )
      yield* Sleeps.awaitEvent(sleeps.next(2_000))
      yield* TestClock.adjust(2_000)
      yield* Sleeps.awaitEvent(sleeps.next(2_000))
      yield* TestClock.adjust(1_000)
      const failure = failureOf(yield* Fiber.await(call))
      assert.strictEqual(failure._tag, "RequestTimeout")
      const cancel = yield* Sleeps.awaitEvent(Deferred.await(cancelled))
      assert.deepStrictEqual(cancel.params["taskId"], "t1")
      assert.deepStrictEqual(cancel.params["requestState"], "r2")
    })))
})
