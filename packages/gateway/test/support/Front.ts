/**
 * Gateway replicas in process for the wiring tests: each is `McpGateway.layerHttp` over its own fleet, on its own
 * ephemeral port, with the shared services it is given (`SessionSeal`, `ChangeBus`, `SharedState`); and a raw HTTP
 * host (fetch) that reads JSON answers and SSE streams event by event, so tests see exactly what a host would.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert } from "@effect/vitest"
import { McpGateway, SessionKeys, SessionSeal } from "@mcp-fleet/gateway"
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import { Context, Effect, Layer, Queue, Redacted, Stream } from "effect"
import type { Scope } from "effect"
import * as Aead from "effect/crypto/Aead"
import * as Digest from "effect/crypto/Digest"
import * as SecureRandom from "effect/crypto/SecureRandom"
import { HttpServer } from "effect/http"
import type { ChildProcessSpawner } from "effect/process"
import { createServer } from "node:http"

/** One replica: its endpoint and its parts. */
export interface Replica {
  readonly url: string
  readonly origin: string
  readonly gateway: McpGateway.McpGateway["Service"]
  readonly manager: McpManager.McpManager["Service"]
}

/** A replica over `servers` (every one ready first), with `services` in context; lives in the scope. */
export const replica = (
  servers: Readonly<Record<string, ManagerOptions.ServerConfig>>,
  services: Context.Context<never> = Context.empty()
): Effect.Effect<Replica, never, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.gen(function*() {
    const stack = McpGateway.layerHttp().pipe(
      Layer.provideMerge(McpGateway.layerFleet({ servers, reconnect: { initialDelay: "1 minute", maxAttempts: 1 } })),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" }))
    )
    const context = yield* Layer.build(stack).pipe(Effect.provideContext(services), Effect.orDie)
    const manager = Context.get(context, McpManager.McpManager)
    for (const name of Object.keys(servers)) yield* Effect.orDie(manager.waitForReady(name))
    const address = Context.get(context, HttpServer.HttpServer).address
    const origin = `http://127.0.0.1:${"port" in address ? address.port : 0}`
    return { url: `${origin}/mcp`, origin, gateway: Context.get(context, McpGateway.McpGateway), manager }
  })

/** A sealing service over fresh keys (the first seals); each replica given it opens the others' ids. */
export const sealWith = (keyLines: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const keys = yield* SessionKeys.parse(Redacted.make(keyLines.join("\n")))
    return yield* SessionSeal.make({ keys })
  }).pipe(
    Effect.provide(
      Layer.mergeAll(Aead.layerWebCrypto, Digest.layerWebCrypto).pipe(
        Layer.provideMerge(SecureRandom.layerWebCrypto)
      )
    ),
    Effect.orDie
  )

/** A new key line. */
export const newKey = SessionKeys.generate.pipe(
  Effect.map(Redacted.value),
  Effect.provide(SecureRandom.layerWebCrypto)
)

/** The context holding one sealing service. */
export const sealing = (seal: SessionSeal.SessionSeal["Service"]): Context.Context<never> =>
  Context.make(SessionSeal.SessionSeal, seal)

/** One SSE event. */
export interface SseEvent {
  readonly id: string | undefined
  readonly data: string
}

/** What a host got back. */
export interface Answer {
  readonly status: number
  readonly sessionId: string | undefined
  /** The JSON body, or the messages of the SSE stream until it ended. */
  readonly messages: ReadonlyArray<Record<string, unknown>>
  readonly events: ReadonlyArray<SseEvent>
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** Parses an SSE body chunk by chunk, offering each complete event. */
const readEvents = (body: ReadableStream<Uint8Array>, offer: (event: SseEvent) => void) =>
  Effect.promise(async () => {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ""
    while (true) {
      const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }))
      if (done) return
      buffer += value
      let end = buffer.indexOf("\n\n")
      while (end !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        let id: string | undefined
        const data: Array<string> = []
        for (const line of block.split("\n")) {
          if (line.startsWith("id:")) id = line.slice(3).trim()
          else if (line.startsWith("data:")) data.push(line.slice(5).trim())
        }
        offer({ id, data: data.join("\n") })
        end = buffer.indexOf("\n\n")
      }
    }
  })

/** A raw 2025-11-25 host: POSTs JSON-RPC, reads JSON or SSE to the end. */
export const post = (
  url: string,
  message: Record<string, unknown>,
  options: { readonly sessionId?: string | undefined; readonly sse?: boolean } = {}
): Effect.Effect<Answer> =>
  Effect.gen(function*() {
    const response = yield* Effect.promise(() =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: options.sse === true ? "application/json, text/event-stream" : "application/json",
          ...(options.sessionId === undefined ? {} : { "mcp-session-id": options.sessionId })
        },
        body: JSON.stringify({ jsonrpc: "2.0", ...message })
      })
    )
    const sessionId = response.headers.get("mcp-session-id") ?? undefined
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream") && response.body !== null) {
      const events: Array<SseEvent> = []
      yield* readEvents(response.body, (event) => events.push(event))
      const messages = events.flatMap((e) => (e.data === "" ? [] : [JSON.parse(e.data) as unknown])).filter(isRecord)
      return { status: response.status, sessionId, messages, events }
    }
    const text = yield* Effect.promise(() => response.text())
    const body: unknown = text === "" ? undefined : JSON.parse(text)
    return { status: response.status, sessionId, messages: isRecord(body) ? [body] : [], events: [] }
  })

/** `initialize` (2025-11-25); the session id it gave. */
export const initialize = (url: string, name = "raw-host", capabilities: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const answer = yield* post(url, {
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name, version: "1.0.0" } }
    })
    assert.strictEqual(answer.status, 200)
    const sessionId = answer.sessionId ?? assert.fail("no Mcp-Session-Id")
    yield* post(url, { method: "notifications/initialized" }, { sessionId })
    return sessionId
  })

/** An open SSE stream (a GET, or a POST answered with one): its events as they come, until the scope closes. */
export interface OpenStream {
  readonly status: number
  readonly events: Queue.Queue<SseEvent>
  /** The next event whose data is a message with `method` (skipping others). */
  readonly next: (method: string) => Effect.Effect<Record<string, unknown>>
  /** The next event with data (a message), within 10 s. */
  readonly nextEvent: Effect.Effect<SseEvent>
  /** How many messages with `method` the stream has carried so far (read or not). */
  readonly count: (method: string) => number
}

/** Opens a stream with `init`; it is read in the background and aborted when the scope closes. */
export const open = (url: string, init: RequestInit): Effect.Effect<OpenStream, never, Scope.Scope> =>
  Effect.gen(function*() {
    const abort = new AbortController()
    yield* Effect.addFinalizer(() => Effect.sync(() => abort.abort()))
    const response = yield* Effect.promise(() => fetch(url, { ...init, signal: abort.signal }))
    const events = yield* Queue.unbounded<SseEvent>()
    const methods: Array<unknown> = []
    if (response.body !== null) {
      yield* readEvents(response.body, (event) => {
        const message: unknown = event.data === "" ? undefined : JSON.parse(event.data)
        methods.push(isRecord(message) ? message["method"] : undefined)
        Queue.offerUnsafe(events, event)
      }).pipe(Effect.forkScoped)
    }
    const next = (method: string) =>
      Stream.fromQueue(events).pipe(
        Stream.map((event): unknown => (event.data === "" ? undefined : JSON.parse(event.data))),
        Stream.filter((message): message is Record<string, unknown> =>
          isRecord(message) && message["method"] === method
        ),
        Stream.runHead,
        Effect.map((found) => (found._tag === "Some" ? found.value : assert.fail(`the stream ended before ${method}`))),
        // A bound, not a wait: a missing message fails the test instead of hanging it.
        Effect.timeoutOrElse({
          duration: "10 seconds",
          orElse: () => Effect.die(new Error(`no ${method} within 10 s`))
        })
      )
    const nextEvent = Stream.fromQueue(events).pipe(
      Stream.filter((event) => event.data !== ""),
      Stream.runHead,
      Effect.map((found) => (found._tag === "Some" ? found.value : assert.fail("the stream ended"))),
      Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die(new Error("no message within 10 s")) })
    )
    return {
      status: response.status,
      events,
      next,
      nextEvent,
      count: (method) => methods.filter((m) => m === method).length
    }
  })

/** A session's GET stream. */
export const getStream = (url: string, sessionId: string, lastEventId?: string) =>
  open(url, {
    method: "GET",
    headers: {
      accept: "text/event-stream",
      "mcp-session-id": sessionId,
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId })
    }
  })

/** The `result` of a JSON-RPC answer (fails the test on an error). */
export const resultOf = (answer: Answer): Record<string, unknown> => {
  const message = answer.messages.find((m) => "result" in m || "error" in m)
  const result = message?.["result"]
  return isRecord(result) ? result : assert.fail(`no result: ${JSON.stringify(answer.messages)}`)
}

/** The names of a `tools/list` answer. */
export const toolNames = (answer: Answer): ReadonlyArray<string> => {
  const tools = resultOf(answer)["tools"]
  return Array.isArray(tools)
    ? tools.flatMap((t) => (isRecord(t) && typeof t["name"] === "string" ? [t["name"]] : []))
    : []
}
