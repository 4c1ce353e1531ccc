/**
 * The demo's remote server: `@mcp-fleet/fake-server`'s HTTP mode (`src/http-server.mjs`, Streamable HTTP with
 * sessions and SSE replies), started by the demo as a child process on 127.0.0.1 and an ephemeral port, and
 * killed when the demo's scope closes. The file is found by resolving the `@mcp-fleet/fake-server/http-server`
 * export; no module of the testing package is imported.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as ChildProcess from "effect/process/ChildProcess"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { DemoFailed } from "./CliError.ts"
import * as FakeServerFile from "./internal/FakeServerFile.ts"

/**
 * The fake HTTP server's mode tokens in the demo: every request answered on an SSE stream.
 *
 * @since 0.2.0
 * @category constants
 */
export const tokens: ReadonlyArray<string> = ["reply=sse"]

/**
 * A running remote server: its MCP URL and its process id.
 *
 * @since 0.2.0
 * @category models
 */
export interface Running {
  readonly url: string
  readonly pid: number
}

const Listening = Schema.fromJsonString(Schema.Struct({ url: Schema.String, pid: Schema.Number }))

/**
 * The absolute path of the fake HTTP server, resolved through the `@mcp-fleet/fake-server/http-server` export (or the published package's own copy: `internal/FakeServerFile`).
 *
 * @since 0.2.0
 * @category resolving
 */
export const serverPath: Effect.Effect<string, DemoFailed> = Effect.try({
  try: () => FakeServerFile.resolve("http-server"),
  catch: (error) =>
    new DemoFailed({
      reason: `the fake HTTP MCP server (@mcp-fleet/fake-server/http-server) could not be found; run pnpm install (${
        error instanceof Error ? error.message : String(error)
      })`
    })
})

/**
 * Starts the fake HTTP server with `node` (`execPath`) and waits for the `{"url":…}` line it writes once it
 * listens. The process is killed when the scope closes (its stdin, a pipe, also ends then, which stops it).
 *
 * @since 0.2.0
 * @category constructors
 */
export const start = (input: {
  readonly execPath: string
  readonly runId: string | undefined
}): Effect.Effect<Running, DemoFailed, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope> =>
  Effect.gen(function*() {
    const path = yield* serverPath
    const args = [
      path,
      ...tokens,
      ...(input.runId !== undefined && input.runId !== "" ? [`run-id=${input.runId}`] : [])
    ]
    const handle = yield* ChildProcess.make(input.execPath, args, { stdin: "pipe", stderr: "ignore" }).pipe(
      Effect.mapError(() => new DemoFailed({ reason: "the fake HTTP MCP server could not be spawned" }))
    )
    const first = yield* handle.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runHead,
      Effect.timeoutOption("10 seconds"),
      Effect.mapError(() => new DemoFailed({ reason: "the fake HTTP MCP server's stdout could not be read" }))
    )
    const line = first._tag === "Some" && first.value._tag === "Some" ? first.value.value : undefined
    if (line === undefined) {
      return yield* new DemoFailed({ reason: "the fake HTTP MCP server did not say where it listens within 10 s" })
    }
    return yield* Schema.decodeUnknownEffect(Listening)(line).pipe(
      Effect.mapError(() =>
        new DemoFailed({ reason: `the fake HTTP MCP server's first line was not {"url":…}: ${line}` })
      )
    )
  })
