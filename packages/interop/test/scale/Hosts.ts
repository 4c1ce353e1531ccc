/**
 * The hosts of the scale test, three real clients behind one interface: the v2 SDK client
 * (`@modelcontextprotocol/client` 2.4.0) at 2026-07-28, the v1 SDK client (1.32.2) at 2025-11-25, and mcp-fleet's
 * own client (`McpClient`, `protocol: "legacy"`) at 2025-11-25.
 *
 * What each host does is seen through its own `fetch` (each client takes one): how many times it sent `initialize`
 * (a legacy session lost would send it again), every 404 it got for a session, and whether its channel for list
 * changes is open now (a 2025-11-25 host's `GET` stream; a 2026-07-28 host's `subscriptions/listen`, which the host
 * opens again whenever it drops, as a host keeping a subscription does). Each call's outcome is one of: a result,
 * an `isError` result (its text's start is the type), or a thrown error (its class and code are the type).
 */
import { McpClient } from "@mcp-fleet/transport"
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Latch, Schedule, Stream } from "effect"
import type { Scope } from "effect"
import { FetchHttpClient } from "effect/http"

/** Which client a host is. */
export type Kind = "v2" | "v1" | "fleet"

/** The outcome of one call. */
export type Outcome =
  | { readonly _tag: "Ok"; readonly text: string }
  | { readonly _tag: "Failed"; readonly type: string; readonly detail: string }

/** What a host saw. */
export interface Stats {
  calls: number
  ok: number
  readonly failures: Map<string, number>
  /** When each `notifications/tools/list_changed` arrived (`performance.now()`). */
  readonly listChanged: Array<number>
  /** `initialize` requests sent. */
  initializes: number
  /** 404 answers to a request that carried a session id. */
  notFound: number
  /** Elicitation requests the host answered. */
  elicited: number
}

/** One host. */
export interface Host {
  readonly name: string
  readonly kind: Kind
  readonly stats: Stats
  /** Calls a tool; never fails: the outcome says what happened. */
  readonly call: (name: string, args: Record<string, unknown>) => Effect.Effect<Outcome>
  /** Open while the host's channel for list changes is open. */
  readonly channel: Latch.Latch
  /** Waits until the host has heard a `tools/list_changed` at or after `from` (`performance.now()`). */
  readonly heardSince: (from: number) => Effect.Effect<void>
}

/** The request deadline every host uses: a call that passes it is a failure of its own type, never a hang. */
export const DEADLINE_MS = 20_000

const newStats = (): Stats => ({
  calls: 0,
  ok: 0,
  failures: new Map(),
  listChanged: [],
  initializes: 0,
  notFound: 0,
  elicited: 0
})

/** Records list changes as they arrive, and waits for them. */
const listChanges = (stats: Stats) => {
  const waiters = new Set<() => void>()
  return {
    heard: () => {
      stats.listChanged.push(performance.now())
      for (const wake of [...waiters]) wake()
    },
    heardSince: (from: number) =>
      Effect.callback<void>((resume) => {
        const check = () => {
          if (!stats.listChanged.some((t) => t >= from)) return
          waiters.delete(check)
          resume(Effect.void)
        }
        waiters.add(check)
        check()
        return Effect.sync(() => waiters.delete(check))
      })
  }
}

const textOfResult = (result: unknown): string => {
  const content = typeof result === "object" && result !== null && "content" in result ? result.content : undefined
  return Array.isArray(content)
    ? content.map((block) => (typeof block?.text === "string" ? block.text : "")).join("")
    : ""
}

const isErrorResult = (result: unknown) =>
  typeof result === "object" && result !== null && "isError" in result && result.isError === true

/** The outcome of a result: `isError` results are failures typed by their text's start. */
const fromResult = (result: unknown): Outcome => {
  const text = textOfResult(result)
  if (!isErrorResult(result)) return { _tag: "Ok", text }
  const type = text.startsWith("The gateway replica serving this call went away")
    ? "isError: the replica serving the call went away (answered by another replica)"
    : `isError: ${text.slice(0, 60)}`
  return { _tag: "Failed", type, detail: text }
}

/** The type of a thrown error: its class, and its code when it has one. */
const fromThrown = (error: unknown): Outcome => {
  if (!(error instanceof Error)) return { _tag: "Failed", type: "thrown non-error", detail: String(error) }
  const code = "code" in error ? ` ${String(error.code)}` : ""
  // undici's `fetch failed` says why in its cause (a socket closed, a connection refused).
  const cause = error.cause instanceof Error
    ? `: ${"code" in error.cause ? String(error.cause.code) : error.cause.constructor.name}`
    : ""
  return {
    _tag: "Failed",
    type: `${error.constructor.name}${code} ${error.message.slice(0, 40)}${cause}`,
    detail: `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}`
  }
}

const count = (stats: Stats, outcome: Outcome) => {
  stats.calls++
  if (outcome._tag === "Ok") stats.ok++
  else stats.failures.set(outcome.type, (stats.failures.get(outcome.type) ?? 0) + 1)
}

/** A request's `last-event-id` names a request's stream (a resumption), not a session's own `GET` stream. */
const resumesRequest = (lastEventId: string | null) =>
  lastEventId !== null && /\.[cr][A-Za-z0-9_-]*-\d+$/.test(lastEventId)

/**
 * A `fetch` that counts what the host sends and whether its `GET` stream is open. `channel` is opened while one
 * stream (not a resumption of a request's stream) is open.
 */
const tracked = (stats: Stats, channel: Latch.Latch): typeof fetch => {
  let open = 0
  const closed = () => {
    open = Math.max(0, open - 1)
    if (open === 0) Latch.closeUnsafe(channel)
  }
  return async (input, init) => {
    const headers = new Headers(init?.headers)
    const body = init?.body
    const text = typeof body === "string" ? body : body instanceof Uint8Array ? new TextDecoder().decode(body) : ""
    if (text.includes("\"method\":\"initialize\"")) stats.initializes++
    const response = await fetch(input, init)
    if (response.status === 404 && headers.has("mcp-session-id")) stats.notFound++
    const method = (init?.method ?? "GET").toUpperCase()
    const events = (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
    if (method !== "GET" || !response.ok || !events || response.body === null) return response
    if (resumesRequest(headers.get("last-event-id"))) return response
    open++
    Latch.openUnsafe(channel)
    const reader = response.body.getReader()
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      closed()
    }
    const watched = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (done) {
            end()
            controller.close()
          } else controller.enqueue(value)
        } catch (error) {
          end()
          controller.error(error)
        }
      },
      cancel(reason) {
        end()
        return reader.cancel(reason)
      }
    })
    return new Response(watched, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    })
  }
}

/** A v2 SDK client at 2026-07-28, keeping a `subscriptions/listen` for tool list changes open. */
export const v2 = (url: string, name: string): Effect.Effect<Host, never, Scope.Scope> =>
  Effect.gen(function*() {
    const stats = newStats()
    const channel = Latch.makeUnsafe(false)
    const changes = listChanges(stats)
    const client = new V2Client({ name, version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
    client.setNotificationHandler("notifications/tools/list_changed", changes.heard)
    const transport = new V2Http(new URL(url), { fetch: tracked(stats, Latch.makeUnsafe(false)) })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(transport)),
      () => Effect.promise(() => client.close().catch(() => undefined))
    )
    // The host keeps its subscription: opened again whenever it drops (a bounded retry with a delay when refused).
    const listen = Effect.tryPromise(() => client.listen({ toolsListChanged: true })).pipe(
      Effect.retry(Schedule.spaced("100 millis")),
      Effect.tap(() => Effect.sync(() => Latch.openUnsafe(channel))),
      Effect.flatMap((subscription) => Effect.promise(() => subscription.closed)),
      Effect.tap(() => Effect.sync(() => Latch.closeUnsafe(channel))),
      Effect.forever
    )
    yield* Effect.forkScoped(listen)
    const call = (tool: string, args: Record<string, unknown>) =>
      Effect.promise(() =>
        client.callTool({ name: tool, arguments: args }, { timeout: DEADLINE_MS }).then(fromResult, fromThrown)
      ).pipe(Effect.tap((outcome) => Effect.sync(() => count(stats, outcome))))
    return { name, kind: "v2", stats, call, channel, heardSince: changes.heardSince } satisfies Host
  })

/** A v1 SDK client (1.32.2) at 2025-11-25. */
export const v1 = (url: string, name: string): Effect.Effect<Host, never, Scope.Scope> =>
  Effect.gen(function*() {
    const stats = newStats()
    const channel = Latch.makeUnsafe(false)
    const changes = listChanges(stats)
    // It answers elicitation (declining: the answer's way back is what is tested, not the form), and counts.
    const client = new Client({ name, version: "1.32.2" }, { capabilities: { elicitation: {} } })
    client.setNotificationHandler(ToolListChangedNotificationSchema, changes.heard)
    client.setRequestHandler(ElicitRequestSchema, async () => {
      stats.elicited++
      return { action: "decline" }
    })
    const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: tracked(stats, channel) })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(transport)),
      () => Effect.promise(() => client.close().catch(() => undefined))
    )
    const call = (tool: string, args: Record<string, unknown>) =>
      Effect.promise(() =>
        client.callTool({ name: tool, arguments: args }, undefined, { timeout: DEADLINE_MS }).then(
          fromResult,
          fromThrown
        )
      ).pipe(Effect.tap((outcome) => Effect.sync(() => count(stats, outcome))))
    return { name, kind: "v1", stats, call, channel, heardSince: changes.heardSince } satisfies Host
  })

/** mcp-fleet's own client at 2025-11-25, over `fetch` (so that it is tracked as the SDK clients are). */
export const fleet = (url: string, name: string): Effect.Effect<Host, never, Scope.Scope> =>
  Effect.gen(function*() {
    const stats = newStats()
    const channel = Latch.makeUnsafe(false)
    const changes = listChanges(stats)
    const fetchFn = tracked(stats, channel)
    const client = yield* McpClient.make({
      url,
      name,
      protocol: "legacy",
      transport: "http",
      requestTimeout: DEADLINE_MS,
      clientInfo: { name, version: "0.1.0" }
    }).pipe(
      Effect.provide(FetchHttpClient.layer),
      Effect.provideService(FetchHttpClient.Fetch, fetchFn),
      Effect.orDie
    )
    yield* Effect.orDie(client.awaitReady)
    yield* client.notifications.pipe(
      Stream.runForEach((notification) =>
        Effect.sync(() => {
          if (notification.method === "notifications/tools/list_changed") changes.heard()
        })
      ),
      Effect.forkScoped
    )
    const call = (tool: string, args: Record<string, unknown>) =>
      client.callTool(tool, args).pipe(
        Effect.map(fromResult),
        Effect.catch((error) =>
          Effect.succeed<Outcome>({
            _tag: "Failed",
            type: "code" in error ? `${error._tag} ${String(error.code)}` : error._tag,
            detail: error.message
          })
        ),
        Effect.tap((outcome) => Effect.sync(() => count(stats, outcome))),
        Effect.provideService(FetchHttpClient.Fetch, fetchFn)
      )
    return { name, kind: "fleet", stats, call, channel, heardSince: changes.heardSince } satisfies Host
  })
