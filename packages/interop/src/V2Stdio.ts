/**
 * `@modelcontextprotocol/server` 2.4.0 over stdio (`serveStdio`), for tests: the command line that runs
 * `servers/v2-stdio.mjs` in either of the SDK's modes, and a raw line-level handle on a running one.
 *
 * - `serve`: both eras on one process, chosen by the opening message (`initialize` → 2025-era,
 *   `server/discover` or any request with the 2026-07-28 `_meta` claim → modern).
 * - `reject`: modern only; an `initialize` (or any claim-less request) is answered with -32022
 *   `data.supported: ["2026-07-28"]` and the process stays up for a modern opening.
 *
 * Tools (both modes, both eras): `echo {text}`, `change_tools` (adds `generation_<N>`; list_changed, on
 * a modern connection routed onto `subscriptions/listen`), `confirm {what}` (multi-round-trip elicitation:
 * `input_required` in the modern era, a real `elicitation/create` request in the legacy era).
 *
 * @example
 * ```ts
 * import { V2Stdio } from "@mcp-fleet/interop"
 * import { McpClient } from "@mcp-fleet/transport"
 *
 * const client = McpClient.make({ ...V2Stdio.command("reject"), name: "v2-modern" })
 * ```
 *
 * @since 0.1.0
 */
import { Effect, PubSub, Queue, Schema, Stream } from "effect"
import type { Cause, Scope } from "effect"
import { ChildProcess, type ChildProcessSpawner } from "effect/process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * How the fixture treats a 2025-era opening.
 *
 * @since 0.1.0
 * @category models
 */
export type Mode = "serve" | "reject"

/**
 * The script `serveStdio` runs in.
 *
 * @since 0.1.0
 * @category paths
 */
export const scriptPath: string = Path.join(
  Path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "servers",
  "v2-stdio.mjs"
)

/**
 * What starts the fixture; the shape spreads into `McpClient.make` options and manager server entries.
 *
 * @since 0.1.0
 * @category models
 */
export interface Command {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
}

/**
 * The command line of the fixture in `mode`. `ttlMs` adds the cache hint `{ ttlMs, cacheScope: "private" }`
 * to its 2026-07-28 `tools/list` results.
 *
 * @since 0.1.0
 * @category constructors
 */
export const command = (mode: Mode, options: { readonly ttlMs?: number } = {}): Command => ({
  command: process.execPath,
  args: [scriptPath, `legacy=${mode}`, ...(options.ttlMs === undefined ? [] : [`ttl=${options.ttlMs}`])],
  env: {}
})

/**
 * The fixture could not be spawned.
 *
 * @since 0.1.0
 * @category errors
 */
export class V2StdioFailed extends Schema.TaggedError<V2StdioFailed>()("V2StdioFailed", {
  mode: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return `The v2 stdio fixture (legacy: ${this.mode}) could not be spawned.`
  }
}

/**
 * A running fixture, spoken to line by line.
 *
 * @since 0.1.0
 * @category models
 */
export interface Running {
  readonly pid: number
  /** Writes one JSON-RPC message (one line) to the fixture's stdin. */
  readonly send: (message: unknown) => Effect.Effect<void>
  /** Ends the fixture's stdin (it exits then). */
  readonly endInput: Effect.Effect<void>
  /** Every stdout line parsed as JSON (a non-JSON line is skipped), from the start (replayed to a late reader). */
  readonly messages: Stream.Stream<unknown>
  /** Resolves with the process's exit code. */
  readonly exitCode: Effect.Effect<number>
}

const Json = Schema.fromJsonString(Schema.Unknown)

/**
 * Starts the fixture in `mode`. Its stdout is read in the background; the process is killed when the
 * scope closes (if it has not exited already).
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (
  mode: Mode,
  options: { readonly ttlMs?: number } = {}
): Effect.Effect<Running, V2StdioFailed, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope> =>
  Effect.gen(function*() {
    const spec = command(mode, options)
    const handle = yield* ChildProcess.make(spec.command, spec.args, {
      env: spec.env,
      extendEnv: true,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe"
    }).pipe(Effect.mapError((cause) => new V2StdioFailed({ mode, cause })))
    const input = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    const output = yield* PubSub.unbounded<unknown>({ replay: 1000 })
    const encoder = new TextEncoder()
    yield* Stream.fromQueue(input).pipe(Stream.run(handle.stdin), Effect.ignore, Effect.forkScoped)
    yield* handle.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) => {
        const decoded = Schema.decodeUnknownOption(Json)(line)
        return decoded._tag === "Some" ? PubSub.publish(output, decoded.value) : Effect.void
      }),
      Effect.ignore,
      Effect.forkScoped
    )
    yield* handle.stderr.pipe(Stream.runDrain, Effect.ignore, Effect.forkScoped)
    return {
      pid: handle.pid,
      send: (message) => Queue.offer(input, encoder.encode(JSON.stringify(message) + "\n")).pipe(Effect.asVoid),
      endInput: Queue.end(input).pipe(Effect.asVoid),
      messages: Stream.fromPubSub(output),
      exitCode: handle.exitCode.pipe(Effect.map(Number), Effect.orDie)
    }
  })
