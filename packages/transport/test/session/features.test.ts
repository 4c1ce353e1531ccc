import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Logger, Option, References, Stream } from "effect"
import { TestClock } from "effect/testing"
import { CapabilityNotSupported } from "../../src/McpError.ts"
import * as Resources from "../../src/session/Resources.ts"
import type { MemoryPeer, Message } from "./memoryPeer.ts"
import * as Memory from "./memoryPeer.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

const ALL = {
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
  tools: {}
}

const paramsOf = (message: Message): { readonly [key: string]: unknown } => {
  const params = message["params"]
  return typeof params === "object" && params !== null ? { ...params } : {}
}

/** A server with two pages of resources (one broken, one repeated), templates, prompts and completion. */
const answer = (message: Message): unknown => {
  const params = paramsOf(message)
  switch (message["method"]) {
    case "resources/list":
      return params["cursor"] === undefined
        ? { resources: [{ uri: "file:///a", name: "a" }, { name: "no uri" }], nextCursor: "p2" }
        : { resources: [{ uri: "file:///b", name: "b", mimeType: "text/plain" }, { uri: "file:///a", name: "again" }] }
    case "resources/templates/list":
      return { resourceTemplates: [{ uriTemplate: "file:///{path}", name: "files" }], nextCursor: "" }
    case "resources/read":
      return params["uri"] === "file:///bin"
        ? { contents: [{ uri: "file:///bin", mimeType: "application/octet-stream", blob: "AAEC/w==" }] }
        : { contents: [{ uri: params["uri"], text: "hello" }] }
    case "prompts/list":
      return { prompts: [{ name: "greet", arguments: [{ name: "who", required: true }] }] }
    case "prompts/get":
      return {
        description: "a greeting",
        messages: [{ role: "user", content: { type: "text", text: `hi ${JSON.stringify(params["arguments"])}` } }]
      }
    case "completion/complete":
      return { completion: { values: ["alice", "alan"], total: 2, hasMore: false } }
    case "resources/subscribe":
    case "resources/unsubscribe":
    case "logging/setLevel":
      return {}
    default:
      return undefined
  }
}

const ready = (options: Memory.Options = {}) =>
  Effect.tap(Memory.make({ capabilities: ALL, answer, ...options }), (peer) => peer.session.awaitReady)

const sent = (peer: MemoryPeer, method: string) => peer.frames.filter((frame) => frame["method"] === method)

describe("resources, prompts, completion", () => {
  it.effect("lists resources across pages: a broken item and a repeated uri are skipped and reported", () =>
    Effect.gen(function*() {
      const peer = yield* ready()
      const listed = yield* peer.session.listResources()
      assert.deepStrictEqual(listed.resources.map((r) => r.uri), ["file:///a", "file:///b"])
      assert.strictEqual(listed.pages, 2)
      assert.deepStrictEqual(listed.skipped.map((s) => [s.index, s.name]), [[1, "no uri"], [3, "again"]])
      assert.match(listed.skipped[0]!.reason, /uri/)
      assert.match(listed.skipped[1]!.reason, /listed before it \(index 0\)/)
      assert.deepStrictEqual(sent(peer, "resources/list").map(paramsOf), [{}, { cursor: "p2" }])
    }))

  it.effect("lists templates ('' ends the list in the legacy era), prompts, and reads text and blob", () =>
    Effect.gen(function*() {
      const peer = yield* ready()
      const templates = yield* peer.session.listResourceTemplates()
      assert.deepStrictEqual(templates.resourceTemplates.map((t) => t.uriTemplate), ["file:///{path}"])
      assert.strictEqual(templates.pages, 1)
      const prompts = yield* peer.session.listPrompts()
      assert.deepStrictEqual(prompts.prompts.map((p) => p.name), ["greet"])
      const text = yield* peer.session.readResource("file:///a")
      assert.deepStrictEqual(text.contents, [{ uri: "file:///a", text: "hello" }])
      const blob = yield* peer.session.readResource("file:///bin")
      const bytes = yield* Resources.contentBytes("memory", blob.contents[0]!)
      assert.deepStrictEqual([...bytes], [0, 1, 2, 255])
      const textBytes = yield* Resources.contentBytes("memory", text.contents[0]!)
      assert.strictEqual(new TextDecoder().decode(textBytes), "hello")
      const bad = failureOf(yield* Effect.exit(Resources.contentBytes("memory", { uri: "x", blob: "not base64!" })))
      assert.strictEqual(bad._tag, "ProtocolError")
    }))

  it.effect("getPrompt sends name and arguments; complete sends ref, argument and context", () =>
    Effect.gen(function*() {
      const peer = yield* ready()
      const prompt = yield* peer.session.getPrompt("greet", { who: "bob" })
      assert.strictEqual(prompt.description, "a greeting")
      assert.deepStrictEqual(paramsOf(sent(peer, "prompts/get")[0]!), { name: "greet", arguments: { who: "bob" } })
      const completed = yield* peer.session.complete(
        { type: "ref/prompt", name: "greet" },
        { name: "who", value: "al" },
        { arguments: { lang: "en" } }
      )
      assert.deepStrictEqual(completed.completion.values, ["alice", "alan"])
      assert.deepStrictEqual(paramsOf(sent(peer, "completion/complete")[0]!), {
        ref: { type: "ref/prompt", name: "greet" },
        argument: { name: "who", value: "al" },
        context: { arguments: { lang: "en" } }
      })
    }))

  it.effect("a result of the wrong shape is a ProtocolError naming the method", () =>
    Effect.gen(function*() {
      const peer = yield* ready({ answer: (m) => m["method"] === "resources/read" ? { contents: "nope" } : answer(m) })
      const error = failureOf(yield* Effect.exit(peer.session.readResource("file:///a")))
      assert.strictEqual(error._tag, "ProtocolError")
      assert.strictEqual(error._tag === "ProtocolError" ? error.method : "", "resources/read")
    }))

  it.effect("subscribe, then updates for that uri only, as a stream; list_changed as events", () =>
    Effect.gen(function*() {
      const peer = yield* ready()
      yield* peer.session.subscribeResource("file:///a")
      assert.deepStrictEqual(paramsOf(sent(peer, "resources/subscribe")[0]!), { uri: "file:///a" })
      const updates = yield* Effect.forkChild(
        Stream.runCollect(Stream.take(peer.session.resourceUpdates("file:///a"), 2)),
        { startImmediately: true }
      )
      const changes = yield* Effect.forkChild(Stream.runCollect(Stream.take(peer.session.listChanges, 3)), {
        startImmediately: true
      })
      yield* Effect.yieldNow
      peer.send({ method: "notifications/resources/updated", params: { uri: "file:///other" } })
      peer.send({ method: "notifications/resources/updated", params: { uri: "file:///a" } })
      peer.send({ method: "notifications/resources/list_changed" })
      peer.send({ method: "notifications/prompts/list_changed" })
      peer.send({ method: "notifications/resources/updated", params: { uri: "file:///a", title: "t" } })
      peer.send({ method: "notifications/tools/list_changed" })
      const seen = yield* Fiber.join(updates)
      assert.deepStrictEqual(seen, [{ uri: "file:///a" }, { uri: "file:///a", title: "t" }])
      assert.deepStrictEqual(yield* Fiber.join(changes), ["resources", "prompts", "tools"])
      yield* peer.session.unsubscribeResource("file:///a")
      assert.strictEqual(sent(peer, "resources/unsubscribe").length, 1)
    }))
})

describe("capabilities and readiness", () => {
  it.effect("a method whose capability the server did not declare fails with CapabilityNotSupported, unsent", () =>
    Effect.gen(function*() {
      const peer = yield* ready({ capabilities: { resources: {} } })
      const calls: ReadonlyArray<readonly [string, Effect.Effect<unknown, { readonly _tag: string }>]> = [
        ["prompts", peer.session.listPrompts()],
        ["prompts", peer.session.getPrompt("greet")],
        ["completions", peer.session.complete({ type: "ref/prompt", name: "x" }, { name: "a", value: "" })],
        ["logging", peer.session.setLogLevel("debug")],
        ["resources.subscribe", peer.session.subscribeResource("file:///a")],
        ["resources.subscribe", peer.session.unsubscribeResource("file:///a")]
      ]
      for (const [capability, call] of calls) {
        const error = failureOf(yield* Effect.exit(call))
        assert.strictEqual(error._tag, "CapabilityNotSupported")
        assert.strictEqual(error instanceof CapabilityNotSupported ? error.capability : "", capability)
      }
      const none = yield* ready({ capabilities: {} })
      const error = failureOf(yield* Effect.exit(none.session.listResources()))
      assert.strictEqual(
        error.message,
        "MCP server \"memory\" does not declare the \"resources\" capability, so resources/list was not sent."
      )
      const methods = [...peer.frames, ...none.frames].map((frame) => frame["method"])
      const handshake = ["server/discover", "initialize", "notifications/initialized"]
      assert.deepStrictEqual(methods.filter((m) => typeof m !== "string" || !handshake.includes(m)), [])
      // The declared one goes out.
      yield* peer.session.listResources()
    }))

  it.effect("every method, and the untyped request, is NotReady before initialize is answered; nothing is sent", () =>
    Effect.gen(function*() {
      const peer = yield* Memory.make({ capabilities: ALL, answer, initialize: "never" })
      const calls: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>> = [
        peer.session.listResources(),
        peer.session.readResource("file:///a"),
        peer.session.listPrompts(),
        peer.session.setLogLevel("info"),
        peer.session.request("resources/list", {})
      ]
      for (const call of calls) assert.strictEqual(failureOf(yield* Effect.exit(call))._tag, "NotReady")
      // Only the handshake went out: the era probe, then (once it is refused) initialize.
      const methods = peer.frames.map((f) => f["method"])
      assert.strictEqual(methods[0], "server/discover")
      assert.deepStrictEqual(methods.filter((m) => m !== "server/discover" && m !== "initialize"), [])
    }))
})

describe("logging", () => {
  it.effect("setLogLevel sends the level", () =>
    Effect.gen(function*() {
      const peer = yield* ready()
      yield* peer.session.setLogLevel("warning")
      assert.deepStrictEqual(paramsOf(sent(peer, "logging/setLevel")[0]!), { level: "warning" })
    }))

  it.effect("notifications/message become log entries at the mapped level, annotated with server, logger, level", () =>
    Effect.gen(function*() {
      const entries: Array<{ level: string; message: unknown; annotations: Record<string, unknown> }> = []
      const logger = Logger.make(({ fiber, logLevel, message }) => {
        entries.push({ level: logLevel, message, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
      })
      yield* Effect.gen(function*() {
        const peer = yield* ready()
        const stream = yield* Effect.forkChild(Stream.runCollect(Stream.take(peer.session.logMessages, 3)), {
          startImmediately: true
        })
        yield* Effect.yieldNow
        peer.send({ method: "notifications/message", params: { level: "notice", logger: "db", data: "connected" } })
        peer.send({ method: "notifications/message", params: { level: "critical", data: { disk: "full" } } })
        peer.send({ method: "notifications/message", params: { level: "warning", logger: "db", data: "slow" } })
        const streamed = yield* Fiber.join(stream)
        assert.deepStrictEqual(streamed.map((m) => m.level), ["notice", "critical", "warning"])
        while (entries.filter((e) => e.annotations["mcpLogLevel"] !== undefined).length < 3) yield* Effect.yieldNow
      }).pipe(
        Effect.provide(Logger.layer([logger])),
        Effect.provideService(References.MinimumLogLevel, "Debug")
      )
      const server = entries.filter((e) => e.annotations["mcpLogLevel"] !== undefined)
      assert.deepStrictEqual(server.map((e) => [e.level, e.message, e.annotations["logger"]]), [
        ["Info", ["connected"], "db"],
        ["Fatal", ["{\"disk\":\"full\"}"], ""],
        ["Warn", ["slow"], "db"]
      ])
      assert.strictEqual(server[0]!.annotations["mcpServer"], "memory")
      assert.strictEqual(server[0]!.annotations["mcpLogLevel"], "notice")
    }))

  it.effect("a flood is rate-limited: the burst passes, the rest is dropped and counted; the bucket refills", () =>
    Effect.gen(function*() {
      const peer = yield* ready({ logRateLimit: { perSecond: 10, burst: 5 } })
      const flood = (n: number) => {
        for (let i = 0; i < n; i++) {
          peer.send({ method: "notifications/message", params: { level: "info", data: `line ${i}` } })
        }
      }
      flood(1000)
      assert.strictEqual(peer.session.stats().logMessages, 5)
      assert.strictEqual(peer.session.stats().logMessagesDropped, 995)
      // 10 a second: 300 ms refill 3.
      yield* TestClock.adjust("300 millis")
      flood(1000)
      assert.strictEqual(peer.session.stats().logMessages, 8)
      assert.strictEqual(peer.session.stats().logMessagesDropped, 1992)
      // A long silence refills the bucket to its burst, never past it.
      yield* TestClock.adjust("1 hour")
      flood(1000)
      assert.strictEqual(peer.session.stats().logMessages, 13)
      // Not a log entry at all: dropped and counted too.
      peer.send({ method: "notifications/message", params: { level: "loud", data: 1 } })
      assert.strictEqual(peer.session.stats().logMessagesDropped, 2988)
    }))

  it.effect("secrets are removed from streamed log data and from progress messages", () =>
    Effect.gen(function*() {
      const peer = yield* ready({ secrets: ["hunter2-secret"] })
      const stream = yield* Effect.forkChild(Stream.runHead(peer.session.logMessages), { startImmediately: true })
      yield* Effect.yieldNow
      peer.send({ method: "notifications/message", params: { level: "info", data: { token: "hunter2-secret" } } })
      const entry = yield* Fiber.join(stream)
      assert.notInclude(JSON.stringify(entry), "hunter2-secret")
      const messages: Array<string | undefined> = []
      const call = yield* Effect.forkChild(
        peer.session.callTool("t", {}, { onProgress: (p) => Effect.sync(() => messages.push(p.message)) })
      )
      const request = yield* Memory.nextRequest(peer, "tools/call")
      peer.send({
        method: "notifications/progress",
        params: { progressToken: Memory.progressToken(request), progress: 1, message: "using hunter2-secret" }
      })
      peer.send({ id: request["id"], result: { content: [] } })
      yield* Fiber.join(call)
      assert.strictEqual(messages.length, 1)
      assert.notInclude(messages[0] ?? "", "hunter2-secret")
    }))
})
