/**
 * The gateway's engine, under either front (stdio, HTTP) and either era: the surface kept up to date from the
 * manager, each host method served against it, upstream notifications fanned out, resource subscriptions shared.
 *
 * Fronts hand it exchanges (one request of one host) and the notifications and responses hosts send; it never sees
 * a byte of transport.
 *
 * @internal
 */
import type { McpManager, ServerHealth } from "@mcp-fleet/manager"
import { StatusText } from "@mcp-fleet/manager"
import type { Features, McpClient, ProtocolFeatures } from "@mcp-fleet/transport"
import { McpError, Protocol } from "@mcp-fleet/transport"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as CallWindow from "../CallWindow.ts"
import type * as ChangeBus from "../ChangeBus.ts"
import * as GatewayMetrics from "../GatewayMetrics.ts"
import type { Resolved } from "../GatewayOptions.ts"
import * as HostLimits from "../HostLimits.ts"
import * as SharedState from "../internal/sharedState.ts"
import * as ListChanges from "../ListChanges.ts"
import * as Profiles from "../Profiles.ts"
import * as ResourceRoutes from "../ResourceRoutes.ts"
import * as ResultStore from "../ResultStore.ts"
import * as ToolSearch from "../ToolSearch.ts"
import type * as Calls from "./Calls.ts"
import * as Fanout from "./Fanout.ts"
import type { Exchange, Host } from "./Host.ts"
import * as HostModule from "./Host.ts"
import * as Rounds from "./Rounds.ts"
import type { Router } from "./Router.ts"
import * as Rpc from "./Rpc.ts"
import * as Surface from "./Surface.ts"
import * as View from "./View.ts"

/** The protocol versions a 2025-era host may speak with the gateway, newest first. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
/** The 2026-07-28 revision. */
export const MODERN_VERSION = "2026-07-28"

/** The gateway's own tool and resource. */
export const STATUS_TOOL = "fleet_status"
export const STATUS_URI = "fleet://status"

/** The engine, as the fronts use it. */
export interface Engine {
  readonly options: Resolved
  /** Serves one request (not `subscriptions/listen`): its result, or the error to answer with. */
  readonly request: (exchange: Exchange, params: unknown) => Effect.Effect<unknown, Rpc.RpcError>
  /**
   * Serves `subscriptions/listen`: acknowledges through `send`, then sends what the filter asks for until
   * interrupted (the stream closed, the request cancelled).
   */
  readonly listen: (
    exchange: Exchange,
    params: unknown,
    send: (message: Record<string, unknown>) => boolean
  ) => Effect.Effect<never, Rpc.RpcError>
  /** A notification from a host. */
  readonly notification: (host: Host, method: string, params: unknown) => Effect.Effect<void>
  /** A response from a host, to a request the gateway asked it; `false` when no such request waits here. */
  readonly response: (
    host: Host,
    id: string | number,
    outcome: { result: unknown } | { error: Rpc.RpcError }
  ) => boolean
  /**
   * A 2025-era host that finished `initialize`: it hears list changes and log entries from now on; its session's
   * log line is written.
   */
  readonly attach: (host: Host) => Effect.Effect<void>
  /** A host that is gone: its subscriptions released, its calls and the requests asked of it ended. */
  readonly detach: (host: Host) => Effect.Effect<void>
  /** Every enabled server has settled (none is starting). */
  readonly ready: () => boolean
  /** The status text (`fleet_status`, `fleet://status`). */
  readonly status: () => string
  /** The `inputSchema` of the tool `host` calls `name` (its `Mcp-Param-*` headers are checked against it). */
  readonly toolInputSchema: (host: Host, name: unknown) => unknown
  /** Whether a profile of this name is configured. */
  readonly hasProfile: (name: string) => boolean
  /** Counts, for the status and the operator. */
  readonly stats: () => Stats
  /** The HTTP front says how to count its 2025-era sessions (open ones, initialized or not). */
  readonly countSessions: (count: () => number) => void
  /** Stop taking calls, then wait (at most the drain timeout) for the ones in flight. */
  readonly drain: Effect.Effect<void>
  /** What the gateway records its metrics through (`GatewayMetrics.off` unless `metrics` is on). */
  readonly metrics: GatewayMetrics.Recorder
  /** The fleet the gateway serves (the status page reads its health). */
  readonly manager: McpManager.McpManager["Service"]
  /** 2025-era hosts that finished `initialize`. */
  readonly hosts: () => ReadonlyArray<Host>
  /** The tool calls forwarded upstream, over a sliding window (the status page's figures). */
  readonly calls: CallWindow.CallWindow
  /** A signal (sliding, capacity 1) each time a call ends or a host comes or goes. */
  readonly activity: PubSub.PubSub<void>
}

/** What the gateway holds now. */
export interface Stats {
  /** 2025-era hosts that finished `initialize` (they hear list changes). */
  readonly hosts: number
  /** 2025-era HTTP sessions open (initialized or not). */
  readonly sessions: number
  /** Open `subscriptions/listen` streams. */
  readonly listeners: number
  /** Host calls in flight upstream. */
  readonly calls: number
}

interface Watched {
  readonly client: McpClient.McpClient
  readonly fiber: Fiber.Fiber<void>
}

interface Subscription {
  count: number
  readonly server: string
  /** The URI the server knows, and the one hosts know. */
  readonly uri: string
  readonly exposed: string
  /** The connection it was made on (a restart gives the server a new one, where it is made again). */
  client: McpClient.McpClient
  fiber: Fiber.Fiber<void>
}

const isRecord = Rpc.isRecord

/** The JSON-RPC code of "URL elicitation required" (2025-11-25). */
const URL_ELICITATION_REQUIRED = -32042
const decodeCallResult = Schema.decodeUnknownExit(Protocol.CallToolResult)

/** The `_meta` keys of the 2026-07-28 envelope, which are the host's and not forwarded as they are. */
const ENVELOPE = new Set([
  "io.modelcontextprotocol/protocolVersion",
  "io.modelcontextprotocol/clientInfo",
  "io.modelcontextprotocol/clientCapabilities",
  "io.modelcontextprotocol/logLevel",
  "progressToken"
])

/** Fields a 2026-07-28 result carries that a 2025-era host's schema does not know. */
const MODERN_RESULT_FIELDS = ["resultType", "ttlMs", "cacheScope"]
const SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"

/**
 * What the engine shares with other replicas, when there are any (`SharedState`, `ChangeBus`): absent, the engine is
 * the single-machine gateway.
 */
export interface Shared {
  /** The shared state's status now, rendered in the status text (and so in `/readyz`). */
  readonly status?: (() => SharedState.Status) | undefined
  /**
   * The change bus: a remote server's lists that changed here are published, and another replica's change makes
   * this one list that server again (`relist`) when its own lists differ.
   */
  readonly bus?: ChangeBus.ChangeBus["Service"] | undefined
  /** Lists a server again, as its `list_changed` would. */
  readonly relist?: ((server: string) => Effect.Effect<void>) | undefined
}

/** Builds the engine over the manager and the router its clients answer through. */
export const make: (
  manager: McpManager.McpManager["Service"],
  router: Router,
  store: ResultStore.ResultStore["Service"],
  options: Resolved,
  shared?: Shared
) => Effect.Effect<Engine, never, Scope.Scope> = Effect.fnUntraced(function*(
  manager: McpManager.McpManager["Service"],
  router: Router,
  store: ResultStore.ResultStore["Service"],
  options: Resolved,
  shared: Shared = {}
) {
  const scope = yield* Scope.Scope
  const recorder = options.metrics ? GatewayMetrics.make(yield* Effect.context<never>()) : GatewayMetrics.off
  let hostNumbers = 0
  const inFlight: Calls.InFlight = router.inFlight
  const fanout = Fanout.make(inFlight)
  const lock = yield* Semaphore.make(1)
  const calls = CallWindow.make()
  const activity = yield* PubSub.sliding<void>(1)
  const touched = () => PubSub.publishUnsafe(activity, undefined)

  let surface = Surface.build(
    { healths: [], tools: [], prompts: [], resources: [], templates: [], now: 0 },
    Surface.emptyMemory,
    { graceMs: options.graceMs }
  ).surface
  let memory: Surface.Memory = Surface.emptyMemory
  let routes = ResourceRoutes.make([], [])
  /** One view per (profile, name-length limit), until the surface changes. */
  const views = new Map<string, View.View>()
  const refreshed = yield* PubSub.sliding<void>(1)
  let expiryTimer: Fiber.Fiber<void> | undefined
  /** Whether, when the surface was last built, no server was starting or still listing its prompts or resources. */
  let settled = false
  let draining = false
  const watched = new Map<string, Watched>()
  const subscriptions = new Map<string, Subscription>()
  const suspended = new Map<string, Rounds.Suspended>()

  // The profiles, resolved once: the default one and each named one.
  const profiles = new Map<string, Profiles.Resolved>()
  for (const name of [undefined, ...Object.keys(options.profiles.profiles ?? {})]) {
    const resolved = yield* Effect.orDie(Profiles.select(options.profiles, name))
    profiles.set(name ?? "", resolved)
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The surface: rebuilt on every fleet change; hosts hear of a list that really changed (`ListChanges`).

  const refresh: Effect.Effect<void> = lock.withPermits(1)(Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const built = Surface.build(
      {
        healths: manager.health(),
        tools: manager.tools(),
        prompts: manager.prompts(),
        resources: manager.resources(),
        templates: manager.resourceTemplates(),
        now
      },
      memory,
      { graceMs: options.graceMs }
    )
    surface = built.surface
    memory = built.memory
    // Settled: no server starting, and every ready one's prompts and resources listed once.
    settled = manager.health().every((h) =>
      h.state !== "starting" && (h.listing === undefined || h.listing.length === 0)
    )
    routes = ResourceRoutes.make(
      surface.resources.map((r) => ({ server: r.server, resource: r.item })),
      surface.templates.map((t) => ({ server: t.server, template: t.item })),
      surface.servers.length === 1 ? { fallback: surface.servers[0] } : {}
    )
    views.clear()
    yield* PubSub.publish(refreshed, undefined)
    if (expiryTimer !== undefined) yield* Fiber.interrupt(expiryTimer)
    expiryTimer = surface.nextExpiry === undefined
      ? undefined
      : yield* Effect.forkIn(Effect.andThen(Effect.sleep(Math.max(0, surface.nextExpiry - now)), refresh), scope)
    yield* watchClients
  }))

  /** One reader of each ready server's notifications (its log entries), restarted when its client changes. */
  const watchClients = Effect.gen(function*() {
    for (const server of surface.servers) {
      const client = yield* Effect.option(manager.client(server))
      const current = watched.get(server)
      if (Option.isNone(client) || current?.client === client.value) continue
      if (current !== undefined) {
        yield* Fiber.interrupt(current.fiber)
        // Under the refresh's lock now: made again once it is released.
        yield* Effect.forkIn(resubscribe(server, client.value), scope)
      }
      const fiber = yield* client.value.notifications.pipe(
        Stream.runForEach((notification) =>
          Effect.sync(() => {
            if (notification.method === "notifications/message") fanout.log(server, notification.params)
          })
        ),
        Effect.forkIn(scope)
      )
      watched.set(server, { client: client.value, fiber })
    }
  })

  // ---------------------------------------------------------------------------------------------------------------
  // Replicas: the change bus. Each replica has its own connection to a remote (HTTP) server, and a server may tell
  // only one of them that its lists changed (its notification goes to one session's stream). The replica that saw
  // it publishes the server's new fingerprint; a replica whose own lists of that server differ lists it again, and
  // its hosts then hear of the change through `ListChanges`, once (its fingerprint dedupes the triggers). Stdio
  // servers are processes of each replica: a change in one is not a change in another's, so they are not shared.

  /** The fingerprint of each ready remote server's lists, as this replica sees them. */
  const remoteFingerprints = (): Map<
    string,
    { readonly fingerprints: ListChanges.Fingerprints; readonly key: string }
  > => {
    const remote = new Set(
      manager.health().filter((h) => h.transport !== "stdio" && h.state === "ready").map((h) => h.name)
    )
    const of = <A extends { readonly server: string; readonly offline: boolean }>(
      items: ReadonlyArray<A>,
      server: string
    ) => items.filter((item) => item.server === server && !item.offline)
    const fingerprints = new Map<string, { readonly fingerprints: ListChanges.Fingerprints; readonly key: string }>()
    for (const server of remote) {
      const f = ListChanges.fingerprint({
        tools: of(surface.tools, server).map((t) => t.item),
        resources: of(surface.resources, server).map((r) => r.item),
        resourceTemplates: of(surface.templates, server).map((t) => t.item),
        prompts: of(surface.prompts, server).map((p) => p.item)
      })
      fingerprints.set(server, { fingerprints: f, key: `${f.prompts}.${f.resources}.${f.tools}` })
    }
    return fingerprints
  }

  const shareChanges = (bus: ChangeBus.ChangeBus["Service"]) =>
    Effect.gen(function*() {
      let known = remoteFingerprints()
      const refreshes = yield* PubSub.subscribe(refreshed)
      yield* Effect.gen(function*() {
        while (true) {
          yield* PubSub.take(refreshes)
          const now = remoteFingerprints()
          for (const [server, current] of now) {
            const before = known.get(server)
            if (before === undefined || before.key === current.key) continue
            yield* bus.publish({
              _tag: "ListChanged",
              server,
              kinds: ListChanges.diff(before.fingerprints, current.fingerprints),
              fingerprint: current.key
            })
          }
          known = now
        }
      }).pipe(Effect.forkIn(scope))
      const relist = shared.relist
      if (relist === undefined) return
      const changes = yield* bus.subscribe
      yield* Effect.gen(function*() {
        while (true) {
          const change = yield* PubSub.take(changes)
          if (change._tag === "ListChanged") {
            const mine = remoteFingerprints().get(change.server)
            if (mine !== undefined && mine.key !== change.fingerprint) yield* relist(change.server)
          } else if (change._tag === "Resync") {
            // Changes may have been missed while the bus was away: every remote server is listed again.
            yield* Effect.forEach([...remoteFingerprints().keys()], relist, { discard: true })
          }
        }
      }).pipe(Effect.forkIn(scope))
    })

  yield* manager.snapshots.pipe(Stream.runForEach(() => refresh), Effect.forkIn(scope))
  yield* manager.catalogChanges.pipe(Stream.runForEach(() => refresh), Effect.forkIn(scope))
  // Subscribed before the watch reads its baseline: a refresh in between (a server becoming ready while the gateway
  // starts) is a trigger, not lost; lost, the first refresh after it told hosts of a change they had already listed.
  const triggers = yield* PubSub.subscribe(refreshed)
  yield* ListChanges.watch({
    triggers: Stream.fromSubscription(triggers),
    read: Effect.sync(() => ({
      tools: surface.tools.map((t) => ({ ...t.item, name: `${t.server}/${t.item.name}` })),
      resources: surface.resources.map((r) => r.item),
      resourceTemplates: surface.templates.map((t) => t.item),
      prompts: surface.prompts.map((p) => ({ ...p.item, name: `${p.server}/${p.item.name}` }))
    })),
    window: options.listChangedDelayMs
  }).pipe(
    Stream.runForEach((kinds) => Effect.sync(() => fanout.listsChanged(kinds))),
    Effect.forkIn(scope)
  )

  // ---------------------------------------------------------------------------------------------------------------
  // Helpers.

  /** The host's view: its profile's tools under names its limit allows. */
  const viewFor = (host: Host): View.View => {
    const profile = profiles.get(host.profile ?? "") ?? profiles.get("")!
    const maxLength = HostLimits.forClient(host.clientInfo, {
      hostKey: options.hostKey,
      overrides: options.nameLengths
    }).maxLength
    const key = `${host.profile ?? ""}\u0000${maxLength}`
    const existing = views.get(key)
    if (existing !== undefined) return existing
    const view = View.make(surface, profile, { policy: options.prefix, maxLength, own: [statusTool] })
    views.set(key, view)
    return view
  }

  const allowed = (host: Host, server: string) => viewFor(host).includes(server)

  /** Where a URI goes for `host`: the server and the URI it knows, or `undefined`. */
  const routeFor = (host: Host, uri: string) => {
    const route = routes.route(uri)
    return route === undefined || !allowed(host, route.server)
      ? undefined
      : { ...route, offline: surface.offline.has(route.server) }
  }

  const modern = (host: Host) => host.era === "modern"

  /** A result as the host's era has it: 2026-07-28 results say `resultType`; 2025-era ones lose the new fields. */
  const shaped = (host: Host, result: unknown): unknown => {
    if (!isRecord(result)) return result
    if (modern(host)) return "resultType" in result ? result : { ...result, resultType: "complete" }
    const copy: Record<string, unknown> = { ...result }
    for (const field of MODERN_RESULT_FIELDS) delete copy[field]
    const meta = copy["_meta"]
    if (isRecord(meta) && SERVER_INFO_META in meta) {
      const { [SERVER_INFO_META]: _, ...rest } = meta
      if (Object.keys(rest).length === 0) delete copy["_meta"]
      else copy["_meta"] = rest
    }
    return copy
  }

  /** A list result: 2026-07-28 adds the cache hints (nothing here may be cached: `ttlMs` 0, private). */
  const listResult = (host: Host, key: string, items: ReadonlyArray<unknown>) =>
    modern(host)
      ? { [key]: items, resultType: "complete", ttlMs: 0, cacheScope: "private" }
      : { [key]: items }

  const health = (server: string): ServerHealth.ServerHealth | undefined =>
    manager.health().find((h) => h.name === server)

  const defaultView = () =>
    viewFor(HostModule.make({ id: "status", era: "legacy", transport: "stdio", protocolVersion: LEGACY_VERSIONS[0]! }))

  const statusText = () => {
    const { calls, hosts, listeners, sessions } = stats()
    const lines = [manager.statusLines()]
    const notes = [...routes.collisions.map(ResourceRoutes.describe), ...defaultView().notes]
    if (notes.length > 0) lines.push(`gateway notes (${notes.length}):`, ...notes.map((note) => `  ${note}`))
    lines.push(
      `gateway: ${hosts} host(s) connected, ${sessions} HTTP session(s), ${listeners} listen stream(s), ${calls} call(s) in flight`
    )
    if (shared.status !== undefined) lines.push(SharedState.describe(shared.status()).line)
    return lines.join("\n")
  }

  let sessions = () => 0
  const stats = (): Stats => ({
    hosts: fanout.hosts().length,
    sessions: sessions(),
    listeners: fanout.listeners(),
    calls: inFlight.size()
  })

  /** Why a server's item cannot be used now, as the model should read it. */
  const unavailableText = (what: string, server: string) => {
    const h = health(server)
    const line = h === undefined ? `${server}: removed` : StatusText.formatServerLine(h)
    return `${what} is not available right now: ${line}. mcp-fleet keeps the server supervised and reconnects it by ` +
      `itself; call ${STATUS_TOOL} for the whole fleet.`
  }

  const isError = (text: string) => ({ content: [{ type: "text", text }], isError: true })

  /**
   * An upstream failure as the host is told: the server's own JSON-RPC error as it was (a `-32042` whose URL
   * elicitations the gateway could not complete, with them, for the host to complete), anything else explained.
   */
  const upstreamError = (server: string, error: { readonly message: string }) =>
    error instanceof McpError.RemoteError
      ? Rpc.error(error.code, error.remoteMessage, error.data)
      : error instanceof McpError.UrlElicitationRequired
      ? Rpc.error(URL_ELICITATION_REQUIRED, error.message, { elicitations: error.elicitations })
      : Rpc.error(Rpc.INTERNAL_ERROR, `${server}: ${error.message}`)

  /** The host's `_meta` as forwarded upstream: the envelope and the progress token are the gateway's to set. */
  const forwardedParams = (
    exchange: Exchange,
    params: Readonly<Record<string, unknown>>,
    upstreamEra: "legacy" | "modern" | undefined
  ): Record<string, unknown> => {
    const own = isRecord(params["_meta"]) ? params["_meta"] : {}
    const meta: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(own)) if (!ENVELOPE.has(key)) meta[key] = value
    if (upstreamEra === "modern") {
      // The upstream asks only for input this host can give, and logs at the level it wants.
      const declared = exchange.host.capabilities
      const capabilities: Record<string, unknown> = {}
      for (const name of ["elicitation", "sampling", "roots"]) {
        if (declared[name] !== undefined) capabilities[name] = declared[name]
      }
      meta["io.modelcontextprotocol/clientCapabilities"] = capabilities
      const level = modern(exchange.host) ? exchange.logLevel : exchange.logLevel ?? "debug"
      if (level !== undefined) meta["io.modelcontextprotocol/logLevel"] = level
    }
    const { _meta: _, ...rest } = params
    return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta }
  }

  /** One request forwarded to `server` as `call`, with progress mapped to the host's token. */
  const forward = (
    exchange: Exchange,
    server: string,
    method: string,
    params: Readonly<Record<string, unknown>>,
    rounds: Rounds.Rounds | undefined
  ): Effect.Effect<unknown, Rpc.RpcError> =>
    Effect.gen(function*() {
      // A client with a session is used at once; a server still starting (the fleet's first moments, a restart, a
      // config edit) is waited for, a little. Its health is read only then: building every server's health on every
      // call grew with the fleet (BENCHMARKS.md, issue 29).
      const live = Option.filter(yield* Effect.option(manager.client(server)), (c) => Option.isSome(c.session()))
      if (Option.isNone(live) && options.startupListWaitMs > 0) {
        const own = yield* Effect.option(manager.serverHealth(server))
        if (Option.isSome(own) && own.value.state === "starting") {
          yield* Effect.ignore(Effect.timeoutOption(manager.waitForReady(server), options.startupListWaitMs))
        }
      }
      const client = Option.isSome(live) ? live.value : yield* manager.client(server).pipe(
        Effect.mapError((error) => Rpc.error(Rpc.INTERNAL_ERROR, error.message))
      )
      const era = Option.getOrUndefined(client.session())?.era
      const token = exchange.progressToken
      const featureOptions: Features.FeatureOptions = {
        inputRequired: modern(exchange.host) ? "return" : "answer",
        ...(token === undefined ? {} : {
          onProgress: (progress: ProtocolFeatures.Progress) =>
            Effect.sync(() => {
              exchange.related(Rpc.notificationMessage("notifications/progress", { ...progress, progressToken: token }))
            })
        })
      }
      const call: Calls.Call = { exchange, server, rounds }
      return yield* inFlight.run(
        call,
        client.request(method, forwardedParams(exchange, params, era), featureOptions).pipe(
          Effect.mapError((error) => upstreamError(server, error))
        )
      )
    })

  // ---------------------------------------------------------------------------------------------------------------
  // Input rounds for 2026-07-28 hosts whose upstream asks through server requests.

  const upstreamEra = (server: string) =>
    Effect.map(
      Effect.option(manager.client(server)),
      (client) => Option.isNone(client) ? undefined : Option.getOrUndefined(client.value.session())?.era
    )

  /** The next answer for a host waiting on `rounds`: input asked (suspended under a new state), or the end. */
  const nextRound = (
    exchange: Exchange,
    rounds: Rounds.Rounds,
    fiber: Fiber.Fiber<unknown, unknown>,
    method: string,
    target: string | undefined
  ): Effect.Effect<unknown, Rpc.RpcError> =>
    Effect.gen(function*() {
      while (true) {
        const event = yield* rounds.next
        if (event._tag === "Done") {
          if (Exit.isSuccess(event.exit)) return shaped(exchange.host, event.exit.value)
          const error = Cause.findErrorOption(event.exit.cause)
          return yield* Option.isSome(error)
            ? Effect.fail(error.value)
            : Effect.fail(Rpc.error(Rpc.INTERNAL_ERROR, "The upstream call ended without a result."))
        }
        if (rounds.pending().size === 0) continue
        const now = yield* Clock.currentTimeMillis
        const token = `${Rounds.STATE_PREFIX}${crypto.randomUUID()}`
        const entry: Rounds.Suspended = { rounds, fiber, method, target, expiresAt: now + options.inputRoundMs }
        suspended.set(token, entry)
        yield* Effect.forkIn(
          Effect.andThen(
            Effect.sleep(options.inputRoundMs),
            Effect.suspend(() => {
              if (suspended.get(token) !== entry) return Effect.void
              suspended.delete(token)
              return Fiber.interrupt(fiber)
            })
          ),
          scope
        )
        return shaped(exchange.host, {
          resultType: "input_required",
          inputRequests: Rounds.inputRequests(rounds),
          requestState: token
        })
      }
    })

  /** A 2026-07-28 host's call to a 2025-era upstream: run on its own fiber, its server requests become rounds. */
  const bridged = (
    exchange: Exchange,
    server: string,
    method: string,
    params: Readonly<Record<string, unknown>>,
    target: string | undefined
  ) =>
    Effect.gen(function*() {
      const rounds = yield* Rounds.make
      const fiber = yield* forward(exchange, server, method, params, rounds).pipe(
        Effect.exit,
        Effect.flatMap((exit) => Effect.sync(() => rounds.done(exit))),
        Effect.forkIn(scope)
      )
      let handedOff = false
      return yield* nextRound(exchange, rounds, fiber, method, target).pipe(
        Effect.tap(() => Effect.sync(() => (handedOff = true))),
        // The host went away before the first round: the call is cancelled upstream.
        Effect.onInterrupt(() => handedOff ? Effect.void : Fiber.interrupt(fiber))
      )
    })

  /** A retry carrying `requestState` the gateway minted: the answers go upstream, the host waits again. */
  const resume = (exchange: Exchange, params: Readonly<Record<string, unknown>>, method: string, target: string) =>
    Effect.gen(function*() {
      const token = params["requestState"]
      const entry = typeof token === "string" ? suspended.get(token) : undefined
      if (entry === undefined || entry.method !== method || entry.target !== target) {
        return yield* Rpc.error(
          Rpc.INVALID_PARAMS,
          "requestState is not one this gateway issued for this request, or it has expired"
        )
      }
      suspended.delete(token as string)
      const responses = isRecord(params["inputResponses"]) ? params["inputResponses"] : {}
      entry.rounds.answer(responses)
      return yield* nextRound(exchange, entry.rounds, entry.fiber, method, target)
    })

  /** Whether `params` is a retry of a round the gateway minted. */
  const isGatewayRound = (params: Readonly<Record<string, unknown>>) =>
    typeof params["requestState"] === "string" && params["requestState"].startsWith(Rounds.STATE_PREFIX)

  /** A call to `server`: directly, or through rounds when a 2026-07-28 host meets a 2025-era upstream. */
  const callUpstream = (
    exchange: Exchange,
    server: string,
    method: string,
    params: Readonly<Record<string, unknown>>,
    target: string
  ) =>
    Effect.gen(function*() {
      if (modern(exchange.host)) {
        if (isGatewayRound(params)) return yield* resume(exchange, params, method, target)
        if ((yield* upstreamEra(server)) === "legacy") return yield* bridged(exchange, server, method, params, target)
      }
      return shaped(exchange.host, yield* forward(exchange, server, method, params, undefined))
    })

  // ---------------------------------------------------------------------------------------------------------------
  // Resource subscriptions, shared by every host subscribed to the same URI.

  const subscriptionKey = (server: string, uri: string) => `${server}\u0000${uri}`

  const acquire = (server: string, uri: string, exposed: string): Effect.Effect<void, Rpc.RpcError> =>
    lock.withPermits(1)(Effect.gen(function*() {
      const key = subscriptionKey(server, uri)
      const existing = subscriptions.get(key)
      if (existing !== undefined) {
        existing.count++
        return
      }
      const client = yield* manager.client(server).pipe(
        Effect.mapError((error) => Rpc.error(Rpc.INTERNAL_ERROR, error.message))
      )
      yield* client.subscribeResource(uri).pipe(Effect.mapError((error) => upstreamError(server, error)))
      const fiber = yield* relayUpdates(client, uri, exposed)
      subscriptions.set(key, { count: 1, server, uri, exposed, client, fiber })
    }))

  /** Passes `client`'s updates of `uri` to the hosts subscribed to `exposed`. */
  const relayUpdates = (client: McpClient.McpClient, uri: string, exposed: string) =>
    client.resourceUpdates(uri).pipe(
      Stream.runForEach((update) =>
        Effect.sync(() => {
          const { uri: _, ...rest } = update
          fanout.resourceUpdated(exposed, rest)
        })
      ),
      Effect.forkIn(scope)
    )

  /**
   * `server` has a new connection (a restart, a reconnection): the subscriptions hosts hold on it are made again
   * there, so that their updates keep coming. One that the new connection refuses is logged; hosts keep it.
   */
  const resubscribe = (server: string, client: McpClient.McpClient): Effect.Effect<void> =>
    // Once the new connection is ready (one that never is leaves them for the next).
    Effect.andThen(
      Effect.exit(client.awaitReady),
      lock.withPermits(1)(Effect.gen(function*() {
        const moved = [...subscriptions.values()].filter((sub) => sub.server === server && sub.client !== client)
        if (moved.length === 0) return
        const refusals: Array<string> = []
        for (const sub of moved) {
          yield* Fiber.interrupt(sub.fiber)
          sub.client = client
          sub.fiber = yield* relayUpdates(client, sub.uri, sub.exposed)
          const made = yield* Effect.exit(client.subscribeResource(sub.uri))
          if (Exit.isFailure(made)) refusals.push(Cause.pretty(made.cause).split("\n", 1)[0]!)
        }
        yield* (refusals.length === 0 ? Effect.logInfo : Effect.logWarning)(
          "resource subscriptions made again on the server's new connection"
        ).pipe(Effect.annotateLogs({
          mcpServer: server,
          subscriptions: moved.length,
          refused: refusals.length,
          ...(refusals.length === 0 ? {} : { reason: refusals[0] })
        }))
      }))
    )

  const release = (server: string, uri: string): Effect.Effect<void> =>
    lock.withPermits(1)(Effect.gen(function*() {
      const key = subscriptionKey(server, uri)
      const existing = subscriptions.get(key)
      if (existing === undefined || --existing.count > 0) return
      subscriptions.delete(key)
      yield* Fiber.interrupt(existing.fiber)
      yield* Effect.ignore(existing.client.unsubscribeResource(uri))
    }))

  // ---------------------------------------------------------------------------------------------------------------
  // The methods.

  const statusTool = {
    name: STATUS_TOOL,
    title: "Fleet status",
    description: "The state of every MCP server behind this gateway (ready, starting, offline with the reason and " +
      "the next retry, unauthorized with what to do) and what each offers. Call it when a tool fails or is missing.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false }
  }
  const statusResource = {
    uri: STATUS_URI,
    name: "fleet-status",
    title: "Fleet status",
    description: "The state of every MCP server behind this gateway, as mcp-fleet's status ledger shows it.",
    mimeType: "text/plain"
  }

  const capabilities = (host: Host) => ({
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    ...(modern(host) ? {} : { logging: {} }),
    completions: {}
  })

  const param = (params: Readonly<Record<string, unknown>>, key: string, method: string) => {
    const value = params[key]
    return typeof value === "string"
      ? Effect.succeed(value)
      : Effect.fail(Rpc.error(Rpc.INVALID_PARAMS, `${method} needs params.${key} (a string)`))
  }

  /** A call of the tool the host knows as `name`: offline ones answered at once, large results spilled. */
  const callTool = (
    exchange: Exchange,
    params: Readonly<Record<string, unknown>>,
    name: string,
    args: unknown
  ): Effect.Effect<unknown, Rpc.RpcError> =>
    Effect.gen(function*() {
      const tool = yield* settledLookup(() => viewFor(exchange.host).tool(name))
      if (tool === undefined) return yield* Rpc.error(Rpc.INVALID_PARAMS, `Unknown tool: ${name}`)
      if (tool.offline) return shaped(exchange.host, isError(unavailableText(`The tool ${name}`, tool.server)))
      const upstreamParams = { ...params, name: tool.tool.name, ...(args === undefined ? {} : { arguments: args }) }
      const result = yield* callUpstream(exchange, tool.server, "tools/call", upstreamParams, name).pipe(
        // The model reads why a call failed: a transport failure is an isError result, not a protocol error.
        Effect.catchIf(
          (error) => error.code === Rpc.INTERNAL_ERROR,
          (error) => Effect.succeed(shaped(exchange.host, isError(error.message)))
        ),
        (call) =>
          calls.timed(tool.server, tool.tool.name, call, (result) => isRecord(result) && result["isError"] === true),
        Effect.ensuring(Effect.sync(touched))
      )
      return yield* spill(result)
    })

  /** A complete tool result over the store's threshold becomes its head and a link to the whole. */
  const spillAbove = ResultStore.thresholdOf(options.results)
  const spill = (result: unknown): Effect.Effect<unknown> => {
    if (!isRecord(result) || result["resultType"] === "input_required") return Effect.succeed(result)
    // Most results are small: measured first, they pass as they came without a decode (BENCHMARKS.md, issue 29).
    if (ResultStore.textChars(result["content"]) <= spillAbove) return Effect.succeed(result)
    const decoded = decodeCallResult(result)
    return Exit.isSuccess(decoded) ? store.spill(decoded.value) : Effect.succeed(result)
  }

  /**
   * In the gateway's first `startupListWait`, waits (until then at most) for a surface built with no server still
   * starting, so that a host's first list has the whole fleet.
   */
  const startedAt = yield* Clock.currentTimeMillis
  const untilSettled: Effect.Effect<void> = Effect.gen(function*() {
    if (settled) return
    // Only in the gateway's first moments: a server that takes longer to start is announced by list_changed.
    const left = startedAt + options.startupListWaitMs - (yield* Clock.currentTimeMillis)
    if (left <= 0) return
    yield* Effect.scoped(Effect.gen(function*() {
      const refreshes = yield* PubSub.subscribe(refreshed)
      while (!settled) yield* PubSub.take(refreshes)
    })).pipe(Effect.timeoutOption(left))
  })

  /** `find()`, or, when it finds nothing in the gateway's first moments, `find()` once the fleet has settled. */
  const settledLookup = <A>(find: () => A | undefined): Effect.Effect<A | undefined> => {
    const found = find()
    return found !== undefined || settled ? Effect.succeed(found) : Effect.map(untilSettled, find)
  }

  const methods: Record<
    string,
    (exchange: Exchange, params: Readonly<Record<string, unknown>>) => Effect.Effect<unknown, Rpc.RpcError>
  > = {
    initialize: (exchange, params) =>
      Effect.sync(() => {
        const host = exchange.host
        const offered = params["protocolVersion"]
        host.protocolVersion = typeof offered === "string" && LEGACY_VERSIONS.includes(offered)
          ? offered
          : LEGACY_VERSIONS[0]!
        const info = params["clientInfo"]
        if (isRecord(info) && typeof info["name"] === "string" && typeof info["version"] === "string") {
          host.clientInfo = { name: info["name"], version: info["version"] }
        }
        host.capabilities = isRecord(params["capabilities"]) ? params["capabilities"] : {}
        return {
          protocolVersion: host.protocolVersion,
          capabilities: capabilities(host),
          serverInfo: options.serverInfo,
          ...(options.instructions === undefined ? {} : { instructions: options.instructions })
        }
      }),
    "server/discover": (exchange) =>
      Effect.succeed({
        supportedVersions: [MODERN_VERSION],
        capabilities: capabilities(exchange.host),
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        resultType: "complete",
        ttlMs: 0,
        cacheScope: "private",
        _meta: { [SERVER_INFO_META]: options.serverInfo }
      }),
    ping: () => Effect.succeed({}),
    "logging/setLevel": (exchange, params) =>
      Rpc.isLogLevel(params["level"])
        ? Effect.sync(() => {
          exchange.host.logLevel = Rpc.isLogLevel(params["level"]) ? params["level"] : undefined
          return {}
        })
        : Effect.fail(Rpc.error(Rpc.INVALID_PARAMS, "logging/setLevel needs a known level")),
    "tools/list": (exchange) =>
      Effect.andThen(
        untilSettled,
        Effect.sync(() => listResult(exchange.host, "tools", viewFor(exchange.host).listed))
      ),
    "tools/call": (exchange, params) =>
      Effect.gen(function*() {
        const name = yield* param(params, "name", "tools/call")
        const view = viewFor(exchange.host)
        if (name === STATUS_TOOL) {
          return shaped(exchange.host, { content: [{ type: "text", text: statusText() }] })
        }
        if (view.search !== undefined && name === ToolSearch.SEARCH_TOOLS) {
          const query = yield* ToolSearch.decodeSearchArguments(params["arguments"]).pipe(
            Effect.mapError((error) => Rpc.error(Rpc.INVALID_PARAMS, error.message))
          )
          return shaped(exchange.host, ToolSearch.render(view.search.search(query.query, query)))
        }
        if (view.search !== undefined && name === ToolSearch.CALL_TOOL) {
          const call = yield* ToolSearch.decodeCallArguments(params["arguments"]).pipe(
            Effect.mapError((error) => Rpc.error(Rpc.INVALID_PARAMS, error.message))
          )
          return yield* callTool(exchange, params, call.name, call.arguments ?? {})
        }
        return yield* callTool(exchange, params, name, params["arguments"])
      }),
    "prompts/list": (exchange) =>
      Effect.andThen(
        untilSettled,
        Effect.sync(() =>
          listResult(
            exchange.host,
            "prompts",
            viewFor(exchange.host).prompts.map((p) => ({ ...p.prompt, name: p.exposed }))
          )
        )
      ),
    "prompts/get": (exchange, params) =>
      Effect.gen(function*() {
        const name = yield* param(params, "name", "prompts/get")
        const prompt = yield* settledLookup(() => viewFor(exchange.host).prompt(name))
        if (prompt === undefined) return yield* Rpc.error(Rpc.INVALID_PARAMS, `Unknown prompt: ${name}`)
        if (prompt.offline) {
          return yield* Rpc.error(Rpc.INTERNAL_ERROR, unavailableText(`The prompt ${name}`, prompt.server))
        }
        return yield* callUpstream(exchange, prompt.server, "prompts/get", {
          ...params,
          name: prompt.prompt.name
        }, name)
      }),
    "resources/list": (exchange) =>
      Effect.andThen(
        untilSettled,
        Effect.sync(() =>
          listResult(exchange.host, "resources", [
            ...routes.resources.filter((r) => allowed(exchange.host, r.server)).map((r) => r.resource),
            statusResource
          ])
        )
      ),
    "resources/templates/list": (exchange) =>
      Effect.sync(() =>
        listResult(
          exchange.host,
          "resourceTemplates",
          routes.templates.filter((t) => allowed(exchange.host, t.server)).map((t) => t.template)
        )
      ),
    "resources/read": (exchange, params) =>
      Effect.gen(function*() {
        const uri = yield* param(params, "uri", "resources/read")
        const cached = (result: Record<string, unknown>) =>
          modern(exchange.host) ? { ...result, resultType: "complete", ttlMs: 0, cacheScope: "private" } : result
        if (uri === STATUS_URI) return cached({ contents: [{ uri, mimeType: "text/plain", text: statusText() }] })
        if (ResultStore.isResultUri(uri)) {
          const page = yield* store.read(uri).pipe(
            Effect.mapError((error) => Rpc.error(Rpc.RESOURCE_NOT_FOUND, error.message, { uri }))
          )
          return cached(page)
        }
        const route = yield* settledLookup(() => routeFor(exchange.host, uri))
        if (route === undefined) return yield* Rpc.error(Rpc.RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri })
        if (route.offline) {
          return yield* Rpc.error(Rpc.INTERNAL_ERROR, unavailableText(`The resource ${uri}`, route.server))
        }
        const result = yield* callUpstream(exchange, route.server, "resources/read", { ...params, uri: route.uri }, uri)
        return modern(exchange.host) && isRecord(result) && result["resultType"] === "complete" && !("ttlMs" in result)
          ? { ...result, ttlMs: 0, cacheScope: "private" }
          : result
      }),
    "resources/subscribe": (exchange, params) =>
      Effect.gen(function*() {
        const uri = yield* param(params, "uri", "resources/subscribe")
        const host = exchange.host
        if (host.subscriptions.has(uri) || uri === STATUS_URI) return {}
        const route = routeFor(host, uri)
        if (route === undefined) return yield* Rpc.error(Rpc.RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri })
        yield* acquire(route.server, route.uri, uri)
        host.subscriptions.add(uri)
        return {}
      }),
    "resources/unsubscribe": (exchange, params) =>
      Effect.gen(function*() {
        const uri = yield* param(params, "uri", "resources/unsubscribe")
        const host = exchange.host
        if (!host.subscriptions.delete(uri)) return {}
        const route = routes.route(uri)
        if (route !== undefined) yield* release(route.server, route.uri)
        return {}
      }),
    "completion/complete": (exchange, params) =>
      Effect.gen(function*() {
        const ref = params["ref"]
        if (!isRecord(ref)) return yield* Rpc.error(Rpc.INVALID_PARAMS, "completion/complete needs params.ref")
        if (ref["type"] === "ref/prompt" && typeof ref["name"] === "string") {
          const prompt = viewFor(exchange.host).prompt(ref["name"])
          if (prompt === undefined) return yield* Rpc.error(Rpc.INVALID_PARAMS, `Unknown prompt: ${ref["name"]}`)
          return shaped(
            exchange.host,
            yield* forward(exchange, prompt.server, "completion/complete", {
              ...params,
              ref: { ...ref, name: prompt.prompt.name }
            }, undefined)
          )
        }
        if (ref["type"] === "ref/resource" && typeof ref["uri"] === "string") {
          const route = routeFor(exchange.host, ref["uri"])
          if (route === undefined) return yield* Rpc.error(Rpc.INVALID_PARAMS, `Unknown resource: ${ref["uri"]}`)
          return shaped(
            exchange.host,
            yield* forward(exchange, route.server, "completion/complete", {
              ...params,
              ref: { ...ref, uri: route.uri }
            }, undefined)
          )
        }
        return yield* Rpc.error(Rpc.INVALID_PARAMS, "completion/complete needs a ref/prompt or ref/resource")
      })
  }

  /** Methods that do not exist in the 2026-07-28 era. */
  const notModern = new Set(["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"])
  const onlyModern = new Set(["server/discover"])

  const serve = (exchange: Exchange, params: unknown): Effect.Effect<unknown, Rpc.RpcError> => {
    const method = exchange.method
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined
    const inEra = modern(exchange.host) ? !notModern.has(method) : !onlyModern.has(method)
    if (handler === undefined || !inEra) {
      return Effect.fail(Rpc.error(Rpc.METHOD_NOT_FOUND, `Method not found: ${method}`))
    }
    if (draining && method !== "ping") {
      recorder.refused("shutting_down")
      return Effect.fail(Rpc.error(Rpc.OVERLOADED, "The gateway is shutting down."))
    }
    return handler(exchange, isRecord(params) ? params : {})
  }

  /** Counts the request for its host; with metrics on, records its duration and outcome. */
  const request = (exchange: Exchange, params: unknown): Effect.Effect<unknown, Rpc.RpcError> => {
    const host = exchange.host
    host.requests++
    const served = serve(exchange, params)
    if (!recorder.enabled) return Effect.tapError(served, () => Effect.sync(() => host.errors++))
    return Effect.gen(function*() {
      const started = yield* Clock.currentTimeNanos
      const exit = yield* Effect.exit(served)
      const seconds = Number((yield* Clock.currentTimeNanos) - started) / 1e9
      const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
      if (Exit.isFailure(exit)) host.errors++
      const known = Object.hasOwn(methods, exchange.method)
      // Names from the host are recorded only once they proved known (no unbounded attribute values).
      const name = isRecord(params) && typeof params["name"] === "string" ? params["name"] : undefined
      const tool = exchange.method === "tools/call" && error?.code !== Rpc.INVALID_PARAMS &&
          error?.code !== Rpc.METHOD_NOT_FOUND
        ? name
        : undefined
      const toolError = Exit.isSuccess(exit) && isRecord(exit.value) && exit.value["isError"] === true
      recorder.operation({
        method: known ? exchange.method : "_OTHER",
        tool,
        errorType: Exit.isFailure(exit) ? String(error?.code ?? "_OTHER") : toolError ? "tool_error" : undefined,
        transport: host.transport,
        seconds
      })
      return yield* exit
    })
  }

  const listen = (
    exchange: Exchange,
    params: unknown,
    send: (message: Record<string, unknown>) => boolean
  ): Effect.Effect<never, Rpc.RpcError> =>
    Effect.gen(function*() {
      const filter = isRecord(params) && isRecord(params["notifications"]) ? params["notifications"] : {}
      const lists = new Set<Fanout.ListKind>()
      if (filter["toolsListChanged"] === true) lists.add("tools")
      if (filter["promptsListChanged"] === true) lists.add("prompts")
      if (filter["resourcesListChanged"] === true) lists.add("resources")
      const asked = Array.isArray(filter["resourceSubscriptions"])
        ? filter["resourceSubscriptions"].filter((uri): uri is string => typeof uri === "string")
        : []
      const uris = new Set<string>()
      const held: Array<{ server: string; uri: string }> = []
      yield* Effect.addFinalizer(() => Effect.forEach(held, ({ server, uri }) => release(server, uri)))
      for (const uri of asked) {
        const route = routeFor(exchange.host, uri)
        if (route === undefined) continue
        const acquired = yield* Effect.exit(acquire(route.server, route.uri, uri))
        if (Exit.isSuccess(acquired)) {
          held.push({ server: route.server, uri: route.uri })
          uris.add(uri)
        }
      }
      const honoured: Record<string, unknown> = {}
      if (lists.has("tools")) honoured["toolsListChanged"] = true
      if (lists.has("prompts")) honoured["promptsListChanged"] = true
      if (lists.has("resources")) honoured["resourcesListChanged"] = true
      if (asked.length > 0) honoured["resourceSubscriptions"] = [...uris]
      send(Rpc.notificationMessage("notifications/subscriptions/acknowledged", {
        notifications: honoured,
        _meta: { [Fanout.SUBSCRIPTION_ID]: exchange.id }
      }))
      const stop = fanout.listen({ id: exchange.id, lists, uris, send })
      yield* Effect.addFinalizer(() => Effect.sync(stop))
      return yield* Effect.never
    }).pipe(Effect.scoped)

  const notification = (host: Host, method: string, params: unknown): Effect.Effect<void> =>
    Effect.suspend(() => {
      switch (method) {
        case "notifications/initialized":
          host.initialized = true
          return Effect.void
        case "notifications/cancelled": {
          const id = isRecord(params) ? params["requestId"] : undefined
          const fiber = typeof id === "string" || typeof id === "number" ? host.inFlight.get(id) : undefined
          return fiber === undefined ? Effect.void : Effect.asVoid(Fiber.interrupt(fiber))
        }
        case "notifications/roots/list_changed":
          return router.rootsChanged
        default:
          return Effect.void
      }
    })

  /** What a host session's log lines say of it: no session id, nothing secret. */
  const sessionFields = (host: Host): Record<string, unknown> => ({
    host: host.number,
    transport: host.transport,
    protocol: host.protocolVersion,
    client: host.clientInfo === undefined
      ? "unnamed"
      : `${host.clientInfo.name} ${host.clientInfo.version}`.slice(0, 120),
    profile: host.profile ?? "(whole fleet)",
    capabilities: ["elicitation", "sampling", "roots"].filter((name) => HostModule.declares(host, name)).join("+") ||
      "none"
  })

  const attach = (host: Host): Effect.Effect<void> =>
    Effect.gen(function*() {
      fanout.attach(host)
      if (host.openedAt !== undefined) return
      host.openedAt = yield* Clock.currentTimeMillis
      host.number = ++hostNumbers
      recorder.counts(stats())
      yield* Effect.logInfo("host session opened").pipe(Effect.annotateLogs(sessionFields(host)))
    })

  const detach = (host: Host): Effect.Effect<void> =>
    Effect.gen(function*() {
      if (host.openedAt !== undefined && !host.closed) {
        const now = yield* Clock.currentTimeMillis
        const fields = {
          ...sessionFields(host),
          seconds: Math.round((now - host.openedAt) / 100) / 10,
          requests: host.requests,
          errors: host.errors,
          cancelled: host.inFlight.size,
          subscriptions: host.subscriptions.size
        }
        recorder.sessionEnded({
          protocolVersion: host.protocolVersion,
          transport: host.transport,
          seconds: (now - host.openedAt) / 1000
        })
        yield* Effect.logInfo("host session closed").pipe(Effect.annotateLogs(fields))
      }
      host.closed = true
      fanout.detach(host)
      for (const id of [...host.asked.keys()]) {
        HostModule.answered(host, id, { error: Rpc.error(Rpc.INTERNAL_ERROR, "The host went away.") })
      }
      const fibers = [...host.inFlight.values()]
      host.inFlight.clear()
      yield* Fiber.interruptAll(fibers)
      const uris = [...host.subscriptions]
      host.subscriptions.clear()
      for (const uri of uris) {
        const route = routes.route(uri)
        if (route !== undefined) yield* release(route.server, route.uri)
      }
      recorder.counts(stats())
    })

  const drain = Effect.gen(function*() {
    draining = true
    const calls = inFlight.size()
    if (calls === 0) return
    yield* Effect.logInfo("shutting down: waiting for the calls in flight").pipe(
      Effect.annotateLogs({ calls, deadlineMs: options.drainMs })
    )
    const finished = yield* Effect.exit(Effect.timeout(inFlight.idle, options.drainMs))
    yield* Exit.isSuccess(finished)
      ? Effect.logInfo("shutting down: every call in flight finished")
      : Effect.logWarning("shutting down: calls still in flight at the deadline are cancelled").pipe(
        Effect.annotateLogs({ calls: inFlight.size() })
      )
  })

  yield* refresh
  if (shared.bus !== undefined) yield* shareChanges(shared.bus)

  const engine: Engine = {
    options,
    request,
    listen,
    notification,
    response: (host, id, outcome) => HostModule.answered(host, id, outcome),
    attach: (host) => Effect.andThen(attach(host), Effect.sync(touched)),
    detach: (host) => Effect.andThen(detach(host), Effect.sync(touched)),
    ready: () => manager.health().every((h) => h.state !== "starting"),
    status: statusText,
    toolInputSchema: (host, name) => typeof name === "string" ? viewFor(host).tool(name)?.tool.inputSchema : undefined,
    hasProfile: (name) => profiles.has(name),
    stats,
    countSessions: (count) => {
      sessions = count
    },
    drain,
    metrics: recorder,
    manager,
    hosts: fanout.hosts,
    calls,
    activity
  }
  return engine
})
