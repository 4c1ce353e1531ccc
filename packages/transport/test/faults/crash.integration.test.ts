/**
 * Fault suite, real processes: a server that crashes, by itself or by a signal, before or during calls.
 *
 * Invariant: every call settles — a value or a typed error — and a crash fails pending calls at once (the
 * request timeout is set far beyond vitest's own, so waiting for it would fail the test); nothing is left
 * running.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Scope } from "effect"
import { exists, waitUntil } from "../support.ts"
import { closableScope, failureOf, fake, grandchildPid } from "./helpers.ts"

const NEVER = { requestTimeout: "10 minutes" } as const

describe("Fault: crash (real fake server)", () => {
  it.live("exit during initialize (crash-after=1): awaitReady fails with ProcessExited, code 4 and the last line", () =>
    Effect.gen(function*() {
      const client = yield* fake({ crashAfter: 1 }, NEVER)
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "ProcessExited")
      if (error._tag !== "ProcessExited") return
      assert.strictEqual(error.code, 4)
      assert.isNull(error.signal)
      assert.include(error.stderrTail[error.stderrTail.length - 1] ?? "", "crash-after=1: exiting with code 4")
      assert.isFalse(client.isReady())
      assert.isFalse(client.isAlive())
      // A dead server is not "still starting": calls get ProcessExited, never ErrIndexBuilding / NotReady.
      assert.strictEqual(failureOf(yield* Effect.exit(client.callTool("echo")))._tag, "ProcessExited")
      assert.strictEqual(failureOf(yield* Effect.exit(client.listTools()))._tag, "ProcessExited")
      assert.strictEqual(failureOf(yield* Effect.exit(client.ping()))._tag, "ProcessExited")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("crash-after=N under 64 concurrent calls: answers written before the crash arrive, all others fail", () =>
    Effect.gen(function*() {
      // The era probe (server/discover, answered -32601) is request 1 and initialize request 2, so calls 1..30 are
      // answered and the 31st kills it.
      const crashAfter = 33
      const client = yield* fake({ crashAfter }, NEVER)
      yield* client.awaitReady
      const exits = yield* Effect.forEach(
        Array.from({ length: 64 }, (_, i) => i),
        (i) => Effect.exit(client.callTool("echo", { i })),
        { concurrency: "unbounded" }
      )
      const succeeded = exits.filter(Exit.isSuccess)
      const failed = exits.filter(Exit.isFailure).map(failureOf)
      assert.strictEqual(succeeded.length + failed.length, 64, "every call settled")
      assert.strictEqual(succeeded.length, crashAfter - 3, "every answer written before the crash was delivered")
      for (const [i, exit] of exits.entries()) {
        if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value.structuredContent, { i }, "paired with its own")
      }
      for (const error of failed) {
        assert.strictEqual(error._tag, "ProcessExited")
        if (error._tag === "ProcessExited") assert.strictEqual(error.code, 4)
      }
      assert.strictEqual(client.stats().pending, 0)
      assert.isFalse(client.isAlive())
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: 4, signal: null })
      assert.isFalse(exists(client.pid))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("the server exits on its own while a grandchild holds stdout: calls fail at once, close ends the group", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      const client = yield* fake({ modes: ["grandchild"] }, { ...NEVER, shutdownGrace: 200, killGrace: 200 }).pipe(
        Scope.provide(scope)
      )
      yield* client.awaitReady
      yield* waitUntil(() => grandchildPid(client.stderrTail()) !== undefined, "grandchild pid on stderr")
      const grandchild = grandchildPid(client.stderrTail())!
      const pending = yield* client.callTool("sleep", { ms: 600_000 }).pipe(
        Effect.exit,
        Effect.forkChild({ startImmediately: true })
      )
      yield* waitUntil(() => client.stats().pending === 1, "call pending")
      // The server exits with code 0, but stdout stays open: the grandchild inherited it.
      const exitCall = failureOf(yield* Effect.exit(client.callTool("exit", { code: 0 })))
      assert.strictEqual(exitCall._tag, "ProcessExited")
      const error = failureOf(yield* Fiber.join(pending))
      assert.strictEqual(error._tag, "ProcessExited")
      if (error._tag === "ProcessExited") assert.strictEqual(error.code, 0)
      assert.isTrue(exists(grandchild), "the grandchild still runs after the server exited")
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(exists(client.pid))
      assert.isFalse(exists(grandchild), "closing the client ended the grandchild too")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a dead process is ProcessExited at once, even while a grandchild holds stdout before initialize", () =>
    Effect.gen(function*() {
      const scope = yield* closableScope
      // The server exits on its first request (initialize); its grandchild keeps stdout and stderr open, so the
      // connection is not terminated until the drain window ends.
      const client = yield* fake({ modes: ["grandchild"], crashAfter: 1 }, {
        ...NEVER,
        shutdownGrace: 200,
        killGrace: 200
      }).pipe(Scope.provide(scope))
      yield* waitUntil(() => !client.isAlive(), "the process exited")
      const call = failureOf(yield* Effect.exit(client.callTool("echo")))
      const list = failureOf(yield* Effect.exit(client.listTools()))
      assert.strictEqual(call._tag, "ProcessExited", "a dead process is never ErrIndexBuilding")
      assert.strictEqual(list._tag, "ProcessExited", "a dead process is never NotReady")
      if (call._tag === "ProcessExited") assert.strictEqual(call.code, 4)
      assert.strictEqual(failureOf(yield* Effect.exit(client.awaitReady))._tag, "ProcessExited")
      yield* Scope.close(scope, Exit.void)
    }).pipe(Effect.provide(NodeServices.layer)))
})
