/**
 * The fake MCP server's HTTP mode (`@mcp-fleet/fake-server`'s `src/http-server.mjs`): Streamable HTTP with sessions, JSON
 * and SSE replies, the GET stream and resumption, or the legacy HTTP+SSE transport, on 127.0.0.1 and an
 * ephemeral port, with fault switches. See `@mcp-fleet/fake-server`'s README ("The HTTP fake server") for every token.
 *
 * @example
 * ```ts
 * import { FakeHttpServer } from "@mcp-fleet/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const server = yield* FakeHttpServer.start(["reply=sse", "drop-after=1"])
 *   // server.url = "http://127.0.0.1:41234/mcp"; the process is killed when the scope closes
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Vocabulary from "@mcp-fleet/fake-server"
import { Effect, Schema, Stream } from "effect"
import type { Scope } from "effect"
import { ChildProcess, type ChildProcessSpawner } from "effect/process"
import * as Http from "node:http"
import { runIdEnvVar } from "./FakeServer.ts"
import { FakeHttpServerFailed } from "./TestingError.ts"

/**
 * The absolute path of the server, `@mcp-fleet/fake-server`'s `src/http-server.mjs`.
 *
 * @since 0.1.0
 * @category constants
 */
export const serverPath: string = Vocabulary.httpServerPath

/**
 * The command line that starts the HTTP fake server with `tokens` (plus `run-id=<id>` when
 * {@link runIdEnvVar} is set, so the leak guard can find it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const command = (tokens: ReadonlyArray<string> = []): {
  readonly command: string
  readonly args: ReadonlyArray<string>
} => {
  const runId = process.env[runIdEnvVar]
  const runToken = runId === undefined || runId === "" ? [] : [`run-id=${runId}`]
  return { command: process.execPath, args: [serverPath, ...tokens, ...runToken] }
}

const Listening = Schema.Struct({ url: Schema.String, port: Schema.Number, pid: Schema.Number })

/**
 * A running HTTP fake server: its MCP URL (`…/mcp`, or `…/sse` in `legacy-sse` mode), origin, port and pid.
 *
 * @since 0.1.0
 * @category models
 */
export interface Running {
  readonly url: string
  readonly origin: string
  readonly port: number
  readonly pid: number
}

/**
 * Starts the HTTP fake server as a child process and waits for its `{"url":…}` line. The process is
 * killed when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (
  tokens: ReadonlyArray<string> = []
): Effect.Effect<Running, FakeHttpServerFailed, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope> =>
  Effect.gen(function*() {
    const { args, command: executable } = command(tokens)
    const handle = yield* ChildProcess.make(executable, args, { stdin: "pipe", stderr: "inherit" }).pipe(
      Effect.mapError((cause) => new FakeHttpServerFailed({ reason: "the process could not be spawned", cause }))
    )
    const first = yield* handle.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runHead,
      Effect.mapError((cause) => new FakeHttpServerFailed({ reason: "its stdout could not be read", cause }))
    )
    if (first._tag === "None") {
      return yield* new FakeHttpServerFailed({ reason: "it exited before it was listening (see its stderr)" })
    }
    const listening = yield* Schema.decodeUnknownEffect(Schema.fromJsonString(Listening))(first.value).pipe(
      Effect.mapError((cause) =>
        new FakeHttpServerFailed({ reason: `its first line was not {"url":…}: ${first.value}`, cause })
      )
    )
    return { url: listening.url, origin: new URL(listening.url).origin, port: listening.port, pid: listening.pid }
  })

/**
 * One entry of the server's request log (`GET /_fake/requests`).
 *
 * @since 0.3.0
 * @category models
 */
export const Logged = Schema.Struct({
  method: Schema.String,
  path: Schema.String,
  sessionId: Schema.optionalKey(Schema.String),
  protocolVersion: Schema.optionalKey(Schema.String),
  lastEventId: Schema.optionalKey(Schema.String),
  /** The JSON-RPC method, or `response` for the client's answer to a server request. */
  rpc: Schema.optionalKey(Schema.String),
  status: Schema.optionalKey(Schema.Number),
  fault: Schema.optionalKey(Schema.String),
  /** The request's connection has closed (it was answered, or the client aborted it). */
  closed: Schema.optionalKey(Schema.Boolean)
})

/**
 * @since 0.3.0
 * @category models
 */
export type Logged = typeof Logged.Type

/**
 * Which logged requests to count: by JSON-RPC method (`rpc`, `response` for answers), by HTTP method, and only those
 * whose connection has closed.
 *
 * @since 0.3.0
 * @category models
 */
export interface Filter {
  readonly rpc?: string | undefined
  readonly method?: string | undefined
  readonly closed?: boolean | undefined
}

const query = (filter: Filter, until?: number): string => {
  const params = new URLSearchParams()
  if (filter.rpc !== undefined) params.set("rpc", filter.rpc)
  if (filter.method !== undefined) params.set("method", filter.method)
  if (filter.closed === true) params.set("closed", "1")
  if (until !== undefined) params.set("until", String(until))
  const text = params.toString()
  return text === "" ? "" : `?${text}`
}

/** A GET of a control path on a socket of its own (closed after), so it never counts among the client's. */
const control = (server: Running, path: string): Effect.Effect<string> =>
  Effect.callback<string>((resume) => {
    const request = Http.get(`${server.origin}${path}`, { agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
      response.on("error", (error) => resume(Effect.die(error)))
    })
    request.on("error", (error) => resume(Effect.die(error)))
    return Effect.sync(() => request.destroy())
  })

const decodeLog = Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Array(Logged)))

/**
 * The requests the server has logged so far that match `filter`.
 *
 * @since 0.3.0
 * @category inspection
 */
export const requests = (server: Running, filter: Filter = {}): Effect.Effect<ReadonlyArray<Logged>> =>
  control(server, `/_fake/requests${query(filter)}`).pipe(Effect.flatMap(decodeLog), Effect.orDie)

/**
 * Waits until `count` logged requests match `filter`, and returns them: the server answers the long-poll when its
 * log reaches that count, so a test latches on the server's own events, not on time.
 *
 * @since 0.3.0
 * @category inspection
 */
export const waitForRequests = (
  server: Running,
  count: number,
  filter: Filter = {}
): Effect.Effect<ReadonlyArray<Logged>> =>
  control(server, `/_fake/requests${query(filter, count)}`).pipe(Effect.flatMap(decodeLog), Effect.orDie)

const Connections = Schema.Struct({ open: Schema.Number, peak: Schema.Number })

/**
 * The sockets open at the server now (the asking one left out), and the most that were ever open at once.
 *
 * @since 0.3.0
 * @category inspection
 */
export const connections = (server: Running): Effect.Effect<typeof Connections.Type> =>
  control(server, "/_fake/connections").pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(Schema.fromJsonString(Connections))),
    Effect.orDie
  )
