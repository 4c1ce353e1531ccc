/**
 * Many MCP servers behind one Effect service: lifecycle, tool discovery, supervised reconnection, a
 * five-state health ledger and one status text.
 *
 * Building the layer spawns every enabled server and registers its client before it returns; discovery
 * (`initialize` → `tools/list`) continues in background fibers. The fleet can change while it runs (`add`,
 * `remove`, `update`). Closing the layer's scope shuts every server down (in parallel) and stops every
 * supervisor fiber.
 *
 * The parts live beside this file, each taking plain values: `McpManager/Ledger.ts` (records, the one
 * transition, events), `McpManager/Discovery.ts`, `McpManager/Connection.ts`, `McpManager/Supervisor.ts`.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 * import { McpManager } from "@mcp-fleet/manager"
 *
 * const Fleet = McpManager.layer({
 *   servers: { memory: { command: "node", args: ["memory-server.js"] } }
 * }).pipe(Layer.provide(NodeServices.layer))
 *
 * const program = Effect.gen(function*() {
 *   const manager = yield* McpManager.McpManager
 *   yield* manager.waitForReady("memory")
 *   yield* Effect.log(manager.statusLines())
 *   return yield* manager.call("memory", "read_graph", {})
 * }).pipe(Effect.provide(Fleet))
 * ```
 *
 * @since 0.1.0
 */
import * as McpAuth from "@mcp-fleet/auth/McpAuth"
import type { Features, McpClient, Protocol, ProtocolFeatures, Tool } from "@mcp-fleet/transport"
import { McpError, Telemetry, TypedCall } from "@mcp-fleet/transport"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as PubSub from "effect/PubSub"
import type * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { DuplicateServer, ServerNotReady, ServerUnavailable, UnknownServer } from "./ManagerError.ts"
import type { ManagerOptions, ServerConfig, StateChange } from "./ManagerOptions.ts"
import * as Catalog from "./McpManager/Catalog.ts"
import * as Connection from "./McpManager/Connection.ts"
import * as Ledger from "./McpManager/Ledger.ts"
import * as Metrics from "./McpManager/Metrics.ts"
import * as Options from "./McpManager/Options.ts"
import type { ServerRecord } from "./McpManager/Record.ts"
import * as Supervisor from "./McpManager/Supervisor.ts"
import type { ServerPrompt, ServerResource, ServerResourceTemplate } from "./ServerFeatures.ts"
import type { ServerHealth } from "./ServerHealth.ts"
import * as ServerState from "./ServerState.ts"
import { renderStatusLines } from "./StatusText.ts"

/**
 * The manager service. Its operations are `McpManager["Service"]`.
 *
 * @since 0.1.0
 * @category services
 */
export class McpManager extends Context.Service<McpManager, {
  /** The server's current client, available as soon as the layer is built (fails for unknown/disabled). */
  readonly client: (name: string) => Effect.Effect<McpClient.McpClient, UnknownServer | ServerUnavailable>
  /** An immutable snapshot of every server; each client's `isAlive` is read once (a dead one goes offline). */
  readonly health: () => ReadonlyArray<ServerHealth>
  /** One server's snapshot. */
  readonly serverHealth: (name: string) => Effect.Effect<ServerHealth, UnknownServer>
  /** `ServerTool { server, tool }` of every `ready` server. */
  readonly tools: () => ReadonlyArray<Tool.ServerTool>
  /** `ServerResource { server, resource }` of every `ready` server that offers resources. */
  readonly resources: () => ReadonlyArray<ServerResource>
  /** `ServerResourceTemplate { server, template }` of every `ready` server that offers resources. */
  readonly resourceTemplates: () => ReadonlyArray<ServerResourceTemplate>
  /** `ServerPrompt { server, prompt }` of every `ready` server that offers prompts. */
  readonly prompts: () => ReadonlyArray<ServerPrompt>
  /** Reads a resource on that server and only there (fails at once, typed, as `call` does). */
  readonly readResource: (
    server: string,
    uri: string,
    options?: Features.FeatureOptions
  ) => Effect.Effect<ProtocolFeatures.ReadResourceResult, UnknownServer | ServerUnavailable | Features.FeatureError>
  /** Renders a prompt on that server and only there. */
  readonly getPrompt: (
    server: string,
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: Features.FeatureOptions
  ) => Effect.Effect<ProtocolFeatures.GetPromptResult, UnknownServer | ServerUnavailable | Features.FeatureError>
  /** The status text: exactly `renderStatusLines(health(), maxStatusLines)`. */
  readonly statusLines: () => string
  /**
   * Calls a tool on that server and only there. Offline, disabled and unknown servers fail at once with a
   * typed error that says why; transport errors (including `ErrIndexBuilding`) pass through unchanged. A
   * call that finds the process gone marks the server offline and starts reconnection.
   */
  readonly call: {
    /** A typed call: `structuredContent` decoded with `options.schema` (see `TypedCall` in the transport). */
    <S extends Schema.Constraint>(
      server: string,
      tool: string,
      args: Readonly<Record<string, unknown>> | undefined,
      options: TypedCall.TypedCallOptions<S>
    ): Effect.Effect<
      TypedCall.TypedCallResult<S["Type"]>,
      UnknownServer | ServerUnavailable | McpError.CallToolError | McpError.StructuredContentInvalid,
      S["DecodingServices"]
    >
    (
      server: string,
      tool: string,
      args?: Readonly<Record<string, unknown>>,
      options?: Features.FeatureOptions
    ): Effect.Effect<Protocol.CallToolResult, UnknownServer | ServerUnavailable | McpError.CallToolError>
  }
  /** Waits until the server is `ready`; fails if it settles otherwise. Bounded only by the caller's timeout. */
  readonly waitForReady: (name: string) => Effect.Effect<ServerHealth, UnknownServer | ServerNotReady>
  /**
   * Stops any reconnection, closes the server and starts it afresh (attempts and crash-loop evidence reset),
   * with a full discovery (`initialize` → `tools/list`): the third way a tool list is refreshed, beside
   * reconnection and `list_changed`.
   */
  readonly restart: (name: string) => Effect.Effect<void, UnknownServer>
  /**
   * Lists the server's tools again, as a `tools/list_changed` from it would (coalesced with its own): for a change
   * the server told someone else of, such as another gateway replica. Nothing when it has no process now.
   */
  readonly relist: (name: string) => Effect.Effect<void, UnknownServer>
  /** Adds a server and starts it (unless disabled); its process is spawned before this returns. */
  readonly add: (name: string, config: ServerConfig) => Effect.Effect<void, DuplicateServer>
  /** Stops and forgets a server: its process is drained, `changes` reports `removed`, it leaves `health()`. */
  readonly remove: (name: string) => Effect.Effect<void, UnknownServer>
  /**
   * Applies a new config. Only a launch-relevant change (command, args, env, cwd, inheritEnv,
   * requestTimeout, client, disabled) replaces the process: the new one starts before the old one is drained,
   * and calls in flight on the old one finish or fail with a typed error. Otherwise the record is updated.
   */
  readonly update: (name: string, config: ServerConfig) => Effect.Effect<void, UnknownServer>
  /**
   * Brings the fleet in line with `servers`: adds the new names, removes the missing ones, updates the changed
   * ones (see `update`) and leaves identical ones alone. What a config-file watcher calls on each valid edit.
   */
  readonly reconcile: (servers: Readonly<Record<string, ServerConfig>>) => Effect.Effect<void>
  /** Kills every server at once (SIGKILL) and stops every supervisor fiber. */
  readonly forceClose: Effect.Effect<void>
  /**
   * Every state transition, from the moment the stream is run. Bounded: a subscriber that falls
   * `eventCapacity` changes behind loses the oldest ones.
   */
  readonly changes: Stream.Stream<StateChange>
  /** The whole health snapshot, now and after every change; a slow reader skips to the latest snapshot. */
  readonly snapshots: Stream.Stream<ReadonlyArray<ServerHealth>>
  /**
   * The name of a server each time its resources, resource templates or prompts were listed (again), from the moment
   * the stream is run: what `resources()`, `resourceTemplates()` and `prompts()` return may have changed. Bounded: a
   * slow reader loses the oldest names.
   */
  readonly catalogChanges: Stream.Stream<string>
}>()("@mcp-fleet/manager/McpManager") {}

/**
 * The manager's operations (an alias kept for code written against 0.1).
 *
 * @deprecated Use `McpManager["Service"]`.
 * @since 0.1.0
 * @category models
 */
export type Service = McpManager["Service"]

/** A failure that says the server's process is gone. */
const isExit = (error: unknown): error is McpError.ProcessExited => error instanceof McpError.ProcessExited

const unavailable = (h: ServerHealth) =>
  new ServerUnavailable({
    server: h.name,
    state: h.state,
    attempt: h.attempt,
    gaveUp: h.gaveUp,
    ...(h.lastError !== undefined ? { lastError: h.lastError } : {})
  })

/**
 * Builds the manager in the current scope: spawns every enabled server before returning. Needs the
 * `ChildProcessSpawner` service (`NodeServices.layer` in an app).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  input: ManagerOptions
): Effect.fn.Return<McpManager["Service"], never, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> {
  const options = yield* Options.resolve(input)
  // Every process lives in a child scope of this one, which closes only after the drain below: a server added
  // at run time is shut down by the drain too, never seen as a crash by its own watcher.
  const connections = yield* Scope.fork(yield* Scope.Scope, "parallel")
  const spawner = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()
  // Optional: only remote (`url`) servers need it, and an app of stdio servers need not provide one.
  const http = yield* Effect.serviceOption(HttpClient.HttpClient)
  // Optional too: OAuth for remote servers that answer 401 (the CLI provides it with its prompt and token store).
  const auth = yield* Effect.serviceOption(McpAuth.McpAuth)
  // Read once: with telemetry off (the default) no metric is recorded and no span annotated.
  const telemetry = yield* Telemetry.McpTelemetry
  const metrics = telemetry.enabled ? Metrics.make(yield* Effect.context<never>()) : undefined
  const ledger = yield* Ledger.make(options, Object.entries(input.servers), metrics)
  // Each listing of a server's resources, templates or prompts: its status line may change (`touch`), and
  // `catalogChanges` says so.
  const listed = yield* PubSub.sliding<string>(64)
  const catalog = Catalog.make((name) => {
    ledger.touch(name)
    PubSub.publishUnsafe(listed, name)
  })
  const supervisor = yield* Supervisor.make({ ledger, options, scope: connections, spawner, http, catalog, auth })
  yield* Effect.forEach(ledger.names(), supervisor.start, { concurrency: "unbounded", discard: true })
  yield* Effect.addFinalizer(() => Effect.andThen(supervisor.drain("graceful"), ledger.flush))

  const lookup = (name: string): Effect.Effect<ServerRecord, UnknownServer> =>
    Effect.suspend(() => {
      const record = ledger.get(name)
      return record === undefined
        ? Effect.fail(new UnknownServer({ server: name, known: ledger.names() }))
        : Effect.succeed(record)
    })
  /** Whether `conn` is the current process of a `ready` server: only those count in the aggregates. */
  const readyConn = (name: string, conn: unknown) => {
    const record = ledger.get(name)
    return record !== undefined && record.conn === conn && ServerState.countsTools(ServerState.kindOf(record.state))
  }
  /** The connection of a `ready` server, for the catalog's counts. */
  const readyConnOf = (name: string) => {
    const record = ledger.get(name)
    return record !== undefined && ServerState.countsTools(ServerState.kindOf(record.state)) ? record.conn : undefined
  }
  const annotated = () => catalog.annotate(ledger.health(), readyConnOf)
  /**
   * One known server's health, as `annotated()` has it, from its own record only: `client` asks for it on every
   * call, and the whole fleet's health per call grew with the fleet (BENCHMARKS.md, issue 29).
   */
  const healthOf = (name: string) => {
    const found = ledger.get(name)!
    // As `ledger.health()` does: a process found dead goes offline first.
    if (found.conn !== undefined && ServerState.isLive(found.state) && !found.conn.client.isAlive()) {
      ledger.exited(name, found.conn)
    }
    return catalog.annotate([ledger.healthOf(ledger.get(name)!)], readyConnOf)[0]!
  }

  /** The live client of `server`, or why there is none (as `call` says it). */
  const liveClient = (server: string) =>
    Effect.flatMap(lookup(server), (record) => {
      const conn = record.conn
      if (conn === undefined || !ServerState.isLive(record.state)) {
        return Effect.fail(unavailable(ledger.healthOf(record)))
      }
      if (!conn.client.isAlive()) {
        ledger.exited(server, conn)
        return Effect.fail(unavailable(healthOf(server)))
      }
      return Effect.succeed(conn)
    })
  const onClient = <A, E extends { readonly _tag: string }>(
    server: string,
    use: (client: McpClient.McpClient) => Effect.Effect<A, E>
  ) =>
    Effect.flatMap(liveClient(server), (conn) =>
      use(conn.client).pipe(
        Effect.tapError((error) => Effect.sync(() => isExit(error) && ledger.exited(server, conn)))
      ))

  /**
   * One read of the ledger and of the client's flags (no lock), then the client's call. A plain chain, not an
   * `Effect.fn`: that captures a stack trace and opens a span on every call, which cost as much client CPU as the
   * transport's own call (BENCHMARKS.md, "Issue 19, fleets (h14)").
   */
  const callOn = (
    server: string,
    tool: string,
    args: Readonly<Record<string, unknown>> | undefined,
    callOptions: Features.FeatureOptions | undefined
  ): Effect.Effect<Protocol.CallToolResult, UnknownServer | ServerUnavailable | McpError.CallToolError> =>
    Effect.flatMap(
      liveClient(server),
      (conn) =>
        Effect.tapError(conn.client.callTool(tool, args, callOptions), (error) =>
          Effect.sync(() => {
            if (isExit(error)) ledger.exited(server, conn)
            Connection.onCallFailed(ledger, options, server, conn, error)
          }))
    )
  // The span and its attributes only with telemetry on, as the transport's own request span.
  const callUntyped: typeof callOn = telemetry.enabled
    ? (server, tool, args, callOptions) =>
      callOn(server, tool, args, callOptions).pipe(
        Effect.withSpan("McpManager.call", {
          attributes: { "mcp.method.name": "tools/call", "mcp.server.name": server, "gen_ai.tool.name": tool }
        })
      )
    : callOn

  function call<S extends Schema.Constraint>(
    server: string,
    tool: string,
    args: Readonly<Record<string, unknown>> | undefined,
    options: TypedCall.TypedCallOptions<S>
  ): Effect.Effect<
    TypedCall.TypedCallResult<S["Type"]>,
    UnknownServer | ServerUnavailable | McpError.CallToolError | McpError.StructuredContentInvalid,
    S["DecodingServices"]
  >
  function call(
    server: string,
    tool: string,
    args?: Readonly<Record<string, unknown>>,
    options?: McpClient.CallOptions
  ): Effect.Effect<Protocol.CallToolResult, UnknownServer | ServerUnavailable | McpError.CallToolError>
  function call(
    server: string,
    tool: string,
    args?: Readonly<Record<string, unknown>>,
    options?: McpClient.CallOptions | TypedCall.TypedCallOptions<Schema.Constraint>
  ): Effect.Effect<
    Protocol.CallToolResult,
    UnknownServer | ServerUnavailable | McpError.CallToolError | McpError.StructuredContentInvalid,
    unknown
  > {
    if (options === undefined || !("schema" in options)) return callUntyped(server, tool, args, options)
    // Only the deadline goes down: the client would decode a `schema` too.
    const untyped = options.timeout === undefined ? undefined : { timeout: options.timeout }
    return Effect.flatMap(callUntyped(server, tool, args, untyped), TypedCall.decode(server, tool, options.schema))
  }

  const waitForReady = Effect.fn("McpManager.waitForReady")(function*(name: string) {
    yield* lookup(name)
    while (true) {
      const changed = ledger.awaitChange(name)
      const record = ledger.get(name)
      const state = record?.state
      if (state === undefined || ledger.isClosed() || state._tag !== "Starting" && state._tag !== "Offline") {
        const h = record === undefined ? undefined : ledger.healthOf(record)
        if (h !== undefined && h.state === "ready") return h
        return yield* new ServerNotReady({
          server: name,
          state: h?.state ?? "removed",
          ...(h?.lastError !== undefined ? { lastError: h.lastError } : {})
        })
      }
      yield* changed
    }
  })

  const manager: McpManager["Service"] = {
    // Asked on every call through a gateway: the health record is built only to say why there is no client.
    client: (name) =>
      Effect.flatMap(lookup(name), (record) =>
        record.conn === undefined || record.state._tag === "Disabled"
          ? Effect.fail(unavailable(healthOf(name)))
          : Effect.succeed(record.conn.client)),
    health: annotated,
    serverHealth: (name) => Effect.map(lookup(name), () => healthOf(name)),
    tools: () =>
      ledger.health().flatMap((h) =>
        ServerState.countsTools(h.state) ? h.tools.map((tool) => ({ server: h.name, tool })) : []
      ),
    resources: () => catalog.collect(readyConn, (e) => e.resources).map(([server, resource]) => ({ server, resource })),
    resourceTemplates: () =>
      catalog.collect(readyConn, (e) => e.templates).map(([server, template]) => ({ server, template })),
    prompts: () => catalog.collect(readyConn, (e) => e.prompts).map(([server, prompt]) => ({ server, prompt })),
    readResource: (server, uri, callOptions) => onClient(server, (client) => client.readResource(uri, callOptions)),
    getPrompt: (server, name, args, callOptions) =>
      onClient(server, (client) => client.getPrompt(name, args, callOptions)),
    statusLines: () => renderStatusLines(annotated(), options.maxStatusLines),
    call,
    waitForReady,
    restart: Effect.fn("McpManager.restart")(function*(name: string) {
      yield* lookup(name)
      yield* supervisor.locked(supervisor.restart(name))
    }),
    relist: Effect.fn("McpManager.relist")(function*(name: string) {
      const record = yield* lookup(name)
      if (record.conn !== undefined) yield* Connection.relist(record.conn)
    }),
    add: Effect.fn("McpManager.add")(function*(name: string, config: ServerConfig) {
      yield* supervisor.locked(Effect.gen(function*() {
        if (ledger.isClosed()) return
        if (!ledger.insert(name, config)) return yield* new DuplicateServer({ server: name })
        yield* supervisor.start(name)
      }))
    }),
    remove: Effect.fn("McpManager.remove")(function*(name: string) {
      yield* lookup(name)
      yield* supervisor.locked(supervisor.remove(name))
    }),
    update: Effect.fn("McpManager.update")(function*(name: string, config: ServerConfig) {
      yield* lookup(name)
      yield* supervisor.locked(supervisor.update(name, config))
    }),
    reconcile: Effect.fn("McpManager.reconcile")(function*(servers: Readonly<Record<string, ServerConfig>>) {
      const wanted = Object.entries(servers)
      const gone = ledger.names().filter((name) => !Object.hasOwn(servers, name))
      yield* Effect.forEach(gone, (name) => supervisor.locked(supervisor.remove(name)), { discard: true })
      yield* Effect.forEach(wanted, ([name, config]) =>
        supervisor.locked(Effect.suspend(() => {
          const record = ledger.get(name)
          if (record === undefined) return ledger.insert(name, config) ? supervisor.start(name) : Effect.void
          return Supervisor.sameConfig(record.config, config) ? Effect.void : supervisor.update(name, config)
        })), { discard: true })
    }),
    forceClose: supervisor.drain("force"),
    changes: ledger.changes,
    snapshots: ledger.snapshots.pipe(Stream.map((all) => catalog.annotate(all, readyConnOf))),
    catalogChanges: Stream.fromPubSub(listed)
  }
  return manager
})

/**
 * Builds the manager as a layer. Needs the `ChildProcessSpawner` service (`NodeServices.layer` in an app). With
 * the optional `ProcessTree` service (`NodeProcessTree.layer` from `@mcp-fleet/transport`), closing a server also
 * ends its descendants that left its process group (`setsid`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: ManagerOptions
): Layer.Layer<McpManager, never, ChildProcessSpawner.ChildProcessSpawner> => Layer.effect(McpManager, make(options))
