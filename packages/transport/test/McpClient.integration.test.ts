import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FakeServer } from "@mcp-fleet/testing"
import type { McpClientOptions } from "@mcp-fleet/transport"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Fiber, Option, Predicate, Scope } from "effect"
import { exists, waitUntil } from "./support.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

const fake = (options: FakeServer.Options, extra: Partial<McpClientOptions.McpClientOptions> = {}) => {
  const { args, command, env } = FakeServer.command(options)
  return McpClient.make({ command, args, env, name: "fake", ...extra })
}

const grandchildPid = (tail: ReadonlyArray<string>): number | undefined => {
  for (const line of tail) {
    const match = /grandchild pid=(\d+)/.exec(line)
    if (match) return Number(match[1])
  }
  return undefined
}

describe("McpClient (real fake server)", () => {
  it.live("lists every tool with the server's instructions and calls one", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["tools-list-paged"], tools: 50, pageSize: 10 })
      const session = yield* client.awaitReady
      assert.strictEqual(session.serverInfo.name, "fake-mcp-server")
      const list = yield* client.listTools()
      assert.strictEqual(list.tools.length, 57)
      assert.strictEqual(list.pages, 6)
      assert.include(list.instructions ?? "", "tools-list-paged")
      const result = yield* client.callTool("echo", { hello: "world" })
      assert.deepStrictEqual(result.structuredContent, { hello: "world" })
    }).pipe(Effect.provide(NodeServices.layer)))

  describe("ConcurrentCallsStayFramed", () => {
    it.live("64 concurrent calls with newlines, unicode and 64 KiB payloads pair with their own answers", () =>
      Effect.gen(function*() {
        const client = yield* fake({ modes: ["reverse"], batch: 64 })
        yield* client.awaitReady
        const payloads = Array.from({ length: 64 }, (_, i) => ({
          i,
          text: `line one\nline two ${i} \u2028 \u00e9\u{1F600} "quoted" \\ back`,
          pad: i % 8 === 0 ? "x".repeat(64 * 1024) : ""
        }))
        const results = yield* Effect.forEach(payloads, (p) => client.callTool("echo", p), { concurrency: "unbounded" })
        results.forEach((result, i) => assert.deepStrictEqual(result.structuredContent, payloads[i]))
        const stats = client.stats()
        assert.strictEqual(stats.notJson + stats.invalid + stats.unknownId, 0, "the server saw only whole frames")
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  describe("IsAliveStaysRaceFreeWhileShutdownReapsChild", () => {
    it.live("isAlive is a pure read from any fiber, during and after a shutdown that must escalate to SIGKILL", () =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const client = yield* fake({ modes: ["ignore-sigterm"] }, { shutdownGrace: 100, killGrace: 200 }).pipe(
          Scope.provide(scope)
        )
        yield* client.awaitReady
        const pid = client.pid
        const seen: Array<boolean> = []
        let closed = false
        const watcher = yield* Effect.gen(function*() {
          while (!closed) {
            seen.push(client.isAlive())
            yield* Effect.yieldNow
          }
        }).pipe(Effect.forkChild({ startImmediately: true }))
        const closing = yield* Scope.close(scope, Exit.void).pipe(Effect.forkChild({ startImmediately: true }))
        // While the shutdown is waiting on the child, isAlive answers at once.
        for (let i = 0; i < 100; i++) {
          assert.isBoolean(client.isAlive())
          yield* Effect.yieldNow
        }
        yield* Fiber.join(closing)
        // The client's own shutdown escalated to SIGKILL and saw the child exit before it returned (not a later
        // finalizer of the spawner).
        assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: null, signal: "SIGKILL" })
        closed = true
        yield* Fiber.join(watcher)
        assert.isAbove(seen.length, 100)
        assert.isFalse(client.isAlive())
        const firstFalse = seen.indexOf(false)
        assert.isAtLeast(firstFalse, 0)
        assert.isTrue(seen.slice(firstFalse).every((v) => v === false), "never alive again once false")
        assert.isFalse(exists(pid), "the child was reaped")
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  it.live("a server that dies on a call fails it at once with its exit code and last stderr line", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["die-on-call"] })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("echo", {})))
      assert.strictEqual(error._tag, "ProcessExited")
      if (error._tag !== "ProcessExited") return
      assert.strictEqual(error.code, 3)
      assert.isAbove(error.stderrTail.length, 0)
      assert.match(error.message, /exited with code 3\. Last stderr line: /)
      assert.isFalse(client.isAlive())
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a server that ignores EOF and SIGTERM is still closed, by SIGKILL, in bounded time", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const client = yield* fake({ modes: ["ignore-sigterm"] }, { shutdownGrace: 100, killGrace: 200 }).pipe(
        Scope.provide(scope)
      )
      yield* client.awaitReady
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(exists(client.pid))
      const exit = Option.getOrUndefined(client.exitInfo())
      assert.deepStrictEqual(exit, { code: null, signal: "SIGKILL" })
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("closing a server started through a wrapper also ends its grandchild", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const client = yield* fake({ modes: ["grandchild"] }, { shutdownGrace: 200, killGrace: 200 }).pipe(
        Scope.provide(scope)
      )
      yield* client.awaitReady
      yield* waitUntil(() => grandchildPid(client.stderrTail()) !== undefined, "grandchild pid on stderr")
      const grandchild = grandchildPid(client.stderrTail())!
      assert.isTrue(exists(grandchild))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(exists(client.pid))
      assert.isFalse(exists(grandchild), "the grandchild is gone too")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("forceClose kills at once, fails pending calls with ClientClosed, and reaps the child", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["hang"] })
      yield* client.awaitReady
      const pending = yield* client.callTool("echo", {}).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* waitUntil(() => client.stats().pending === 1, "call pending")
      yield* client.forceClose
      assert.strictEqual(failureOf(yield* Fiber.join(pending))._tag, "ClientClosed")
      assert.isFalse(exists(client.pid))
      assert.strictEqual(Option.getOrUndefined(client.exitInfo())?.signal, "SIGKILL")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("an answer over maxMessageBytes fails that call with MessageTooLarge; the connection lives on", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["huge-line"], hugeBytes: 8 * 1024 * 1024 }, {
        maxMessageBytes: 1024 * 1024
      })
      yield* client.awaitReady
      const error = failureOf(yield* Effect.exit(client.callTool("echo", { a: 1 })))
      assert.strictEqual(error._tag, "MessageTooLarge")
      assert.isTrue(client.isAlive())
      yield* client.ping()
      assert.strictEqual(client.stats().oversize, 1)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a stderr flood never stalls calls, and only a bounded tail is kept", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["stderr-flood"], floodBytes: 4 * 1024 * 1024 }, { stderrLines: 5 })
      yield* client.awaitReady
      yield* Effect.forEach(Array.from({ length: 50 }, (_, i) => i), (i) => client.callTool("echo", { i }), {
        concurrency: 8
      })
      yield* waitUntil(() => client.stats().stderrBytes >= 4 * 1024 * 1024, "flood read")
      assert.isAtMost(client.stderrTail().length, 5)
      assert.isTrue(client.stderrTail().every((line) => line.length <= 513))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("junk lines before valid traffic are skipped", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["junk-first"] })
      yield* client.awaitReady
      yield* client.ping()
      assert.strictEqual(client.stats().notJson, 2)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a server that never answers initialize stays alive and not ready; calls get ErrIndexBuilding", () =>
    Effect.gen(function*() {
      const client = yield* fake({ modes: ["no-initialize"] })
      yield* client.ping()
      assert.isTrue(client.isAlive())
      assert.isFalse(client.isReady())
      assert.strictEqual(failureOf(yield* Effect.exit(client.callTool("echo")))._tag, "ErrIndexBuilding")
      assert.strictEqual(failureOf(yield* Effect.exit(client.listTools()))._tag, "NotReady")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("an unsupported protocol version fails readiness and the server is shut down", () =>
    Effect.gen(function*() {
      const client = yield* fake({ protocol: "2099-01-01" })
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "UnsupportedProtocolVersion")
      yield* client.awaitExit
      assert.isFalse(client.isAlive())
      assert.isFalse(exists(client.pid))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("the server's own requests are answered: ping with {}, undeclared capabilities with -32601", () =>
    Effect.gen(function*() {
      const client = yield* fake({})
      yield* client.awaitReady
      const ping = yield* client.callTool("server_request", { method: "ping" })
      assert.deepStrictEqual(Predicate.isObject(ping.structuredContent) ? ping.structuredContent.result : undefined, {})
      const sampling = yield* client.callTool("server_request", { method: "sampling/createMessage", params: {} })
      assert.strictEqual(
        ((Predicate.isObject(sampling.structuredContent) ? sampling.structuredContent.error : undefined) as {
          code?: number
        } | undefined)?.code,
        -32601
      )
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a missing command or working directory is a SpawnError", () =>
    Effect.gen(function*() {
      const missing = failureOf(yield* Effect.exit(McpClient.make({ command: "/nonexistent/mcp-server" })))
      assert.strictEqual(missing._tag, "SpawnError")
      const badCwd = failureOf(
        yield* Effect.exit(McpClient.make({ command: process.execPath, cwd: "/nonexistent/dir" }))
      )
      assert.strictEqual(badCwd._tag, "SpawnError")
      assert.include(badCwd.message, "/nonexistent/dir")
    }).pipe(Effect.provide(NodeServices.layer)))
})
