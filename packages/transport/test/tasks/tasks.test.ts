/**
 * Tasks (2025-11-25) under the TestClock, against the test kit's in-memory task server (`TaskPeer` over `McpPeer`):
 * when a call becomes a task, how it is polled (the server's `pollInterval`, the floor, the cap), what wakes it
 * (a status notification), what ends it (its result, its deadline or the caller's interruption, both of which cancel
 * it on the server; the process's exit; a server that forgot it), and the handle form.
 *
 * Every wait latches on an event: the client asking to sleep N ms (`Sleeps`), a frame the peer received, a task the
 * peer created.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpPeer, Sleeps, TaskPeer } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import type { McpClientOptions, Tasks } from "@mcp-fleet/transport"
import { Cause, Clock, Deferred, Effect, Exit, Fiber, Option, Schedule, Stream } from "effect"
import type { Scope } from "effect"
import { TestClock } from "effect/testing"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const found = Cause.findErrorOption(exit.cause)
  if (Option.isNone(found)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.value
}

/** A client of a task peer. */
const setup = (
  peerOptions: TaskPeer.Options = {},
  clientOptions: Partial<McpClientOptions.McpClientOptions> = {}
) =>
  Effect.gen(function*() {
    const tasks = TaskPeer.make(peerOptions)
    const controlled = yield* McpPeer.controlled(tasks.script)
    const client = yield* McpClient.make({ command: "server", ...clientOptions, name: "tasks" }).pipe(
      Effect.provide(controlled.layer)
    )
    yield* client.awaitReady
    yield* client.listTools()
    return { client, tasks, frames: controlled.frames, peer: controlled.peer }
  })

/**
 * Runs `body` with a clock that reports each sleep: `clocked` gives it to a call (its task is followed on the
 * caller's fiber, so the poll loop's sleeps report themselves), while the test itself keeps the TestClock.
 */
const withSleeps = <A, E>(
  body: (
    sleeps: Sleeps.Sleeps,
    clocked: <B, E2, R>(effect: Effect.Effect<B, E2, R>) => Effect.Effect<B, E2, R>
  ) => Effect.Effect<A, E, Scope.Scope>
): Effect.Effect<A, E, Scope.Scope> =>
  Effect.flatMap(
    Sleeps.make,
    (sleeps) => body(sleeps, (effect) => Effect.provideService(effect, Clock.Clock, sleeps.clock))
  )

const methods = (tasks: TaskPeer.TaskPeer, method: string) => tasks.requests().filter((r) => r.method === method)
const text = (result: { readonly content: ReadonlyArray<{ readonly [key: string]: unknown }> }) =>
  result.content[0]?.["text"]

describe("task-augmented tools/call (2025-11-25)", () => {
  it.effect("a required tool runs as a task, polled at the server's pollInterval; the result comes as a plain call's", () =>
    withSleeps((sleeps, clocked) =>
      Effect.gen(function*() {
        const { client, tasks } = yield* setup({ pollInterval: 5_000 })
        const seen: Array<Tasks.TaskStatus> = []
        const call = yield* Effect.forkChild(
          clocked(
            client.callTool("job", { n: 1 }, { onTaskStatus: (task) => Effect.sync(() => seen.push(task.status)) })
          )
        )
        const id = yield* tasks.created()
        assert.deepStrictEqual(methods(tasks, "tools/call")[0]?.params, { name: "job", arguments: { n: 1 }, task: {} })
        yield* Sleeps.awaitEvent(sleeps.next(5_000))
        assert.strictEqual(methods(tasks, "tasks/get").length, 0, "no poll before the interval")
        yield* TestClock.adjust(5_000)
        yield* Sleeps.awaitEvent(sleeps.next(5_000))
        yield* tasks.move(id, "completed", { result: { content: [{ type: "text", text: "the answer" }] } })
        yield* TestClock.adjust(5_000)
        const result = yield* Fiber.join(call)
        assert.strictEqual(text(result), "the answer")
        assert.deepStrictEqual(methods(tasks, "tasks/get").map((r) => r.at), [5_000, 10_000])
        assert.deepStrictEqual(methods(tasks, "tasks/result").map((r) => r.params), [{ taskId: id }])
        assert.deepStrictEqual(seen, ["working", "completed"])
      })
    ))

  it.effect("the wait is the server's interval raised to the floor and cut to the cap's delay", () =>
    withSleeps((sleeps, clocked) =>
      Effect.gen(function*() {
        // A server that asks for 1 ms is polled at the floor (here 250 ms).
        const fast = yield* setup({ pollInterval: 1 }, { taskPolling: { floor: "250 millis" } })
        const call = yield* Effect.forkChild(clocked(fast.client.callTool("job", {})))
        yield* Sleeps.awaitEvent(sleeps.next(250))
        yield* TestClock.adjust(250)
        yield* Sleeps.awaitEvent(sleeps.next(250))
        yield* fast.tasks.move(yield* fast.tasks.created(), "completed")
        yield* TestClock.adjust(250)
        yield* Fiber.join(call)
        assert.deepStrictEqual(methods(fast.tasks, "tasks/get").map((r) => r.at), [250, 500])
      })
    ))

  it.effect("a server that asks for an hour is polled at the cap; a growing cap grows the wait", () =>
    withSleeps((sleeps, clocked) =>
      Effect.gen(function*() {
        const cap = Schedule.exponential("2 seconds")
        const slow = yield* setup({ pollInterval: 3_600_000 }, { taskPolling: { cap } })
        const call = yield* Effect.forkChild(clocked(slow.client.callTool("job", {})))
        const id = yield* slow.tasks.created()
        for (const ms of [2_000, 4_000, 8_000]) {
          yield* Sleeps.awaitEvent(sleeps.next(ms))
          yield* TestClock.adjust(ms)
        }
        yield* Sleeps.awaitEvent(sleeps.next(16_000))
        yield* slow.tasks.move(id, "completed")
        yield* TestClock.adjust(16_000)
        yield* Fiber.join(call)
        assert.deepStrictEqual(methods(slow.tasks, "tasks/get").map((r) => r.at), [2_000, 6_000, 14_000, 30_000])
      })
    ))

  it.effect("a status notification ends the wait at once and counts as the poll", () =>
    withSleeps((sleeps, clocked) =>
      Effect.gen(function*() {
        const { client, tasks } = yield* setup({ pollInterval: 60_000 })
        const call = yield* Effect.forkChild(clocked(client.callTool("job", {})))
        const id = yield* tasks.created()
        yield* Sleeps.awaitEvent(sleeps.next(30_000))
        yield* tasks.move(id, "completed", { notify: true })
        const result = yield* Fiber.join(call)
        assert.strictEqual(text(result), `done ${id}`)
        assert.strictEqual(methods(tasks, "tasks/get").length, 0)
        assert.strictEqual(yield* Clock.currentTimeMillis, 0, "no time passed")
      })
    ))

  it.effect("the call's deadline cancels the task on the server (tasks/cancel) and fails with RequestTimeout", () =>
    withSleeps((sleeps, clocked) =>
      Effect.gen(function*() {
        const { client, tasks } = yield* setup({ pollInterval: 1_000 })
        const call = yield* Effect.forkChild(clocked(client.callTool("job", {}, { timeout: "2500 millis" })))
        const id = yield* tasks.created()
        yield* Sleeps.awaitEvent(sleeps.next(1_000))
        yield* TestClock.adjust(2_500)
        const error = failureOf(yield* Fiber.await(call))
        assert.strictEqual(error._tag, "RequestTimeout")
        assert.include(error.message, "did not answer tools/call within 2500 ms")
        yield* Sleeps.awaitEvent(tasks.handled("tasks/cancel"))
        assert.deepStrictEqual(methods(tasks, "tasks/cancel").map((r) => r.params), [{ taskId: id }])
        assert.strictEqual(tasks.task(id)?.status, "cancelled")
      })
    ))

  it.effect("interrupting the caller cancels the task on the server, from its first status on", () =>
    withSleeps((_, clocked) =>
      Effect.gen(function*() {
        const { client, tasks } = yield* setup({ pollInterval: 1_000 })
        // At once: the caller is interrupted as soon as it hears of the task (its first status).
        const first = yield* Deferred.make<void>()
        const early = yield* Effect.forkChild(clocked(client.callTool("job", {}, {
          onTaskStatus: () => Deferred.succeed(first, undefined).pipe(Effect.asVoid)
        })))
        yield* Deferred.await(first)
        yield* Fiber.interrupt(early)
        yield* Sleeps.awaitEvent(tasks.handled("tasks/cancel"))
        assert.strictEqual(tasks.task(yield* tasks.created(1))?.status, "cancelled")
        // Later: while it waits for its next poll (a clock of its own: the first call's sleeps are not this one's).
        const sleeps = yield* Sleeps.make
        const waiting = yield* Effect.forkChild(
          client.callTool("job", {}).pipe(Effect.provideService(Clock.Clock, sleeps.clock))
        )
        const id = yield* tasks.created(2)
        yield* Sleeps.awaitEvent(sleeps.next(1_000))
        yield* Fiber.interrupt(waiting)
        yield* Sleeps.awaitEvent(tasks.handled("tasks/cancel", 2))
        assert.deepStrictEqual(methods(tasks, "tasks/cancel").map((r) => r.params["taskId"]), ["task-1", id])
        assert.strictEqual(tasks.task(id)?.status, "cancelled")
      })
    ))

  it.effect("the server's process exits while a task runs: TaskLost at once (not at the next poll), not remote", () =>
    withSleeps((sleeps, clocked) =>
      Effect.gen(function*() {
        const { client, peer, tasks } = yield* setup({ pollInterval: 60_000 })
        const call = yield* Effect.forkChild(clocked(client.callTool("job", {})))
        const id = yield* tasks.created()
        yield* Sleeps.awaitEvent(sleeps.next(30_000))
        yield* (yield* peer).exit(1)
        const error = failureOf(yield* Fiber.await(call))
        assert.strictEqual(error._tag, "TaskLost")
        if (error._tag !== "TaskLost") return
        assert.strictEqual(error.taskId, id)
        assert.isFalse(error.remote)
        assert.include(error.message, "exited with code 1")
        assert.strictEqual(yield* Clock.currentTimeMillis, 0, "no poll interval was waited out")
      })
    ))

  it.effect("a server that forgot the task (-32602) is TaskLost; one that cancelled it, TaskCancelled", () =>
    withSleeps((sleeps, clocked) =>
      Effect.gen(function*() {
        const { client, tasks } = yield* setup({ pollInterval: 1_000 })
        const forgotten = yield* Effect.forkChild(clocked(client.callTool("job", {})))
        yield* tasks.created(1)
        yield* Sleeps.awaitEvent(sleeps.next(1_000))
        tasks.forget()
        yield* TestClock.adjust(1_000)
        const lost = failureOf(yield* Fiber.await(forgotten))
        assert.strictEqual(lost._tag, "TaskLost")
        assert.include(lost.message, "the server no longer knows it")

        const cancelled = yield* Effect.forkChild(clocked(client.callTool("job", {})))
        const id = yield* tasks.created(2)
        yield* tasks.move(id, "cancelled", { statusMessage: "operator stopped it", notify: true })
        const error = failureOf(yield* Fiber.await(cancelled))
        assert.strictEqual(error._tag, "TaskCancelled")
        assert.include(error.message, "operator stopped it")
      })
    ))

  it.effect("a failed task returns what the call would have: an isError result, or the JSON-RPC error", () =>
    Effect.gen(function*() {
      const { client, tasks } = yield* setup({ pollInterval: 1_000 })
      const isError = yield* Effect.forkChild(client.callTool("job", {}))
      yield* tasks.move(yield* tasks.created(1), "failed", { notify: true })
      assert.isTrue((yield* Fiber.join(isError)).isError)
      const rpc = yield* Effect.forkChild(client.callTool("job", {}))
      yield* tasks.move(yield* tasks.created(2), "failed", {
        notify: true,
        error: { code: -32603, message: "upstream down" }
      })
      const error = failureOf(yield* Fiber.await(rpc))
      assert.strictEqual(error._tag, "RemoteError")
      assert.include(error.message, "upstream down")
    }))

  it.effect("a task's final result is checked against the tool's outputSchema, as a plain call's (one-shot and handle)", () =>
    Effect.gen(function*() {
      const outputSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] }
      const { client, tasks } = yield* setup({ pollInterval: 1_000, outputSchema })
      const done = (structuredContent: unknown) => ({
        notify: true,
        result: { content: [{ type: "text", text: "done" }], structuredContent }
      })
      const wrong = yield* Effect.forkChild(client.callTool("job", {}))
      yield* tasks.move(yield* tasks.created(1), "completed", done({ n: "seven" }))
      const error = failureOf(yield* Fiber.await(wrong))
      assert.strictEqual(error._tag, "StructuredContentInvalid")
      assert.strictEqual(error._tag === "StructuredContentInvalid" ? error.path : undefined, "/n")
      const right = yield* Effect.forkChild(client.callTool("job", {}))
      yield* tasks.move(yield* tasks.created(2), "completed", done({ n: 7 }))
      assert.deepStrictEqual((yield* Fiber.join(right)).structuredContent, { n: 7 })
      // The handle form checks its result too.
      const started = yield* client.startTool("job", {})
      assert.strictEqual(started._tag, "Task")
      if (started._tag !== "Task") return
      yield* tasks.move(yield* tasks.created(3), "completed", done({}))
      const handled = failureOf(yield* Effect.exit(started.handle.result))
      assert.strictEqual(handled._tag, "StructuredContentInvalid")
      assert.strictEqual(methods(tasks, "tools/call").length, 3)
    }))

  it.effect("a transient poll failure is polled again; more than 3 in a row end the wait with it", () =>
    withSleeps((sleeps, clocked) =>
      Effect.gen(function*() {
        const { client, tasks } = yield* setup({ pollInterval: 1_000 })
        tasks.failGets(2, { code: -32001, message: "busy" })
        const survives = yield* Effect.forkChild(clocked(client.callTool("job", {})))
        const id = yield* tasks.created(1)
        for (let i = 0; i < 3; i++) {
          yield* Sleeps.awaitEvent(sleeps.next(1_000))
          if (i === 2) yield* tasks.move(id, "completed")
          yield* TestClock.adjust(1_000)
        }
        assert.strictEqual(text(yield* Fiber.join(survives)), `done ${id}`)

        tasks.failGets(4, { code: -32001, message: "busy" })
        const fails = yield* Effect.forkChild(clocked(client.callTool("job", {})))
        yield* tasks.created(2)
        for (let i = 0; i < 4; i++) {
          yield* Sleeps.awaitEvent(sleeps.next(1_000))
          yield* TestClock.adjust(1_000)
        }
        const error = failureOf(yield* Fiber.await(fails))
        assert.strictEqual(error._tag, "RemoteError")
        assert.include(error.message, "busy")
      })
    ))

  it.effect("input_required: the client calls tasks/result at once and gets the end from it", () =>
    Effect.gen(function*() {
      const { client, frames, tasks } = yield* setup({ pollInterval: 60_000 })
      const call = yield* Effect.forkChild(client.callTool("job", {}))
      const id = yield* tasks.created()
      yield* tasks.move(id, "input_required", { notify: true })
      yield* McpPeer.awaitMethod(frames, "tasks/result")
      yield* tasks.move(id, "completed")
      assert.strictEqual(text(yield* Fiber.join(call)), `done ${id}`)
    }))
})

describe("when a call becomes a task (2025-11-25)", () => {
  it.effect("auto: required and optional tools as tasks, forbidden and absent ones as plain calls; never and always", () =>
    Effect.gen(function*() {
      for (const support of ["optional", "forbidden", "absent"] as const) {
        const { client, tasks } = yield* setup({ taskSupport: support, pollInterval: 1_000 })
        const auto = yield* Effect.forkChild(client.callTool("job", {}))
        if (support === "optional") yield* tasks.move(yield* tasks.created(), "completed", { notify: true })
        yield* Fiber.join(auto)
        const asked = methods(tasks, "tools/call").map((r) => "task" in r.params)
        assert.deepStrictEqual(asked, [support === "optional"], support)
        yield* client.callTool("plain", {})
        assert.isFalse("task" in methods(tasks, "tools/call")[1]!.params, "a tool without execution: plain")
        if (support === "optional") {
          yield* client.callTool("job", {}, { task: "never" })
          assert.isFalse("task" in methods(tasks, "tools/call")[2]!.params, "never")
        } else {
          const refused = failureOf(yield* Effect.exit(client.callTool("job", {}, { task: "always" })))
          assert.strictEqual(refused._tag, "TaskUnsupported", support)
          assert.strictEqual(methods(tasks, "tools/call").length, 2, "nothing sent")
        }
      }
    }))

  it.effect("a server without the tasks capability: auto is a plain call, always is CapabilityNotSupported", () =>
    Effect.gen(function*() {
      const { client, tasks } = yield* setup({ capability: false, taskSupport: "optional" })
      const result = yield* client.callTool("job", {})
      assert.strictEqual(text(result), "job ran without a task")
      const refused = failureOf(yield* Effect.exit(client.callTool("job", {}, { task: "always", taskTtl: "1 minute" })))
      assert.strictEqual(refused._tag, "CapabilityNotSupported")
      assert.include(refused.message, "tasks.requests.tools.call")
      assert.strictEqual(methods(tasks, "tools/call").length, 1)
    }))

  it.effect("a tool not listed yet: the client lists the tools once to learn its task support", () =>
    Effect.gen(function*() {
      const tasks = TaskPeer.make({ pollInterval: 1_000 })
      const controlled = yield* McpPeer.controlled(tasks.script)
      const client = yield* McpClient.make({ command: "server", name: "tasks" }).pipe(Effect.provide(controlled.layer))
      yield* client.awaitReady
      const call = yield* Effect.forkChild(client.callTool("job", {}, { taskTtl: "1 minute" }))
      yield* tasks.move(yield* tasks.created(), "completed", { notify: true })
      yield* Fiber.join(call)
      yield* client.callTool("plain", {})
      assert.deepStrictEqual(tasks.requests().map((r) => r.method).filter((m) => m.startsWith("tools/")), [
        "tools/list",
        "tools/call",
        "tools/call"
      ])
      assert.deepStrictEqual(methods(tasks, "tools/call")[0]?.params["task"], { ttl: 60_000 })
    }))
})

describe("the handle form and the typed task methods (2025-11-25)", () => {
  it.effect("startTool: a handle whose statuses end with the task, whose cancel is tasks/cancel", () =>
    Effect.gen(function*() {
      const { client, tasks } = yield* setup({ pollInterval: 60_000 })
      const started = yield* client.startTool("job", {})
      assert.strictEqual(started._tag, "Task")
      if (started._tag !== "Task") return
      const handle = started.handle
      const id = yield* tasks.created()
      assert.strictEqual(handle.taskId, id)
      assert.strictEqual(handle.current().status, "working")
      const statuses = yield* Effect.forkChild(Stream.runCollect(handle.statuses), { startImmediately: true })
      yield* tasks.move(id, "working", { statusMessage: "half way", notify: true })
      yield* handle.cancel
      const error = failureOf(yield* Effect.exit(handle.result))
      assert.strictEqual(error._tag, "TaskCancelled")
      const seen = (yield* Fiber.join(statuses)).map((t) =>
        `${t.status}${t.statusMessage ? `: ${t.statusMessage}` : ""}`
      )
      assert.deepStrictEqual(seen, ["working", "working: half way", "cancelled: cancelled by request"])
      assert.strictEqual(tasks.task(id)?.status, "cancelled")
      // A plain tool starts as a result.
      const plain = yield* client.startTool("plain", {})
      assert.strictEqual(plain._tag, "Result")
    }))

  it.effect("getTask, listTasks, cancelTask, taskResult, taskStatus; a missing capability is refused unsent", () =>
    Effect.gen(function*() {
      const { client, frames, tasks } = yield* setup({ pollInterval: 1_000, ttl: 60_000 })
      const started = yield* client.startTool("job", {})
      const id = yield* tasks.created()
      const got = yield* client.getTask(id)
      assert.deepStrictEqual(got, {
        taskId: id,
        status: "working",
        createdAt: "2026-01-01T00:00:00.000Z",
        lastUpdatedAt: got.lastUpdatedAt,
        ttlMs: 60_000,
        pollIntervalMs: 1_000
      })
      assert.deepStrictEqual((yield* client.listTasks()).tasks.map((t) => t.taskId), [id])
      const statuses = yield* Effect.forkChild(Stream.runHead(client.taskStatus(id)))
      const result = yield* Effect.forkChild(client.taskResult(id))
      yield* McpPeer.awaitMethod(frames, "tasks/result")
      yield* tasks.move(id, "completed", { notify: true })
      assert.strictEqual(text(yield* Fiber.join(result)), `done ${id}`)
      assert.strictEqual(Option.getOrThrow(yield* Fiber.join(statuses)).status, "completed")
      assert.strictEqual(started._tag, "Task")
      const second = yield* client.startTool("job", {})
      const other = yield* tasks.created(2)
      const cancelled = yield* client.cancelTask(other)
      assert.strictEqual(Option.getOrThrow(cancelled).status, "cancelled")
      assert.strictEqual(second._tag, "Task")
      const unknown = failureOf(yield* Effect.exit(client.getTask("nope")))
      assert.strictEqual(unknown._tag, "RemoteError")

      const bare = yield* setup({ capability: { requests: { tools: { call: {} } } } })
      const refused = failureOf(yield* Effect.exit(bare.client.listTasks()))
      assert.strictEqual(refused._tag, "CapabilityNotSupported")
      assert.include(refused.message, "tasks.list")
      assert.strictEqual(methods(bare.tasks, "tasks/list").length, 0)
    }))
})
