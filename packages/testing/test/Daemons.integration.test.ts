/**
 * Daemons: a real redis-server starts on a free port and answers; kill stops it by pid (its group) and start
 * brings it back on the same port, with its data when persistence is on; closing the scope leaves no process.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { connect } from "node:net"
import * as Daemons from "../src/Daemons.ts"
import * as Processes from "../src/Processes.ts"

/** Sends one inline command to a Redis server and resolves with its first reply line (or the error). */
const ask = (port: number, command: string) =>
  Effect.callback<string>((resume) => {
    const socket = connect(port, "127.0.0.1")
    let reply = ""
    socket.on("connect", () => socket.write(`${command}\r\n`))
    socket.on("data", (chunk) => {
      reply += chunk.toString()
      if (reply.includes("\r\n")) {
        socket.destroy()
        resume(Effect.succeed(reply.split("\r\n")[0]!))
      }
    })
    socket.on("error", (error) => resume(Effect.succeed(`error: ${error.message}`)))
    socket.on("close", () => resume(Effect.succeed(reply === "" ? "closed" : reply)))
    return Effect.sync(() => socket.destroy())
  })

describe("Daemons", () => {
  it.live("redis starts on a free port, is killed by pid, starts again with its data, leaves nothing", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const redis = yield* Daemons.redis({ persistence: true }).pipe(Scope.provide(scope))
      assert.match(redis.url, /^redis:\/\/127\.0\.0\.1:\d+$/)
      assert.strictEqual(yield* ask(redis.port, "PING"), "+PONG")
      assert.strictEqual(yield* ask(redis.port, "SET kept yes"), "+OK")
      const first = yield* redis.pid
      if (first === undefined) return assert.fail("no pid")
      assert.isTrue(Processes.exists(first))

      yield* redis.kill
      assert.isFalse(Processes.exists(first))
      assert.strictEqual(yield* redis.pid, undefined)
      assert.match(yield* ask(redis.port, "PING"), /^error: .*ECONNREFUSED/)

      yield* redis.start
      const second = yield* redis.pid
      assert.isDefined(second)
      assert.notStrictEqual(second, first)
      assert.strictEqual(yield* ask(redis.port, "GET kept"), "$3")

      yield* Scope.close(scope, Exit.void)
      assert.isFalse(Processes.exists(second!))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("expect waits for the next output line that matches", () =>
    Effect.scoped(Effect.gen(function*() {
      const redis = yield* Daemons.redis()
      const shutdown = yield* redis.expect(/User requested shutdown/)
      yield* ask(redis.port, "SHUTDOWN NOSAVE")
      assert.match(yield* shutdown, /User requested shutdown/)
    })).pipe(Effect.provide(NodeServices.layer)))
})
