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
