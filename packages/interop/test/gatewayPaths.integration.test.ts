/**
 * The gateway's paths that the era and fleet tests do not take, in front of the conformance fixture (a 2025-era
 * stdio child, so that its questions to the client are server requests):
 *
 * - the 2026-07-28 era over stdio in front (a raw host on the gateway's stdin and stdout, in process);
 * - an upstream that takes back a question it asked (`notifications/cancelled` for its `elicitation/create`): the
 *   host that was asked is told, and its handler stops;
 * - the per-host limit of calls in flight: -32003 over stdio and in a 2025-era HTTP session, with HTTP 429;
 * - a large result through the gateway: its head and a `resource_link` to `fleet://results/<id>`, read in pages
 *   that put the whole text back together, in both eras.
 */
import { NodeHttpClient, NodeHttpServer, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { GatewayOptions } from "@mcp-fleet/gateway"
import { McpGateway } from "@mcp-fleet/gateway"
import { McpManager } from "@mcp-fleet/manager"
import type { Elicitation, ProtocolFeatures } from "@mcp-fleet/transport"
import { McpClient, McpError } from "@mcp-fleet/transport"
import type { Cause, Scope } from "effect"
import { Deferred, Effect, Exit, Fiber, Layer, Queue, Sink, Stdio, Stream } from "effect"
import type { HttpClient } from "effect/http"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { ACCEPT_BOTH, initialize, post, replyOf, SseReader } from "./httpRaw.ts"

const fixture = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers", "conformance-upstream.mjs")

/** What the fixture's `test_large_text` returns: numbered lines of 100 characters, cut at `chars`. */
const largeText = (chars: number) =>
  Array.from({ length: Math.ceil(chars / 100) }, (_, i) => `${String(i).padStart(6, "0")} ${"x".repeat(92)}\n`)
    .join("")
    .slice(0, chars)

const textOf = (result: { readonly content: ReadonlyArray<Record<string, unknown>> }) =>
  result.content.map((block) => String(block["text"] ?? "")).join("")

interface Fleet {
  readonly url: string
  readonly gateway: McpGateway.McpGateway["Service"]
  /** A host of mcp-fleet's own client over HTTP, in `era`, with an elicitation handler if given. */
  readonly host: (
    era: "legacy" | "modern",
    elicitation?: Elicitation.Service
  ) => Effect.Effect<McpClient.McpClient, never, Scope.Scope | HttpClient.HttpClient>
  /** A raw host on the gateway's stdin and stdout (in process). */
  readonly stdio: Effect.Effect<RawHost, never, Scope.Scope>
}

/** Runs `use` with the gateway (`options`) over HTTP in front of the fixture, once it is ready. */
const withGateway = <A, E>(
  options: GatewayOptions.GatewayOptions,
  use: (fleet: Fleet) => Effect.Effect<A, E, Scope.Scope | HttpClient.HttpClient>
) =>
  Effect.gen(function*() {
    const stack = McpGateway.layerHttp().pipe(
      Layer.provideMerge(
        McpGateway.layerFleet({
          servers: {
            upstream: { command: process.execPath, args: [fixture, "stdio"], client: { protocol: "legacy" } }
          }
        }, { prefix: "conditional", ...options })
      ),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" }))
    )
    const context = yield* Layer.build(stack)
    return yield* Effect.gen(function*() {
      yield* Effect.orDie((yield* McpManager.McpManager).waitForReady("upstream"))
      const gateway = yield* McpGateway.McpGateway
      const address = (yield* HttpServer.HttpServer).address
      const url = `http://127.0.0.1:${"port" in address ? address.port : 0}/mcp`
      const host = (era: "legacy" | "modern", elicitation?: Elicitation.Service) =>
        Effect.gen(function*() {
          const client = yield* Effect.orDie(McpClient.make({
            url,
            name: `host-${era}`,
            protocol: era,
            transport: "http",
            ...(elicitation === undefined ? {} : { handlers: { elicitation } })
          }))
          yield* Effect.orDie(client.awaitReady)
          return client
        })
      const stdio = rawStdioHost.pipe(Effect.provideService(McpGateway.McpGateway, gateway))
      return yield* use({ url, gateway, host, stdio })
    }).pipe(Effect.provide(context))
  }).pipe(Effect.scoped, Effect.provide([NodeHttpClient.layerUndici, NodeServices.layer]))

type Message = Record<string, unknown>

/** A host that writes JSON-RPC lines to the gateway's stdin and reads what it writes to stdout. */
interface RawHost {
  readonly send: (message: Message) => Effect.Effect<void>
  /** The first message (already received or to come) that `matches`. */
  readonly next: (matches: (message: Message) => boolean) => Effect.Effect<Message>
  /** Sends a request and waits for its response. */
  readonly request: (id: number | string, method: string, params?: unknown) => Effect.Effect<Message>
}

const rawStdioHost: Effect.Effect<RawHost, never, Scope.Scope | McpGateway.McpGateway> = Effect.gen(function*() {
  const input = yield* Queue.unbounded<Uint8Array, Cause.Done>()
  const received: Array<Message> = []
  const waiting: Array<{ matches: (message: Message) => boolean; found: Deferred.Deferred<Message> }> = []
  let buffer = ""
  const decoder = new TextDecoder()
  const stdout = Sink.forEach((chunk: string | Uint8Array) =>
    Effect.sync(() => {
      buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true })
      for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
        const message = JSON.parse(buffer.slice(0, end)) as Message
        buffer = buffer.slice(end + 1)
        received.push(message)
        for (const waiter of waiting.splice(0)) {
          if (waiter.matches(message)) Deferred.doneUnsafe(waiter.found, Exit.succeed(message))
          else waiting.push(waiter)
        }
      }
    })
  )
  const serving = yield* McpGateway.serveStdio().pipe(
    Effect.provide(Stdio.layerTest({ stdin: Stream.fromQueue(input), stdout: () => stdout })),
    Effect.forkScoped
  )
  // The host leaves as a stdio host does: its stdin ends (the gateway cancels its calls and stops serving it).
  yield* Effect.addFinalizer(() => Effect.andThen(Queue.end(input), Fiber.await(serving)))
  const encoder = new TextEncoder()
  const send = (message: Message) =>
    Effect.asVoid(Queue.offer(input, encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)))
  const next = (matches: (message: Message) => boolean) =>
    Effect.suspend(() => {
      const found = received.find(matches)
      if (found !== undefined) return Effect.succeed(found)
      const deferred = Deferred.makeUnsafe<Message>()
      waiting.push({ matches, found: deferred })
      return Deferred.await(deferred)
    })
  const request = (id: number | string, method: string, params?: unknown) =>
    Effect.andThen(
      send({ id, method, ...(params === undefined ? {} : { params }) }),
      next((message) => message["id"] === id && !("method" in message))
    )
  return { send, next, request }
})

/** The 2026-07-28 envelope of a request's `_meta`. */
const envelope = (extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw-modern-host", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
  ...extra
})

const raw = { name: "raw-host", version: "1" }

/** A raw 2025-era session that declares elicitation (initialized, no GET stream): the headers of its requests. */
const elicitingSession = (url: string) =>
  Effect.gen(function*() {
    const opened = yield* Effect.promise(() =>
      post(url, {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: raw }
      })
    )
    const headers = { "mcp-session-id": opened.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" }
    yield* Effect.promise(() => opened.text())
    yield* Effect.promise(() => post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers))
    return headers
  })
const resultOf = (message: Message) => {
  assert.property(message, "result", `a result, not ${JSON.stringify(message).slice(0, 200)}`)
  return message["result"] as Record<string, unknown>
}
const errorOf = (message: Message) => {
  assert.property(message, "error", `an error answer, not ${JSON.stringify(message).slice(0, 200)}`)
  return message["error"] as { code: number; message: string }
}

describe("the gateway's less travelled paths", { timeout: 90_000 }, () => {
  it.live("2026-07-28 over stdio: discover, list, call with progress, read, each request standing alone", () =>
    withGateway({}, ({ stdio }) =>
      Effect.gen(function*() {
        const host = yield* stdio
        const discovered = resultOf(yield* host.request(1, "server/discover", { _meta: envelope() }))
        assert.deepStrictEqual(discovered["supportedVersions"], ["2026-07-28"])
        assert.strictEqual(discovered["resultType"], "complete")
        const listed = resultOf(yield* host.request(2, "tools/list", { _meta: envelope() }))
        const names = (listed["tools"] as Array<{ name: string }>).map((tool) => tool.name)
        assert.include(names, "test_simple_text")
        assert.strictEqual(listed["resultType"], "complete")
        assert.strictEqual(listed["ttlMs"], 0, "the era's cache hints")
        const called = resultOf(
          yield* host.request(3, "tools/call", {
            name: "test_tool_with_progress",
            arguments: {},
            _meta: envelope({ progressToken: "modern-stdio" })
          })
        )
        assert.strictEqual(called["resultType"], "complete")
        const progress = yield* host.next((m) =>
          m["method"] === "notifications/progress" &&
          (m["params"] as Record<string, unknown>)["progress"] === 100
        )
        assert.strictEqual((progress["params"] as Record<string, unknown>)["progressToken"], "modern-stdio")
        const read = resultOf(
          yield* host.request(4, "resources/read", { uri: "test://static-text", _meta: envelope() })
        )
        assert.include(JSON.stringify(read["contents"]), "This is the content of the static text resource.")
        // The 2025-era methods are not served in this era, and a request without the envelope is the 2025 era's.
        assert.strictEqual(errorOf(yield* host.request(5, "ping", { _meta: envelope() })).code, -32601)
        // A 2025-era upstream's question reaches a 2026-07-28 host as an input round, answered by a retry.
        const asked = resultOf(
          yield* host.request(6, "tools/call", {
            name: "test_elicitation",
            arguments: { message: "Who is asking?" },
            _meta: envelope({ "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } })
          })
        )
        assert.strictEqual(asked["resultType"], "input_required")
        const [key] = Object.keys(asked["inputRequests"] as Record<string, unknown>)
        const answered = resultOf(
          yield* host.request(7, "tools/call", {
            name: "test_elicitation",
            arguments: { message: "Who is asking?" },
            requestState: asked["requestState"],
            inputResponses: { [key!]: { action: "accept", content: { response: "the stdio host" } } },
            _meta: envelope({ "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } })
          })
        )
        assert.include(JSON.stringify(answered["content"]), "the stdio host")
      })))

  it.live("an upstream that takes its question back: the host asked is told (notifications/cancelled)", () =>
    withGateway({}, ({ host, url }) =>
      Effect.gen(function*() {
        const asked = yield* Deferred.make<void>()
        const takenBack = yield* Deferred.make<void>()
        const client = yield* host("legacy", {
          form: () =>
            Deferred.succeed(asked, undefined).pipe(
              Effect.andThen(Effect.never),
              Effect.onInterrupt(() => Deferred.succeed(takenBack, undefined))
            )
        })
        const call = yield* Effect.forkChild(client.callTool("test_cancelled_question", {}))
        yield* Deferred.await(asked)
        assert.strictEqual(textOf(yield* client.callTool("test_cancel_questions", {})), "1")
        // The host's handler is interrupted by the gateway's notifications/cancelled, not left waiting.
        yield* Deferred.await(takenBack)
        assert.strictEqual(textOf(yield* Fiber.join(call)), "question taken back: aborted")

        // A raw 2025-era session with no GET stream: the question and its cancellation come on the call's stream.
        const headers = yield* elicitingSession(url)
        const question = new SseReader(
          yield* Effect.promise(() =>
            post(url, {
              jsonrpc: "2.0",
              id: 2,
              method: "tools/call",
              params: { name: "test_cancelled_question", arguments: {} }
            }, headers)
          )
        )
        const elicitation = yield* Effect.promise(() => question.nextMessage())
        assert.strictEqual(elicitation["method"], "elicitation/create")
        const cancel = yield* Effect.promise(() =>
          post(url, {
            jsonrpc: "2.0",
            id: 3,
            method: "tools/call",
            params: { name: "test_cancel_questions", arguments: {} }
          }, headers).then(replyOf)
        )
        assert.include(JSON.stringify(cancel), "\"1\"")
        const cancelled = yield* Effect.promise(() => question.nextMessage())
        assert.strictEqual(cancelled["method"], "notifications/cancelled")
        assert.strictEqual((cancelled["params"] as Record<string, unknown>)["requestId"], elicitation["id"])
        const last = yield* Effect.promise(() => question.nextResponse(2))
        assert.include(JSON.stringify(last), "question taken back: aborted")
      })))

  it.live("calls in flight per host: past the limit, -32003 (HTTP 429), over HTTP and over stdio", () =>
    withGateway({ maxInFlightPerHost: 2 }, ({ stdio, url }) =>
      Effect.gen(function*() {
        // HTTP, a raw 2025-era session: two calls waiting upstream (each has reported progress), then a third.
        const opened = yield* Effect.promise(() => post(url, initialize(1, "2025-11-25")))
        const session = opened.headers.get("mcp-session-id")!
        yield* Effect.promise(() => opened.text())
        const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
        yield* Effect.promise(() => post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers))
        const wait = (id: number) => ({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "test_wait", arguments: { ms: 600_000 }, _meta: { progressToken: id } }
        })
        const streams: Array<SseReader> = []
        for (const id of [2, 3]) {
          const reader = new SseReader(yield* Effect.promise(() => post(url, wait(id), headers)))
          streams.push(reader)
          // The priming event, then the call's first progress report: it is in flight upstream.
          for (
            let event = yield* Effect.promise(() => reader.next());;
            event = yield* Effect.promise(() => reader.next())
          ) {
            if (event?.data.includes("notifications/progress") === true) break
          }
        }
        // A quick call (were it let through, it would be answered at once).
        const simple = (id: number) => ({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "test_simple_text", arguments: {} }
        })
        const refused = yield* Effect.promise(() => post(url, simple(4), { ...headers, accept: ACCEPT_BOTH }))
        assert.strictEqual(refused.status, 429)
        const body = (yield* Effect.promise(() => refused.json())) as Message
        assert.strictEqual(errorOf(body).code, -32003)
        assert.strictEqual(body["id"], 4)
        yield* Effect.promise(() => Promise.all(streams.map((reader) => reader.cancel())))
        yield* Effect.promise(() =>
          fetch(url, { method: "DELETE", headers: { "mcp-session-id": session } }).then((r) => r.text())
        )

        // stdio: the same limit for the one host on the pipe.
        const host = yield* stdio
        yield* host.request(1, "initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw-stdio-host", version: "1" }
        })
        yield* host.send({ method: "notifications/initialized" })
        for (const id of [2, 3]) {
          yield* host.send(wait(id))
          yield* host.next((m) =>
            m["method"] === "notifications/progress" &&
            (m["params"] as Record<string, unknown>)["progressToken"] === id
          )
        }
        const overloaded = errorOf(yield* host.request(4, "tools/call", simple(4).params))
        assert.strictEqual(overloaded.code, -32003)
        assert.include(overloaded.message, "Too many requests in flight")
        // A call that ends frees its slot.
        yield* host.send({ method: "notifications/cancelled", params: { requestId: 2 } })
        const next = resultOf(yield* host.request(5, "tools/call", simple(5).params))
        assert.include(JSON.stringify(next["content"]), "simple text response")
      })))

  it.live("SSE resumption (Last-Event-ID): a dropped POST stream's answer and a dropped GET stream's update", () =>
    withGateway({}, ({ url }) =>
      Effect.gen(function*() {
        const headers = yield* elicitingSession(url)
        const resume = (lastEventId: string) =>
          Effect.promise(() =>
            fetch(url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": lastEventId } })
          ).pipe(Effect.map((response) => new SseReader(response)))

        // A POST stream dropped after the question: the answer is written down and comes on the resuming GET.
        const call = new SseReader(
          yield* Effect.promise(() =>
            post(url, {
              jsonrpc: "2.0",
              id: 2,
              method: "tools/call",
              params: { name: "test_elicitation", arguments: { message: "still there?" } }
            }, headers)
          )
        )
        const priming = (yield* Effect.promise(() => call.next()))!
        // The stream names this replica, the stream and the request (a tools/call, id 2: base64url of "2" is "Mg").
        assert.match(priming.id ?? "", /^[A-Za-z0-9_-]+\.\d+\.cMg-0$/)
        const question = (yield* Effect.promise(() => call.next()))!
        assert.include(question.data, "elicitation/create")
        yield* Effect.promise(() => call.cancel())
        const asked = JSON.parse(question.data) as { id: string }
        yield* Effect.promise(() =>
          post(url, {
            jsonrpc: "2.0",
            id: asked.id,
            result: { action: "accept", content: { response: "after the drop" } }
          }, headers).then((r) => r.text())
        )
        const resumed = yield* resume(question.id!)
        const answer = yield* Effect.promise(() => resumed.nextResponse(2))
        assert.include(JSON.stringify(answer), "after the drop")
        yield* Effect.promise(() => resumed.cancel())

        // The session's GET stream dropped: an update sent meanwhile is replayed after the last event it had.
        yield* Effect.promise(() =>
          post(url, {
            jsonrpc: "2.0",
            id: 3,
            method: "resources/subscribe",
            params: { uri: "test://watched-resource" }
          }, headers)
            .then((r) => r.text())
        )
        const standalone = new SseReader(
          yield* Effect.promise(() => fetch(url, { headers: { ...headers, accept: "text/event-stream" } }))
        )
        const first = (yield* Effect.promise(() => standalone.next()))!
        yield* Effect.promise(() => standalone.cancel())
        yield* Effect.promise(() =>
          post(url, {
            jsonrpc: "2.0",
            id: 4,
            method: "tools/call",
            params: { name: "test_update_resource", arguments: {} }
          }, headers).then((r) => r.text())
        )
        const again = yield* resume(first.id!)
        const update = yield* Effect.promise(() => again.nextMessage())
        assert.strictEqual(update["method"], "notifications/resources/updated")
        yield* Effect.promise(() => again.cancel())
      })))

  for (const era of ["legacy", "modern"] as const) {
    it.live(`a large result (${era} host): its head and a link to fleet://results/<id>, read back in pages`, () =>
      withGateway(
        { results: { threshold: 10_000, headChars: 2_000, pageChars: 30_000 } },
        ({ host }) =>
          Effect.gen(function*() {
            const client = yield* host(era)
            const whole = largeText(100_000)
            const result = yield* client.callTool("test_large_text", { chars: 100_000 })
            const head = result.content.find((block) => block["type"] === "text")
            assert.isTrue(String(head?.["text"]).startsWith(whole.slice(0, 2_000)), "the head is the text's start")
            const link = result.content.find((block) => block["type"] === "resource_link")
            const uri = String(link?.["uri"])
            assert.match(uri, /^fleet:\/\/results\/[A-Za-z0-9_-]+$/)
            let text = ""
            let pages = 0
            for (let page: string | undefined = uri; page !== undefined; pages++) {
              const read: ProtocolFeatures.ReadResourceResult = yield* client.readResource(page)
              text += String(read.contents[0]?.["text"])
              const next: unknown = read._meta?.["mcp-fleet/next"]
              page = typeof next === "string" ? next : undefined
            }
            assert.strictEqual(pages, 4, "100,000 characters in pages of 30,000")
            assert.strictEqual(text, whole)
            const error = yield* Effect.flip(client.readResource("fleet://results/no-such-result"))
            assert.instanceOf(error, McpError.RemoteError)
            assert.strictEqual((error as McpError.RemoteError).code, -32002)
          })
      ))
  }
})
