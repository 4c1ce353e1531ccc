/**
 * Regression: a reference server killed from outside is reported as `ProcessExited` (with the signal), for calls
 * in flight and for every later call — never as `ClientClosed` ("writing to the server's stdin failed"), which it
 * was in about 1 kill in 10 before the transport's writer waited for the exit status.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { waitUntil, withServer } from "./support.ts"

describe("reference servers through McpClient: crashes", () => {
  it.live("a server killed from outside: awaitExit reports the signal, isAlive turns false, calls fail ProcessExited", () =>
    Effect.gen(function*() {
      // The race is narrow: kill 16 servers side by side so that it shows in most runs.
      const runs = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        () =>
          withServer("memory", ({ client }) =>
            Effect.gen(function*() {
              yield* client.awaitReady
              process.kill(client.pid, "SIGKILL")
              const exit = yield* client.awaitExit
              yield* client.awaitTerminated
              const error = yield* client.callTool("read_graph", {}).pipe(Effect.flip)
              return { exit, error, alive: client.isAlive() }
            })),
        { concurrency: "unbounded" }
      )
      for (const { result } of runs) {
        assert.deepStrictEqual(result.exit, { code: null, signal: "SIGKILL" })
        assert.isFalse(result.alive)
      }
      const wrong = runs.filter(({ result }) => result.error._tag !== "ProcessExited")
      assert.deepStrictEqual(
        wrong.map(({ result }) => result.error.message),
        [],
        `${wrong.length} of ${runs.length} killed servers were reported as something other than ProcessExited`
      )
      for (const closed of runs) assert.isFalse(closed.processLeft || closed.groupLeft || closed.dirLeft)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a call in flight when its server is killed fails with ProcessExited", () =>
    Effect.gen(function*() {
      const runs = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        () =>
          withServer("everything", ({ client }) =>
            Effect.gen(function*() {
              yield* client.awaitReady
              const call = yield* client.callTool("trigger-long-running-operation", { duration: 10, steps: 5 }).pipe(
                Effect.flip,
                Effect.forkChild({ startImmediately: true })
              )
              yield* waitUntil(() => client.stats().pending === 1, "the call to be in flight")
              process.kill(client.pid, "SIGKILL")
              return yield* Fiber.join(call)
            })),
        { concurrency: "unbounded" }
      )
      const wrong = runs.filter(({ result }) => result._tag !== "ProcessExited")
      assert.deepStrictEqual(
        wrong.map(({ result }) => result.message),
        [],
        `${wrong.length} of ${runs.length} in-flight calls failed with something other than ProcessExited`
      )
    }).pipe(Effect.provide(NodeServices.layer)))
})
