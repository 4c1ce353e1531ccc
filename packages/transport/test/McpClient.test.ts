import { assert, describe, it } from "@effect/vitest"
import { BaseEnvironment, McpClient, Tool } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Fiber, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { Message } from "./peers.ts"
import { awaitFrames, awaitMethod, controlledPeer, echoResult } from "./peers.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

const isMessage = (u: unknown): u is Message => typeof u === "object" && u !== null && !Array.isArray(u)
const framesWith = (frames: ReadonlyArray<unknown>, method: string) =>
  frames.filter((f): f is Message => isMessage(f) && f.method === method)

const toolsPage = (names: ReadonlyArray<string>) => names.map((name) => ({ name, inputSchema: { type: "object" } }))

describe("McpClient (in-memory peer)", () => {
  it.effect("starts without waiting for initialize and becomes ready in the background", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({ initialize: { instructions: "use me" } })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      assert.isFalse(client.isReady())
      const session = yield* client.awaitReady
      assert.strictEqual(session.protocolVersion, "2025-11-25")
      assert.strictEqual(session.instructions, "use me")
      assert.isTrue(client.isReady())
      yield* awaitMethod(frames, "notifications/initialized", 1)
      const init = framesWith(frames, "initialize")[0]!
      assert.deepStrictEqual(init.params, {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "mcp-fleet", version: "0.1.0" }
      })
    }))

  describe("CallToolBeforeReadyIsIndexBuilding", () => {
    it.effect("a live client whose initialize has not finished fails calls with ErrIndexBuilding", () =>
      Effect.gen(function*() {
        const { layer } = yield* controlledPeer({ initialize: "never" })
        const client = yield* McpClient.make({ command: "server", name: "indexer" }).pipe(Effect.provide(layer))
        const error = failureOf(yield* Effect.exit(client.callTool("search", { q: "x" })))
        assert.strictEqual(error._tag, "ErrIndexBuilding")
        // Callers match it by tag and pass the message through verbatim: one whole sentence.
        const caught: string = yield* client.callTool("search").pipe(
          Effect.as("no error"),
          Effect.catchTag("ErrIndexBuilding", (e) => Effect.succeed(e.message)),
          Effect.catch(() => Effect.succeed("another error"))
        )
        assert.match(
          caught,
          /^The "indexer" server is still starting up\b.*; retry .* or use another tool meanwhile\.$/
        )
        assert.notInclude(caught.slice(0, -1), ". ", "one sentence")
      }))

    it.effect("a dead process is a different error, not ErrIndexBuilding", () =>
      Effect.gen(function*() {
        const { layer, peer } = yield* controlledPeer({ initialize: "never" })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        assert.strictEqual(failureOf(yield* Effect.exit(client.callTool("x")))._tag, "ErrIndexBuilding")
        const p = yield* peer
        yield* p.stderr("fatal: out of memory\n")
        yield* p.exit(3)
        yield* client.awaitTerminated
        const error = failureOf(yield* Effect.exit(client.callTool("x")))
        assert.strictEqual(error._tag, "ProcessExited")
        if (error._tag !== "ProcessExited") return
        assert.strictEqual(error.code, 3)
        assert.deepStrictEqual(error.stderrTail, ["fatal: out of memory"])
        assert.isFalse(client.isAlive())
      }))

    it.effect("a closed client is a different error, not ErrIndexBuilding", () =>
      Effect.gen(function*() {
        const { layer } = yield* controlledPeer({ initialize: "never" })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        yield* client.forceClose
        assert.strictEqual(failureOf(yield* Effect.exit(client.callTool("x")))._tag, "ClientClosed")
      }))
  })

  describe("ListToolsRequiresReady", () => {
    it.effect("before initialize has been answered, listTools fails and never returns an empty list", () =>
      Effect.gen(function*() {
        const { frames, layer } = yield* controlledPeer({ initialize: "never" })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        const error = failureOf(yield* Effect.exit(client.listTools()))
        assert.strictEqual(error._tag, "NotReady")
        assert.strictEqual(framesWith(frames, "tools/list").length, 0, "no tools/list sent before ready")
      }))
  })

  describe("ListToolsPaginates", () => {
    // In the legacy era `nextCursor: ""` ends a list instead (faults/wireValidation.test.ts).
    it.effect("follows nextCursor until it is absent", () =>
      Effect.gen(function*() {
        const pages: Record<string, { tools: unknown; nextCursor?: string }> = {
          start: { tools: toolsPage(["a", "b"]), nextCursor: "p2" },
          p2: { tools: toolsPage(["c"]), nextCursor: "p3" },
          p3: { tools: toolsPage(["d", "e"]) }
        }
        const { frames, layer } = yield* controlledPeer({
          initialize: { instructions: "hello" },
          onRequest: (msg) => {
            const params = msg.params as { cursor?: string } | undefined
            return Effect.succeed(pages[params?.cursor ?? "start"])
          }
        })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        yield* client.awaitReady
        const list = yield* client.listTools()
        assert.deepStrictEqual(list.tools.map((t) => t.name), ["a", "b", "c", "d", "e"])
        assert.strictEqual(list.pages, 3)
        assert.strictEqual(list.instructions, "hello")
        assert.deepStrictEqual(framesWith(frames, "tools/list").map((f) => f.params), [{}, { cursor: "p2" }, {
          cursor: "p3"
        }])
      }))
  })

  describe("ListToolsPageCapErrors", () => {
    it.effect("a 21st page fails with PageCapExceeded after exactly 20 requests, never a truncated list", () =>
      Effect.gen(function*() {
        let n = 0
        const { frames, layer } = yield* controlledPeer({
          onRequest: () => Effect.sync(() => ({ tools: toolsPage([`t${n}`]), nextCursor: `c${++n}` }))
        })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        yield* client.awaitReady
        const error = failureOf(yield* Effect.exit(client.listTools()))
        assert.strictEqual(error._tag, "PageCapExceeded")
        assert.strictEqual(framesWith(frames, "tools/list").length, 20)
      }))

    it.effect("a cursor that repeats fails at once with RepeatedCursor", () =>
      Effect.gen(function*() {
        const { frames, layer } = yield* controlledPeer({
          onRequest: () => Effect.succeed({ tools: toolsPage(["x"]), nextCursor: "same" })
        })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        yield* client.awaitReady
        const error = failureOf(yield* Effect.exit(client.listTools()))
        assert.strictEqual(error._tag, "RepeatedCursor")
        assert.strictEqual(framesWith(frames, "tools/list").length, 2)
      }))
  })

  describe("ListToolsCarriesAnnotations", () => {
    it.effect("readOnlyHint true, false and absent stay distinguishable; absent is fail-safe", () =>
      Effect.gen(function*() {
        const { layer } = yield* controlledPeer({
          onRequest: () =>
            Effect.succeed({
              tools: [
                { name: "ro", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
                {
                  name: "rw",
                  inputSchema: { type: "object" },
                  annotations: { readOnlyHint: false, destructiveHint: false }
                },
                { name: "unknown", inputSchema: { type: "object" }, annotations: { title: "U" } },
                { name: "bare", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } }
              ]
            })
        })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        yield* client.awaitReady
        const { tools } = yield* client.listTools()
        const [ro, rw, unknown, bare] = tools
        assert.strictEqual(ro!.annotations?.readOnlyHint, true)
        assert.strictEqual(rw!.annotations?.readOnlyHint, false)
        assert.isFalse("readOnlyHint" in unknown!.annotations!, "absent stays absent, not false")
        assert.isFalse("destructiveHint" in ro!.annotations!)
        assert.isFalse("annotations" in bare!)
        assert.deepStrictEqual(bare!.execution, { taskSupport: "optional" }, "unknown fields are kept")
        assert.deepStrictEqual(tools.map((t) => Tool.hint(t, "readOnlyHint")), [true, false, "absent", "absent"])
        assert.deepStrictEqual(tools.map(Tool.mayWrite), [false, true, true, true])
      }))

    it.effect("a tool that does not decode is skipped and reported, not hidden", () =>
      Effect.gen(function*() {
        const { layer } = yield* controlledPeer({
          onRequest: () =>
            Effect.succeed({
              tools: [{ name: "ok", inputSchema: {} }, {
                name: "bad",
                inputSchema: {},
                annotations: { readOnlyHint: "yes" }
              }]
            })
        })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        yield* client.awaitReady
        const list = yield* client.listTools()
        assert.deepStrictEqual(list.tools.map((t) => t.name), ["ok"])
        assert.strictEqual(list.skipped.length, 1)
        assert.strictEqual(list.skipped[0]!.name, "bad")
      }))
  })

  describe("NewMCPClientDefaults", () => {
    it.effect("with no requestTimeout, a request expires at exactly 30 s and sends notifications/cancelled", () =>
      Effect.gen(function*() {
        const { frames, layer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        yield* client.awaitReady
        const fiber = yield* client.callTool("slow", {}).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
        yield* awaitMethod(frames, "tools/call")
        yield* TestClock.adjust("29999 millis")
        assert.isUndefined(fiber.pollUnsafe(), "still waiting at 29.999 s")
        yield* TestClock.adjust("1 millis")
        const error = failureOf(yield* Fiber.join(fiber))
        assert.strictEqual(error._tag, "RequestTimeout")
        if (error._tag === "RequestTimeout") assert.strictEqual(error.timeoutMs, 30_000)
        yield* awaitMethod(frames, "notifications/cancelled", 1)
        const call = framesWith(frames, "tools/call")[0]!
        assert.deepStrictEqual(framesWith(frames, "notifications/cancelled")[0]!.params, {
          requestId: call.id,
          reason: "no answer within 30000 ms"
        })
        assert.strictEqual(client.stats().pending, 0)
      }))

    for (const requestTimeout of [0, -5]) {
      it.effect(`requestTimeout ${requestTimeout} means the 30 s default`, () =>
        Effect.gen(function*() {
          const { frames, layer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
          const client = yield* McpClient.make({ command: "server", requestTimeout }).pipe(Effect.provide(layer))
          yield* client.awaitReady
          const fiber = yield* client.ping().pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
          yield* awaitMethod(frames, "ping")
          yield* TestClock.adjust("29 seconds")
          assert.isUndefined(fiber.pollUnsafe())
          yield* TestClock.adjust("1 second")
          assert.strictEqual(failureOf(yield* Fiber.join(fiber))._tag, "RequestTimeout")
        }))
    }
  })

  it.effect("the caller's shorter deadline wins over requestTimeout; a late reply is dropped", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server", requestTimeout: "10 seconds" }).pipe(
        Effect.provide(layer)
      )
      yield* client.awaitReady
      const fiber = yield* client.callTool("x", {}, { timeout: "2 seconds" }).pipe(
        Effect.exit,
        Effect.forkChild({ startImmediately: true })
      )
      yield* awaitMethod(frames, "tools/call")
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(failureOf(yield* Fiber.join(fiber))._tag, "RequestTimeout")
      const id = framesWith(frames, "tools/call")[0]!.id
      const p = yield* peer
      yield* p.send({ jsonrpc: "2.0", id, result: echoResult("late") })
      yield* p.send({ jsonrpc: "2.0", id: 1, result: {} }) // a duplicate answer to initialize
      yield* p.read
      assert.strictEqual(client.stats().unknownId, 2)
      assert.isTrue(client.isAlive())
    }))

  it.effect("interrupting a call removes it and sends notifications/cancelled", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const fiber = yield* client.callTool("x").pipe(Effect.forkChild({ startImmediately: true }))
      yield* awaitMethod(frames, "tools/call")
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(client.stats().pending, 0)
      yield* awaitMethod(frames, "notifications/cancelled", 1)
    }))

  it.effect("answers server ping with {} and other server requests with -32601", () =>
    Effect.gen(function*() {
      const { frames, layer, peer } = yield* controlledPeer({})
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const p = yield* peer
      yield* p.send({ jsonrpc: "2.0", id: "s1", method: "ping" })
      yield* p.send({ jsonrpc: "2.0", id: 0, method: "sampling/createMessage", params: {} })
      yield* p.send({ jsonrpc: "2.0", id: "s3", method: "roots/list" })
      const answers = () => frames.filter((f) => isMessage(f) && f.method === undefined && f.id !== undefined)
      yield* awaitFrames(frames, () => answers().length === 3)
      assert.deepStrictEqual(answers(), [
        { jsonrpc: "2.0", id: "s1", result: {} },
        { jsonrpc: "2.0", id: 0, error: { code: -32601, message: "Method not found: sampling/createMessage" } },
        { jsonrpc: "2.0", id: "s3", error: { code: -32601, message: "Method not found: roots/list" } }
      ])
    }))

  it.effect("junk, wrong shapes, \\r\\n and unknown ids are skipped; calls still pair by id", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({ onRequest: (msg) => Effect.succeed(echoResult(msg.params)) })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      const p = yield* peer
      yield* p.sendRaw("Server starting on stdio...\n[1, 2]\n{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\r\n")
      yield* p.sendRaw(
        "{\"jsonrpc\":\"1.0\",\"id\":5}\n{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"x\"}}\n"
      )
      yield* p.sendRaw(new Uint8Array([0xff, 0xfe, 0x7b, 0x0a]))
      yield* client.awaitReady
      const result = yield* client.callTool("echo", { a: 1 })
      assert.strictEqual(result.content[0]!.text, JSON.stringify({ name: "echo", arguments: { a: 1 } }))
      const stats = client.stats()
      assert.strictEqual(stats.notJson, 1)
      assert.strictEqual(stats.invalid, 3)
      assert.strictEqual(stats.unknownId, 1)
      assert.strictEqual(stats.invalidUtf8, 1)
      assert.isTrue(client.isAlive())
    }))

  it.effect("a response with both result and error fails its call at once with ProtocolError", () =>
    Effect.gen(function*() {
      const { layer, peer, frames } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const fiber = yield* client.callTool("x").pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* awaitMethod(frames, "tools/call", 1)
      const id = framesWith(frames, "tools/call")[0]!.id
      yield* (yield* peer).send({ jsonrpc: "2.0", id, result: {}, error: { code: 1, message: "both" } })
      assert.strictEqual(failureOf(yield* Fiber.join(fiber))._tag, "ProtocolError")
    }))

  it.effect("a line over maxMessageBytes fails the call whose id it carries at once, unbuffered", () =>
    Effect.gen(function*() {
      const { layer, peer, frames } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server", maxMessageBytes: 1024 }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const fiber = yield* client.callTool("x").pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* awaitMethod(frames, "tools/call", 1)
      const id = framesWith(frames, "tools/call")[0]!.id
      const p = yield* peer
      // The SDK puts the id last: the tail must be enough.
      const big = `{"result":{"content":[{"type":"text","text":"${"x".repeat(5000)}"}]},"jsonrpc":"2.0","id":${id}}\n`
      for (let i = 0; i < big.length; i += 700) yield* p.sendRaw(big.slice(i, i + 700))
      const error = failureOf(yield* Fiber.join(fiber))
      assert.strictEqual(error._tag, "MessageTooLarge")
      assert.strictEqual(client.stats().oversize, 1)
      assert.isTrue(client.isAlive())
    }))

  it.effect("an unsupported protocol version fails readiness with a typed error and closes the client", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({ initialize: { protocolVersion: "2099-01-01" } })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      const error = failureOf(yield* Effect.exit(client.awaitReady))
      assert.strictEqual(error._tag, "UnsupportedProtocolVersion")
      const p = yield* peer
      yield* p.exit(0).pipe(Effect.andThen(client.awaitTerminated))
      assert.isFalse(client.isAlive())
      assert.isFalse(client.isReady())
    }))

  for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
    it.effect(`accepts a server answering protocol ${version}`, () =>
      Effect.gen(function*() {
        const { layer } = yield* controlledPeer({ initialize: { protocolVersion: version } })
        const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
        assert.strictEqual((yield* client.awaitReady).protocolVersion, version)
      }))
  }

  it.effect("a crash fails every pending call at once with ProcessExited, code and stderr tail included", () =>
    Effect.gen(function*() {
      const { layer, peer, frames } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const fibers = yield* Effect.forEach(
        [1, 2, 3],
        (i) => client.callTool(`t${i}`).pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      )
      yield* awaitMethod(frames, "tools/call", 3)
      const p = yield* peer
      yield* p.stderr("panic: boom\n")
      yield* p.exit(2)
      for (const fiber of fibers) {
        const error = failureOf(yield* Fiber.join(fiber))
        assert.strictEqual(error._tag, "ProcessExited")
        if (error._tag === "ProcessExited") {
          assert.strictEqual(error.code, 2, JSON.stringify(error) + " " + error.message)
          assert.include(error.message, "panic: boom")
        }
      }
      assert.deepStrictEqual(Option.getOrUndefined(client.exitInfo()), { code: 2, signal: null })
      // Later calls fail at once, without waiting for any timeout.
      assert.strictEqual(failureOf(yield* Effect.exit(client.callTool("again")))._tag, "ProcessExited")
    }))

  it.effect("server notifications reach the notifications stream; the reader never blocks on them", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({
        onRequest: (msg) => Effect.succeed(msg.method === "ping" ? {} : undefined)
      })
      const client = yield* McpClient.make({ command: "server", notificationBuffer: 4 }).pipe(Effect.provide(layer))
      const p = yield* peer
      // Sent before anyone subscribed: replayed to the first subscriber.
      yield* p.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      yield* client.awaitReady
      yield* p.read
      assert.strictEqual(client.stats().notifications, 1)
      const collected = yield* client.notifications.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
      yield* p.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } })
      const got = yield* Fiber.join(collected)
      assert.deepStrictEqual(got.map((n) => n.method), ["notifications/tools/list_changed", "notifications/message"])
      // A flood with nobody reading does not stall calls.
      for (let i = 0; i < 100; i++) yield* p.send({ jsonrpc: "2.0", method: "notifications/message", params: { i } })
      yield* client.ping()
      assert.strictEqual(client.stats().notifications, 102)
    }))

  // The base environment comes from the application: faults/baseEnvironment.test.ts.
  it.effect("the child gets its base environment plus what is passed, not the parent's", () =>
    Effect.gen(function*() {
      const { layer, peer } = yield* controlledPeer({})
      yield* McpClient.make({ command: "server", env: { TOKEN: "t" } }).pipe(
        Effect.provide(layer),
        Effect.provide(BaseEnvironment.layer({ PATH: "/bin", HOME: "/h", PARENT_ONLY: "p" }))
      )
      const p = yield* peer
      assert.strictEqual(p.command.options.extendEnv, false)
      assert.deepStrictEqual(p.command.options.env, { PATH: "/bin", HOME: "/h", TOKEN: "t" })
    }))

  it.effect("requests past maxInFlight fail with TooManyInFlight instead of queueing", () =>
    Effect.gen(function*() {
      const { frames, layer } = yield* controlledPeer({ onRequest: () => Effect.succeed(undefined) })
      const client = yield* McpClient.make({ command: "server", maxInFlight: 2 }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      yield* client.ping().pipe(Effect.forkChild({ startImmediately: true }))
      yield* client.ping().pipe(Effect.forkChild({ startImmediately: true }))
      yield* awaitMethod(frames, "ping", 2)
      assert.strictEqual(failureOf(yield* Effect.exit(client.ping()))._tag, "TooManyInFlight")
    }))

  it.effect("arguments that cannot be JSON fail with InvalidParams and send nothing", () =>
    Effect.gen(function*() {
      const { layer } = yield* controlledPeer({})
      const client = yield* McpClient.make({ command: "server" }).pipe(Effect.provide(layer))
      yield* client.awaitReady
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      assert.strictEqual(failureOf(yield* Effect.exit(client.callTool("x", cyclic)))._tag, "InvalidParams")
      assert.strictEqual(client.stats().pending, 0)
    }))
})
