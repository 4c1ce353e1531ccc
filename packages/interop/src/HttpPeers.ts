/**
 * Real MCP servers over HTTP, on 127.0.0.1, for tests: `@modelcontextprotocol/server-everything` in its
 * `streamableHttp` and `sse` modes, and `@modelcontextprotocol/server` (v2) mounted on `node:http`, serving
 * both eras (`v2`) or 2026-07-28 only (`v2-modern`, `legacy: "reject"`; a 2025-era request gets -32022).
 *
 * server-everything calls `app.listen(PORT)` without a host, which binds every interface; it is started
 * with `node -r servers/bind-localhost.cjs`, a preload that gives a port-only `listen` the host 127.0.0.1
 * and reports the bound port on stderr. Ports are ephemeral (`PORT=0`) unless one is given, so a test
 * can also restart a server on the port it had.
 *
 * @example
 * ```ts
 * import { HttpPeers } from "@mcp-fleet/interop"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const peer = yield* HttpPeers.start("everything-streamable")
 *   // peer.url = "http://127.0.0.1:41234/mcp"; the process is killed when the scope closes
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Deferred, Effect, PubSub, Schema, Stream } from "effect"
import type { Scope } from "effect"
import { ChildProcess, type ChildProcessSpawner } from "effect/process"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as ReferenceServers from "./ReferenceServers.ts"

/**
 * The HTTP peers this module starts.
 *
 * @since 0.1.0
 * @category models
 */
export type Name = "everything-streamable" | "everything-sse" | "v2" | "v2-modern"

/**
 * Every {@link Name}.
 *
 * @since 0.1.0
 * @category constants
 */
export const names: ReadonlyArray<Name> = ["everything-streamable", "everything-sse", "v2", "v2-modern"]

const isV2 = (name: Name): boolean => name === "v2" || name === "v2-modern"

const serversDir = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers")

/**
 * The preload that pins a port-only `listen()` to 127.0.0.1.
 *
 * @since 0.1.0
 * @category paths
 */
export const bindLocalhostPath: string = Path.join(serversDir, "bind-localhost.cjs")

/**
 * The `node:http` host of `@modelcontextprotocol/server`.
 *
 * @since 0.1.0
 * @category paths
 */
export const v2ServerPath: string = Path.join(serversDir, "v2-server.mjs")

/**
 * The installed version of `@modelcontextprotocol/server`.
 *
 * @since 0.1.0
 * @category paths
 */
export const v2Version = (): string => {
  // The package's exports do not include ./package.json: find it beside the resolved entry (dist/…).
  const require = createRequire(import.meta.url)
  const entry = require.resolve("@modelcontextprotocol/server")
  const manifest: unknown = require(Path.join(Path.dirname(entry), "..", "package.json"))
  return typeof manifest === "object" && manifest !== null && "version" in manifest &&
      typeof manifest.version === "string"
    ? manifest.version
    : "unknown"
}

/**
 * What starts one peer, and the path its MCP endpoint has.
 *
 * @since 0.1.0
 * @category models
 */
export interface Command {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly path: "/mcp" | "/sse"
}

/**
 * The command line of peer `name` on `port` (0: an ephemeral port). `ttlMs` (v2 peers only) adds the cache
 * hint `{ ttlMs, cacheScope: "private" }` to their 2026-07-28 `tools/list` results.
 *
 * @since 0.1.0
 * @category constructors
 */
export const command = (name: Name, port = 0, ttlMs?: number): Command => {
  if (isV2(name)) {
    const args = [v2ServerPath, `port=${port}`, `legacy=${name === "v2" ? "stateless" : "reject"}`]
    if (ttlMs !== undefined) args.push(`ttl=${ttlMs}`)
    return { command: process.execPath, args, env: {}, path: "/mcp" }
  }
  const entry = Path.join(ReferenceServers.packageDir("everything"), "dist", "index.js")
  const mode = name === "everything-sse" ? "sse" : "streamableHttp"
  return {
    command: process.execPath,
    args: ["-r", bindLocalhostPath, entry, mode],
    env: { PORT: String(port) },
    path: name === "everything-sse" ? "/sse" : "/mcp"
  }
}

/**
 * A peer did not come up: it could not be spawned, or it ended before it said where it listens.
 *
 * @since 0.1.0
 * @category errors
 */
export class HttpPeerFailed extends Schema.TaggedError<HttpPeerFailed>()("HttpPeerFailed", {
  name: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return `The HTTP peer ${this.name} did not start: ${this.reason}.`
  }
}

/**
 * A running peer: its MCP URL, origin, port and pid.
 *
 * @since 0.1.0
 * @category models
 */
export interface Running {
  readonly name: Name
  readonly url: string
  readonly origin: string
  readonly port: number
  readonly pid: number
  /**
   * Every line the peer writes to stdout or stderr, from its start (the last 1000 are replayed to a late
   * reader). server-everything logs each request, e.g. `Received session termination request for session <id>`.
   */
  readonly output: Stream.Stream<string>
}

const lines = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.splitLines)
const listeningLine = /^bind-localhost: listening (.+):(\d+)$/
const V2Listening = Schema.fromJsonString(Schema.Struct({ port: Schema.Number }))

/**
 * Starts peer `name` on 127.0.0.1 (an ephemeral port unless `port` is given) and waits until it listens.
 * Its output is read to the end in the background; the process is killed when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (
  name: Name,
  options: { readonly port?: number; readonly ttlMs?: number } = {}
): Effect.Effect<Running, HttpPeerFailed, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope> =>
  Effect.gen(function*() {
    const spec = command(name, options.port ?? 0, options.ttlMs)
    const fail = (reason: string) => (cause: unknown) => new HttpPeerFailed({ name, reason, cause })
    const handle = yield* ChildProcess.make(spec.command, spec.args, {
      env: spec.env,
      extendEnv: true,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe"
    }).pipe(Effect.mapError(fail("the process could not be spawned")))
    const port = yield* Deferred.make<number, HttpPeerFailed>()
    const output = yield* PubSub.unbounded<string>({ replay: 1000 })
    // A line's verdict: the port it listens on, an address other than 127.0.0.1, or nothing.
    type Seen = number | { readonly wrongAddress: string } | undefined
    const watch = <E>(stream: Stream.Stream<Uint8Array, E>, match: (line: string) => Seen) =>
      lines(stream).pipe(
        Stream.runForEach((line) => {
          const seen = match(line)
          if (seen === undefined) return PubSub.publish(output, line)
          if (typeof seen === "number") {
            return Effect.andThen(PubSub.publish(output, line), Deferred.succeed(port, seen))
          }
          return Deferred.fail(
            port,
            new HttpPeerFailed({ name, reason: `it listens on ${seen.wrongAddress}, not on 127.0.0.1 only` })
          )
        }),
        Effect.ignore,
        // Output that ends before the port was seen means the peer is gone.
        Effect.andThen(Deferred.fail(port, new HttpPeerFailed({ name, reason: "it exited before it was listening" }))),
        Effect.forkScoped
      )
    const fromStderr = (line: string): Seen => {
      const match = listeningLine.exec(line)
      if (match === null) return undefined
      return match[1] === "127.0.0.1" ? Number(match[2]) : { wrongAddress: match[1] ?? "" }
    }
    const fromStdout = (line: string): Seen => {
      const decoded = Schema.decodeUnknownOption(V2Listening)(line)
      return decoded._tag === "Some" ? decoded.value.port : undefined
    }
    yield* watch(handle.stderr, isV2(name) ? () => undefined : fromStderr)
    yield* watch(handle.stdout, isV2(name) ? fromStdout : () => undefined)
    const bound = yield* Deferred.await(port)
    const origin = `http://127.0.0.1:${bound}`
    return {
      name,
      url: `${origin}${spec.path}`,
      origin,
      port: bound,
      pid: handle.pid,
      output: Stream.fromPubSub(output)
    }
  })
