/**
 * The fleet as one MCP server: every ready server's tools, prompts, resources and resource templates behind one
 * endpoint, for any host, in either protocol era, over stdio or Streamable HTTP.
 *
 * `layer` builds the gateway over an `McpManager` whose clients answer their servers' requests through
 * `GatewayRouter` (so an upstream's elicitation, sampling or roots request reaches the host whose call caused it);
 * `layerFleet` assembles all three from the manager's options. Then serve it: `serveStdio` (one host on stdin and
 * stdout, until stdin ends) or `layerHttp` (every host over HTTP, on the `HttpServer` the application provides).
 *
 * @example
 * ```ts
 * import { NodeHttpServer, NodeRuntime, NodeServices } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { McpGateway } from "@mcp-fleet/gateway"
 * import { createServer } from "node:http"
 *
 * const Gateway = McpGateway.layerHttp().pipe(
 *   Layer.provide(McpGateway.layerFleet({ servers: { memory: { command: "npx", args: ["@modelcontextprotocol/server-memory"] } } })),
 *   Layer.provide(NodeHttpServer.layer(() => createServer(), { host: "127.0.0.1", port: 7331 })),
 *   Layer.provide(NodeServices.layer)
 * )
 * Layer.launch(Gateway).pipe(NodeRuntime.runMain)
 * ```
 *
 * @since 0.1.0
 */
import type { ManagerOptions } from "@mcp-fleet/manager"
import { McpManager } from "@mcp-fleet/manager"
import * as Context from "effect/Context"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Scope from "effect/Scope"
import type * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as ChangeBus from "./ChangeBus.ts"
import type { GatewayOptions } from "./GatewayOptions.ts"
import * as Options from "./GatewayOptions.ts"
import { Relay } from "./internal/relay.ts"
import * as ResultStore from "./ResultStore.ts"
import * as Engine from "./server/Engine.ts"
import * as Http from "./server/Http.ts"
import * as Router from "./server/Router.ts"
import * as StdioFront from "./server/Stdio.ts"
import * as SessionSeal from "./SessionSeal.ts"
import * as SharedState from "./SharedState.ts"

/**
 * What answers the fleet's upstream requests (elicitation, sampling, roots): build the manager with its `handlers`.
 *
 * @since 0.1.0
 * @category services
 */
export class GatewayRouter extends Context.Service<GatewayRouter, Router.Router>()(
  "@mcp-fleet/gateway/GatewayRouter"
) {}

/**
 * The router as a layer (no dependencies).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRouter: Layer.Layer<GatewayRouter> = Layer.effect(GatewayRouter, Router.make)

/**
 * The gateway.
 *
 * @since 0.1.0
 * @category services
 */
export class McpGateway extends Context.Service<McpGateway, {
  /** The status text hosts read (`fleet_status`, `fleet://status`): the manager's ledger and the gateway's line. */
  readonly status: () => string
  /** Every enabled server has settled (none is still starting): what `/readyz` says. */
  readonly ready: () => boolean
  /** Connected 2025-era hosts, HTTP sessions, open listen streams, calls in flight. */
  readonly stats: () => Engine.Stats
  /** The engine the fronts serve (internal). */
  readonly engine: Engine.Engine
  /** What seals 2025-11-25 HTTP sessions into their `Mcp-Session-Id`, when `SessionSeal` was in context (internal). */
  readonly seal: SessionSeal.SessionSeal["Service"] | undefined
  /** What relays hosts' answers between replicas, when the Redis side is in context (internal). */
  readonly relay: Relay["Service"] | undefined
}>()("@mcp-fleet/gateway/McpGateway") {}

/**
 * The gateway over the fleet of the `McpManager` in context, whose clients were built with `GatewayRouter`'s
 * handlers.
 *
 * Replicas (issue 30): these services are used when they are in context, and the gateway is the single-machine one
 * without them (`SharedState.layer` gives the last three, in process or in Redis):
 * - `SessionSeal`: 2025-11-25 HTTP sessions are sealed into their `Mcp-Session-Id`, so any replica serves them;
 * - `SharedState`: its status is a line of the status text (`fleet_status`, `/readyz`);
 * - `ChangeBus`: a remote server's list changes are shared with the other replicas (see `Engine`);
 * - the Redis side's relay (`SharedState.layer` with Redis): a host's answer to a request another replica asked it
 *   (elicitation, sampling, roots) is relayed there;
 * - `ResultStore`: the large-result store (default: one in process, from `options.results`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: GatewayOptions = {}
): Layer.Layer<McpGateway, never, McpManager.McpManager | GatewayRouter> =>
  Layer.effect(
    McpGateway,
    Effect.gen(function*() {
      const manager = yield* McpManager.McpManager
      const router = yield* GatewayRouter
      const resolved = Options.resolve(options)
      const given = yield* Effect.serviceOption(ResultStore.ResultStore)
      const store = Option.isSome(given)
        ? given.value
        : yield* ResultStore.make(resolved.results).pipe(Effect.provide(SecureRandom.layerWebCrypto))
      const shared = yield* sharedOf(manager)
      const engine = yield* Engine.make(manager, router, store, resolved, shared)
      const seal = Option.getOrUndefined(yield* Effect.serviceOption(SessionSeal.SessionSeal))
      const relay = Option.getOrUndefined(yield* Effect.serviceOption(Relay))
      return McpGateway.of({ status: engine.status, ready: engine.ready, stats: engine.stats, engine, seal, relay })
    })
  )

/** The shared state and the change bus in context, if any; the status is followed so the status text reads it. */
const sharedOf = Effect.fnUntraced(function*(manager: McpManager.McpManager["Service"]) {
  const state = Option.getOrUndefined(yield* Effect.serviceOption(SharedState.SharedState))
  const bus = Option.getOrUndefined(yield* Effect.serviceOption(ChangeBus.ChangeBus))
  let status: SharedState.Status = { _tag: "InProcess" }
  if (state !== undefined) {
    status = yield* state.status
    yield* state.changes.pipe(
      Stream.runForEach((next) => Effect.sync(() => (status = next))),
      Effect.forkScoped
    )
  }
  return {
    ...(state === undefined ? {} : { status: () => status }),
    bus,
    relist: (server: string) => Effect.ignore(manager.relist(server))
  } satisfies Engine.Shared
})

/**
 * The manager's options as the gateway needs them: the router's handlers answer every server's requests (a server's
 * own `client.handlers` still win), and the servers log at every level (each host filters at its own).
 *
 * @since 0.1.0
 * @category options
 */
export const managerOptions = (
  options: ManagerOptions.ManagerOptions,
  router: Router.Router
): ManagerOptions.ManagerOptions => ({
  ...options,
  handlers: { ...router.handlers, ...options.handlers },
  serverLogLevel: options.serverLogLevel ?? "debug"
})

/**
 * The router, the manager (from `managerOptions`) and the gateway, assembled. Needs what the manager needs
 * (`ChildProcessSpawner`; an `HttpClient` for remote servers).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFleet = (
  manager: ManagerOptions.ManagerOptions,
  options: GatewayOptions = {}
): Layer.Layer<McpGateway | McpManager.McpManager, never, ChildProcessSpawner.ChildProcessSpawner> =>
  layer(options).pipe(
    Layer.provideMerge(
      Layer.unwrap(Effect.map(GatewayRouter, (router) => McpManager.layer(managerOptions(manager, router))))
    ),
    Layer.provide(layerRouter)
  )

/**
 * Serves one host on stdin and stdout until stdin ends (then its calls are cancelled and this returns).
 *
 * @since 0.1.0
 * @category serving
 */
export const serveStdio = (
  options: { readonly profile?: string | undefined } = {}
): Effect.Effect<void, never, McpGateway | Stdio.Stdio | Scope.Scope> =>
  Effect.flatMap(McpGateway, (gateway) => StdioFront.serve(gateway.engine, options))

/**
 * Serves every host over HTTP on the `HttpServer` in context (`/mcp`, `/mcp/<profile>`, `/healthz`, `/readyz`), and
 * the read-only status page at `/` (unless `statusPage: false`; see the README's "The status page"). Closing the layer
 * ends the status page's streams, stops taking calls, waits for those in flight (at most `drainTimeout`) and closes
 * the sessions.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (): Layer.Layer<never, never, McpGateway | HttpServer.HttpServer> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const gateway = yield* McpGateway
    const http = yield* Http.make(gateway.engine, gateway.seal, gateway.relay)
    yield* HttpServer.serveEffect(http.handle)
    // Added after serving, so it runs before the server's own close (finalizers run last in, first out): calls are
    // refused and those in flight drained while the server still takes the hosts' answers, then the sessions (their
    // GET streams) are closed, and only then does the server stop listening and wait for its connections. The
    // other way round, the server stopped taking requests first and waited up to 20 s for the open ones. Its log
    // lines go through the layer's own context, not the closing fiber's.
    const context = yield* Effect.context<never>()
    yield* Effect.addFinalizer(() => Effect.provideContext(http.shutdown, context))
    // Runs first, before the server's graceful close waits on open responses: the status page's streams end.
    yield* Effect.addFinalizer(() => http.closeStreams)
  }))
