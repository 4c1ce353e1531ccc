/**
 * The hostile-HTTP measurement of issue 24: each storm and deadline fault of the HTTP fake server
 * (`@mcp-fleet/fake-server`'s `http-server.mjs`, a child process on 127.0.0.1) against a real `McpClient.http` (and,
 * for the forgetful server, a real `McpManager`) on undici, with the figures RELIABILITY.md reports: initializes
 * and requests within a 3 s window, sockets the server still sees open after the client closed, and the longest
 * call against its deadline.
 *
 * ```sh
 * node packages/soak/src/hostile.ts            # every case
 * node packages/soak/src/hostile.ts forget get404   # some
 * ```
 *
 * Wall time is the point here (a storm is a rate), so this is a harness, not a test: its figures are load figures
 * when the machine is busy.
 *
 * @since 0.0.0
 */
import { NodeHttpClient, NodeRuntime, NodeServices } from "@effect/platform-node"
import { McpManager } from "@mcp-fleet/manager"
import { FakeHttpServer } from "@mcp-fleet/testing"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Console, Duration, Effect, Exit, Layer, Option, References, Stream } from "effect"
import type { HttpClient } from "effect/http"
import * as Http from "node:http"

const WINDOW = "3 seconds"

interface Logged {
  readonly method: string
  readonly rpc?: string
  readonly status?: number
  readonly lastEventId?: string
}

/** A GET of the fake's control path on a socket of its own (closed after), so it never counts as the client's. */
const control = <A>(origin: string, path: string) =>
  Effect.callback<A>((resume) => {
    const request = Http.get(`${origin}${path}`, { agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resume(Effect.succeed(JSON.parse(Buffer.concat(chunks).toString("utf8")) as A)))
    })
    request.on("error", (error) => resume(Effect.die(error)))
    return Effect.sync(() => request.destroy())
  })

const requests = (origin: string) => control<ReadonlyArray<Logged>>(origin, "/_fake/requests")
const connections = (origin: string) => control<{ open: number; peak: number }>(origin, "/_fake/connections")

const describe = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) return "ok"
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isSome(error)) {
    const e: unknown = error.value
    const tag = typeof e === "object" && e !== null && "_tag" in e ? String(e._tag) : "error"
    return `${tag}: ${e instanceof Error ? e.message : String(e)}`
  }
  return Cause.pretty(exit.cause).split("\n")[0] ?? "defect"
}

const count = (log: ReadonlyArray<Logged>, rpc: string) => log.filter((r) => r.rpc === rpc).length

const report = (name: string, figures: Record<string, unknown>) => Console.log(`${name}: ${JSON.stringify(figures)}`)

const elapsed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    const exit = yield* Effect.exit(effect)
    return { exit, ms: Math.round(performance.now() - start) }
  })

/** Item 1: every request that carries a session id gets 404. */
const forget = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["forget-sessions"])
  const state = yield* Effect.scoped(Effect.gen(function*() {
    const client = yield* McpClient.http({ url: server.url, transport: "http" })
    yield* Effect.sleep(WINDOW)
    const readiness = client.readiness()
    return readiness._tag === "Failed" ? `Failed: ${readiness.error.message}` : readiness._tag
  }))
  const log = yield* requests(server.origin)
  yield* report("1 forget-sessions (client)", {
    initializesIn3s: count(log, "initialize"),
    requestsIn3s: log.length,
    state
  })
})

/** Item 1, through the manager: the same server as one managed remote server. */
const forgetManaged = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["forget-sessions"])
  const health = yield* Effect.gen(function*() {
    const manager = yield* McpManager.McpManager
    const seen: Array<string> = []
    yield* manager.changes.pipe(
      Stream.runForEach((change) =>
        Effect.sync(() => seen.push(`${change.to}${change.to === "degraded" ? ` (${change.health.lastError})` : ""}`))
      ),
      Effect.forkScoped
    )
    yield* Effect.sleep(WINDOW)
    const [h] = manager.health()
    return { statesSeen: seen.join(" → "), state: h?.state, lastError: h?.lastError }
  }).pipe(
    Effect.scoped,
    Effect.provide(
      McpManager.layer({ servers: { lb: { url: server.url, transport: "http" } } }).pipe(
        Layer.provide(NodeServices.layer)
      )
    )
  )
  const log = yield* requests(server.origin)
  yield* report("1 forget-sessions (manager)", { initializesIn3s: count(log, "initialize"), ...health })
})

/** Item 2: GET answers 404 (an app that routes only POST). */
const get404 = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["get-status=404"])
  const call = yield* Effect.scoped(Effect.gen(function*() {
    const client = yield* McpClient.http({ url: server.url, transport: "http" })
    yield* Effect.sleep(WINDOW)
    return describe(yield* Effect.exit(client.callTool("echo", { text: "after" }, { timeout: "2 seconds" })))
  }))
  const log = yield* requests(server.origin)
  yield* report("2 GET 404", {
    initializesIn3s: count(log, "initialize"),
    getsIn3s: log.filter((r) => r.method === "GET").length,
    callAfter: call
  })
})

/** Item 3: every GET stream is a priming event with `retry: 0`, closed 10 ms later. */
const flap = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["get-close-after=10", "retry=0"])
  yield* Effect.scoped(Effect.gen(function*() {
    yield* McpClient.http({ url: server.url, transport: "http" })
    yield* Effect.sleep(WINDOW)
  }))
  const log = yield* requests(server.origin)
  yield* report("3 retry:0 + quick close", { getsIn3s: log.filter((r) => r.method === "GET").length })
})

/** Item 4: 500 server pings on one answer stream; the answers are held by the server. */
const pings = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["reply=sse", "ping-flood=500"])
  const during = yield* Effect.scoped(Effect.gen(function*() {
    const client = yield* McpClient.http({ url: server.url, transport: "http" })
    yield* client.awaitReady
    const call = describe(yield* Effect.exit(client.callTool("echo", {}, { timeout: "5 seconds" })))
    yield* Effect.sleep("1 second")
    return { call, ...(yield* connections(server.origin)) }
  }))
  yield* Effect.sleep("200 millis")
  const after = yield* connections(server.origin)
  // Idle keep-alive sockets belong to the app's undici pool, which closes them after its keep-alive timeout (4 s).
  yield* Effect.sleep("5 seconds")
  const later = yield* connections(server.origin)
  const log = yield* requests(server.origin)
  yield* report("4 500 pings", {
    call: during.call,
    answerPosts: count(log, "response"),
    peakSockets: during.peak,
    socketsWhileOpen: during.open,
    socketsAfterClose: after.open,
    socketsAfterClose5s: later.open
  })
})

/** Item 5: a 2026-07-28 call whose stream always ends 1.5 s in, unanswered; its timeout is 2 s. */
const reissue = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["modern", "cut-after=1500"])
  const outcome = yield* Effect.scoped(Effect.gen(function*() {
    const client = yield* McpClient.http({ url: server.url, transport: "http" })
    yield* client.awaitReady
    return yield* elapsed(client.callTool("echo", {}, { timeout: "2 seconds" }))
  }))
  const log = yield* requests(server.origin)
  yield* report("5 re-issue deadline", {
    timeoutMs: 2000,
    callMs: outcome.ms,
    posts: count(log, "tools/call"),
    outcome: describe(outcome.exit)
  })
})

/** Item 6: legacy HTTP+SSE whose POSTs are never answered (the answers come on the stream). */
const noAck = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["legacy-sse", "fault=no-ack", "fault-on=tools/call"])
  const during = yield* Effect.scoped(Effect.gen(function*() {
    const client = yield* McpClient.http({ url: server.url, transport: "sse" })
    yield* client.awaitReady
    let longest = 0
    let failed = 0
    for (let i = 0; i < 20; i++) {
      const { exit, ms } = yield* elapsed(client.callTool("echo", { i }, { timeout: "5 seconds" }))
      longest = Math.max(longest, ms)
      if (Exit.isFailure(exit)) failed++
    }
    yield* Effect.sleep("200 millis")
    return { longest, failed, ...(yield* connections(server.origin)) }
  }))
  yield* Effect.sleep("200 millis")
  const after = yield* connections(server.origin)
  yield* Effect.sleep("5 seconds")
  const later = yield* connections(server.origin)
  yield* report("6 legacy POST never acknowledged", {
    calls: 20,
    failed: during.failed,
    longestCallMs: during.longest,
    socketsAfter20Calls: during.open,
    socketsAfterClose: after.open,
    socketsAfterClose5s: later.open
  })
})

/** Item 7: auto-detection falls back to legacy HTTP+SSE, whose stream never names its endpoint. */
const noEndpoint = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["legacy-sse", "no-endpoint"])
  const outcome = yield* Effect.scoped(Effect.gen(function*() {
    const client = yield* McpClient.http({ url: server.url, requestTimeout: "2 seconds" })
    return yield* elapsed(client.awaitReady)
  }))
  yield* report("7 fallback without endpoint", {
    timeoutMs: 2000,
    awaitReadyMs: outcome.ms,
    outcome: describe(outcome.exit)
  })
})

/** Item 8: a reply gzip-compressed although nobody asked, inflating to 100 MB. */
const gzip = Effect.gen(function*() {
  const server = yield* FakeHttpServer.start(["fault=gzip-bomb", "fault-on=tools/call", "huge-bytes=104857600"])
  const rss = () => process.memoryUsage().rss
  const outcome = yield* Effect.scoped(Effect.gen(function*() {
    const client = yield* McpClient.http({ url: server.url, transport: "http" })
    yield* client.awaitReady
    const before = rss()
    const { exit, ms } = yield* elapsed(client.callTool("echo", {}, { timeout: "20 seconds" }))
    return { outcome: describe(exit), callMs: ms, rssGrowthMB: Math.round((rss() - before) / 1e5) / 10 }
  }))
  yield* report("8 gzip bomb", outcome)
})

const cases: Record<string, Effect.Effect<void, unknown, HttpClient.HttpClient>> = {
  forget: Effect.scoped(forget).pipe(Effect.provide(NodeServices.layer)),
  forgetManaged: Effect.scoped(forgetManaged).pipe(Effect.provide(NodeServices.layer)),
  get404: Effect.scoped(get404).pipe(Effect.provide(NodeServices.layer)),
  flap: Effect.scoped(flap).pipe(Effect.provide(NodeServices.layer)),
  pings: Effect.scoped(pings).pipe(Effect.provide(NodeServices.layer)),
  reissue: Effect.scoped(reissue).pipe(Effect.provide(NodeServices.layer)),
  noAck: Effect.scoped(noAck).pipe(Effect.provide(NodeServices.layer)),
  noEndpoint: Effect.scoped(noEndpoint).pipe(Effect.provide(NodeServices.layer)),
  gzip: Effect.scoped(gzip).pipe(Effect.provide(NodeServices.layer))
}

const chosen = process.argv.slice(2)
const program = Effect.forEach(
  chosen.length === 0 ? Object.keys(cases) : chosen,
  (name) => {
    const run = cases[name]
    if (run === undefined) return Console.error(`unknown case ${name}; cases: ${Object.keys(cases).join(", ")}`)
    // Each case gets its own undici dispatcher, which outlives the client's scope: sockets it still holds after
    // the client closed are what "sockets open after close" counts.
    return run.pipe(
      Effect.provide(NodeHttpClient.layerUndici),
      Effect.timeoutOrElse({
        duration: Duration.seconds(60),
        orElse: () => Console.error(`${name}: did not finish within 60 s`)
      }),
      Effect.catchCause((cause) => Console.error(`${name}: ${Cause.pretty(cause)}`))
    )
  },
  { discard: true }
).pipe(
  // The library's warnings (one per lost session, per dropped stream…) are the storm itself: counted above, not printed.
  Effect.provideService(References.MinimumLogLevel, "Error")
)

NodeRuntime.runMain(program)
