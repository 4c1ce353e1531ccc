/**
 * `mcp-fleet serve [--config F] [--stdio | --http 127.0.0.1:7331] [--profile P] [--token-env VAR]`: the config
 * file's servers as one MCP server (`@mcp-fleet/gateway`), for any host.
 *
 * Over stdio (the default: `{"command": "mcp-fleet", "args": ["serve"]}` in a host's config) it serves the one
 * host on stdin and stdout and ends when stdin ends. Over HTTP it serves every host at `http://ADDR/mcp` (and
 * `/mcp/<profile>`, `/healthz`, `/readyz`, and a read-only status page at `/`) until Ctrl-C or SIGTERM, then stops
 * taking calls, drains the ones in flight and shuts the servers down; once listening it prints `{"url": …}` on stdout.
 * The address is 127.0.0.1 unless one is given. Either way the config file is followed: an edit is applied to the running fleet and hosts are told what
 * changed. Logs and diagnostics go to stderr.
 *
 * @since 0.1.0
 */
import type { ConfigError, McpConfig } from "@mcp-fleet/config"
import { McpGateway, Profiles } from "@mcp-fleet/gateway"
import { McpManager } from "@mcp-fleet/manager"
import { Telemetry } from "@mcp-fleet/transport"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { identity } from "effect/Function"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as OtlpMetrics from "effect/observability/OtlpMetrics"
import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { CliEnvironment } from "../CliEnvironment.ts"
import * as CliFlags from "../CliFlags.ts"
import * as Diagnostics from "../Diagnostics.ts"
import * as FleetConfig from "../FleetConfig.ts"
import * as OneShot from "../OneShot.ts"
import * as RemoteHttp from "../RemoteHttp.ts"
import * as ServeShared from "../ServeShared.ts"

/**
 * The parsed flags of `serve`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly config: string
  readonly stdio: boolean
  readonly http: Option.Option<string>
  readonly profile: Option.Option<string>
  readonly tokenEnv: Option.Option<string>
  readonly prefix: "always" | "conditional" | "never"
  readonly profiles: Option.Option<string>
  readonly redis: Option.Option<Redacted.Redacted<string>>
  readonly sessionKeyFile: Option.Option<string>
  readonly maxSessions: Option.Option<number>
  readonly metrics: boolean
  readonly otlp: Option.Option<string>
  readonly verbose: boolean
}

/**
 * `serve` could not start: bad flags, or the address cannot be listened on.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServeFailed extends Schema.TaggedError<ServeFailed>()("ServeFailed", { reason: Schema.String }) {
  override get message(): string {
    return `mcp-fleet serve cannot start: ${this.reason}.`
  }
}

/**
 * Every way `serve` can fail.
 *
 * @since 0.1.0
 * @category models
 */
export type ServeError = ConfigError.ConfigError | ServeFailed

/** The default HTTP address. */
const DEFAULT_ADDRESS = "127.0.0.1:7331"

/** `host:port` (IPv6 in brackets), or why not. */
const parseAddress = (text: string): { readonly host: string; readonly port: number } | string => {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text.trim())
  const port = match === null ? Number.NaN : Number(match[2])
  if (match === null || !Number.isInteger(port) || port > 65535) {
    return `--http needs HOST:PORT, such as ${DEFAULT_ADDRESS} (got ${JSON.stringify(text)})`
  }
  const host = match[1]!
  return { host: host.startsWith("[") ? host.slice(1, -1) : host, port }
}

/** Serves over HTTP until interrupted; prints the URL once listening. */
const serveHttp = (address: { readonly host: string; readonly port: number }, shared: string | undefined) =>
  Effect.gen(function*() {
    // `node:http` is imported by `serve --http` only, not with the CLI (its facade loads undici: see LoopbackPrompt).
    const [NodeHttpServer, { createServer }] = yield* Effect.promise(() =>
      Promise.all([import("@effect/platform-node/NodeHttpServer"), import("node:http")])
    )
    // Slow clients are cut off: headers within 15 s, a whole request body within 60 s (Node's timers). An idle
    // keep-alive connection is kept 65 s (Node's default is 5 s): longer than a balancer keeps its idle connections
    // to a replica (HAProxy purges them within seconds, cloud balancers after 60 s), so that the balancer never sends
    // a request on a connection the replica is closing at that moment (the host would get a connection error for a
    // call no replica saw fail: the scale test met it after Redis' outage).
    const server = yield* Layer.build(
      NodeHttpServer.layer(
        () =>
          createServer({
            headersTimeout: 15_000,
            requestTimeout: 60_000,
            keepAliveTimeout: 65_000,
            connectionsCheckingInterval: 5_000
          }),
        address
      )
    ).pipe(
      Effect.mapError((error) =>
        new ServeFailed({ reason: `cannot listen on ${address.host}:${address.port}: ${error.message}` })
      )
    )
    yield* Layer.build(McpGateway.layerHttp()).pipe(Effect.provide(server))
    const bound = Context.get(server, HttpServer.HttpServer).address
    const port = "port" in bound ? bound.port : address.port
    const host = address.host.includes(":") ? `[${address.host}]` : address.host
    const url = `http://${host}:${port}/mcp`
    yield* Console.log(JSON.stringify({ url }))
    yield* Console.error(`mcp-fleet serve: listening on ${url} (Ctrl-C to stop)`)
    yield* Console.error(`mcp-fleet serve: status page at http://${host}:${port}/ (read-only; same token as /mcp)`)
    if (shared !== undefined) yield* Console.error(`mcp-fleet serve: ${shared}`)
    // Once every server has settled (what /readyz waits for), one line says so: the moment a balancer may send hosts.
    const manager = yield* McpManager.McpManager
    yield* manager.snapshots.pipe(
      Stream.filter((healths) => healths.every((h) => h.state !== "starting")),
      Stream.runHead,
      Effect.andThen(Console.error(`mcp-fleet serve: ready (every server has settled)`)),
      Effect.forkScoped
    )
    return yield* Effect.never
  })

/**
 * Pushes the metric registry to an OpenTelemetry collector (Effect's own OTLP exporter, JSON over HTTP; undici is
 * loaded only when `--otlp` is given). The last export is flushed at shutdown.
 */
const otlpMetrics = (url: string) =>
  Layer.unwrap(
    Effect.promise(() => import("@effect/platform-node/NodeHttpClient")).pipe(
      Effect.map((NodeHttpClient) =>
        OtlpMetrics.layer({ url, resource: { serviceName: "mcp-fleet" }, exportInterval: "10 seconds" }).pipe(
          Layer.provide([NodeHttpClient.layerUndici, OtlpSerialization.layerJson])
        )
      )
    )
  )

/** The `--profiles` file, decoded (every problem with its path). */
const readProfiles = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((error) => new ServeFailed({ reason: `--profiles ${path} cannot be read: ${error.message}` }))
    )
    const json = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: () => new ServeFailed({ reason: `--profiles ${path} is not JSON` })
    })
    return yield* Profiles.decode(json).pipe(
      Effect.mapError((error) => new ServeFailed({ reason: `--profiles ${path}: ${error.message}` }))
    )
  })

/**
 * The `serve` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command.Command<
  "serve",
  Input,
  {},
  ServeError,
  CliEnvironment | FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner | Stdio.Stdio
> = Command.make(
  "serve",
  {
    config: CliFlags.config,
    stdio: Flag.Boolean("stdio").pipe(
      Flag.withDescription("Serve one host on stdin and stdout (the default)."),
      Flag.withDefault(false)
    ),
    http: Flag.String("http").pipe(
      Flag.withMetavar("HOST:PORT"),
      Flag.withDescription(
        `Serve every host over Streamable HTTP at http://HOST:PORT/mcp (use ${DEFAULT_ADDRESS}; port 0 picks a free one).`
      ),
      Flag.optional
    ),
    profile: Flag.String("profile").pipe(
      Flag.withMetavar("NAME"),
      Flag.withDescription("Over stdio, expose only this profile's servers."),
      Flag.optional
    ),
    tokenEnv: Flag.String("token-env").pipe(
      Flag.withMetavar("VAR"),
      Flag.withDescription(
        "Over HTTP, require `Authorization: Bearer <token>`, the token read from this environment variable (never printed)."
      ),
      Flag.optional
    ),
    prefix: Flag.Literals("prefix", ["always", "conditional", "never"]).pipe(
      Flag.withDescription(
        "How tool and prompt names are namespaced: always server__tool (the default), conditional (only a name several servers offer), never."
      ),
      Flag.withDefault("always" as const)
    ),
    profiles: Flag.String("profiles").pipe(
      Flag.withMetavar("FILE"),
      Flag.withDescription(
        "A JSON file of tool filters and named profiles (servers, allow/deny globs, readOnly, pinned tools, search mode); hosts pick a profile with /mcp/<profile> or --profile."
      ),
      Flag.optional
    ),
    redis: Flag.Redacted("redis").pipe(
      Flag.withMetavar("URL"),
      Flag.withDescription(
        "Share state with the other replicas of this gateway in Redis (redis://HOST:PORT, rediss://…): upstream OAuth tokens (one refresh per expiry in all), list changes, large results. Redis may be down: the replica serves what needs no shared state and reconnects."
      ),
      Flag.optional
    ),
    sessionKeyFile: Flag.String("session-key-file").pipe(
      Flag.withMetavar("FILE"),
      Flag.withDescription(
        "Over HTTP, seal 2025-11-25 sessions into their Mcp-Session-Id with the keys of FILE (one key a line, 32 random bytes in base64: openssl rand -base64 32; the first seals, all open), so that any replica with the same file serves them."
      ),
      Flag.optional
    ),
    maxSessions: Flag.Int("max-sessions").pipe(
      Flag.withMetavar("N"),
      Flag.withDescription(
        "Over HTTP, how many 2025-era host sessions may be open at once (default 256; past it the least recently used idle one is closed, else 503)."
      ),
      Flag.optional
    ),
    metrics: Flag.Boolean("metrics").pipe(
      Flag.withDescription(
        "Record metrics (the fleet's, the gateway's, each upstream request's) and, over HTTP, serve them as Prometheus text at /metrics."
      ),
      Flag.withDefault(false)
    ),
    otlp: Flag.String("otlp").pipe(
      Flag.withMetavar("URL"),
      Flag.withDescription(
        "Record metrics and push them to this OpenTelemetry collector (OTLP/HTTP JSON, e.g. http://127.0.0.1:4318/v1/metrics) every 10 s."
      ),
      Flag.optional
    ),
    verbose: CliFlags.verbose
  },
  Effect.fn("mcp-fleet serve")(function*(input) {
    if (input.stdio && Option.isSome(input.http)) {
      return yield* new ServeFailed({ reason: "--stdio and --http cannot both be given" })
    }
    const address = Option.isSome(input.http) ? parseAddress(input.http.value) : undefined
    if (typeof address === "string") return yield* new ServeFailed({ reason: address })
    if (address === undefined && Option.isSome(input.sessionKeyFile)) {
      return yield* new ServeFailed({ reason: "--session-key-file seals HTTP sessions: it needs --http" })
    }
    const { env } = yield* CliEnvironment
    const tokens: Array<Redacted.Redacted<string>> = []
    if (Option.isSome(input.tokenEnv)) {
      const value = env[input.tokenEnv.value]
      if (value === undefined || value.trim() === "") {
        return yield* new ServeFailed({ reason: `--token-env ${input.tokenEnv.value}: that variable is not set` })
      }
      tokens.push(Redacted.make(value.trim()))
    }
    if (Option.isSome(input.maxSessions) && input.maxSessions.value < 1) {
      return yield* new ServeFailed({
        reason: `--max-sessions needs a positive number (got ${input.maxSessions.value})`
      })
    }
    const profiles = Option.isNone(input.profiles) ? {} : yield* readProfiles(input.profiles.value)
    const profile = Option.getOrUndefined(input.profile)
    if (profile !== undefined && profiles.profiles?.[profile] === undefined) {
      return yield* new ServeFailed({ reason: `--profile ${profile}: no such profile in the --profiles file` })
    }
    if (Option.isSome(input.otlp) && !URL.canParse(input.otlp.value)) {
      return yield* new ServeFailed({ reason: `--otlp needs a URL (got ${JSON.stringify(input.otlp.value)})` })
    }
    const metrics = input.metrics || Option.isSome(input.otlp)
    const file = yield* FleetConfig.load(input.config)
    const diagnostics = Diagnostics.make({ verbose: input.verbose })
    // Long-running: the manager's own reconnection policy, as `status --watch` uses.
    const options = { ...OneShot.managerOptions(file, diagnostics), reconnect: undefined }
    const servers = (edited: McpConfig.McpConfig) => OneShot.managerOptions(edited, diagnostics).servers
    // What replicas share (`--redis`, `--session-key-file`): nothing is built, and no Redis code loads, without them.
    const shared = Option.isNone(input.redis) && Option.isNone(input.sessionKeyFile)
      ? Effect.succeed(undefined)
      : ServeShared.make({
        redis: Option.getOrUndefined(input.redis),
        sessionKeyFile: Option.getOrUndefined(input.sessionKeyFile)
      }).pipe(Effect.mapError((reason) => new ServeFailed({ reason })))
    const program = (shared: ServeShared.Shared | undefined) =>
      Effect.gen(function*() {
        const manager = yield* McpManager.McpManager
        yield* Effect.forkScoped(FleetConfig.follow(input.config, manager, { servers }))
        if (shared !== undefined) yield* Effect.forkScoped(ServeShared.announce(shared))
        if (address === undefined) {
          yield* McpGateway.serveStdio({ profile })
          return
        }
        yield* serveHttp(address, shared?.describe)
      })
    yield* Effect.scoped(Effect.flatMap(shared, (shared) =>
      program(shared).pipe(
        Effect.scoped,
        Effect.provide(
          McpGateway.layerFleet(options, {
            tokens,
            prefix: input.prefix,
            profiles,
            metrics,
            ...(Option.isSome(input.maxSessions) ? { maxSessions: input.maxSessions.value } : {})
          }).pipe(
            // The manager records FleetMetrics, and the transport its request metrics, only with telemetry on.
            metrics ? Layer.provide(Telemetry.layer()) : identity
          )
        ),
        Option.isSome(input.otlp) ? Effect.provide(otlpMetrics(input.otlp.value)) : identity,
        RemoteHttp.whenRemote(options, file.remote, shared?.tokens),
        Effect.provideContext(shared?.gateway ?? Context.empty())
      )))
  })
).pipe(
  Command.withDescription(
    "Serve the config file's servers as one MCP server, over stdio (the default) or Streamable HTTP, to any MCP host."
  )
)
