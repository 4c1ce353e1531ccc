/**
 * One process of a server: spawning it into a scope of its own (registered in the ledger in the same
 * uninterruptible step, so a process is never left unowned), and the fibers that live in that scope: a
 * notification reader (list_changed → a one-slot refresh signal, so bursts coalesce), one lister (discovery,
 * then every refresh), so a client is never listed twice at once, and, for a modern-era server, the
 * `subscriptions/listen` stream those list changes arrive on (Listen.ts).
 *
 * @internal
 */
import * as McpAuth from "@mcp-fleet/auth/McpAuth"
import { ErrorKind, McpClient, McpError } from "@mcp-fleet/transport"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpClient from "effect/http/HttpClient"
import * as Option from "effect/Option"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ServerConfig } from "../ManagerOptions.ts"
import type { Catalog } from "./Catalog.ts"
import * as Discovery from "./Discovery.ts"
import type { Ledger } from "./Ledger.ts"
import * as Listen from "./Listen.ts"
import type { Resolved } from "./Options.ts"
import type { Conn, ServerRecord } from "./Record.ts"

/** What a spawn came to. */
export type Spawn =
  | { readonly _tag: "Spawned"; readonly conn: Conn }
  | { readonly _tag: "Failed"; readonly message: string }
  /** The process started, but the ledger refused it (the server was removed or the fleet is closing); it was closed. */
  | { readonly _tag: "Refused" }

/** Everything a connection needs from its surroundings. */
export interface Env {
  readonly ledger: Ledger
  readonly options: Resolved
  readonly scope: Scope.Scope
  readonly spawner: Context.Context<ChildProcessSpawner.ChildProcessSpawner>
  /** The app's HTTP client, if it provided one: remote servers need it. */
  readonly http: Option.Option<HttpClient.HttpClient>
  /** Resources, templates and prompts of each connection. */
  readonly catalog: Catalog
  /** The app's OAuth service, if it provided one: remote servers that answer 401 use it. */
  readonly auth: Option.Option<McpAuth.McpAuth["Service"]>
}

/** Why a remote server cannot start: the app gave the manager no `HttpClient`. */
const noHttpClient = (name: string) =>
  new McpError.ProtocolError({
    server: name,
    method: "initialize",
    detail: "it is a remote server and the manager was given no HttpClient (provide NodeHttpClient.layerUndici)"
  })

/** Starts the client of `config`: a process for a `command`, a session for a `url`. */
const start = (
  env: Env,
  name: string,
  config: ServerConfig
): Effect.Effect<McpClient.McpClient, McpError.McpError, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> => {
  if (config.url === undefined) {
    return McpClient.stdio({
      ...config.client,
      handlers: { ...env.options.handlers, ...config.client?.handlers },
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: config.cwd,
      inheritEnv: config.inheritEnv,
      requestTimeout: config.requestTimeout,
      name
    })
  }
  if (Option.isNone(env.http)) return Effect.fail(noHttpClient(name))
  return McpClient.http({
    ...config.client,
    handlers: { ...env.options.handlers, ...config.client?.handlers },
    url: Redacted.isRedacted(config.url) ? Redacted.value(config.url) : config.url,
    headers: config.headers,
    transport: config.transport,
    requestTimeout: config.requestTimeout,
    name
  }).pipe(
    Effect.provideService(HttpClient.HttpClient, env.http.value),
    Option.isSome(env.auth) ? Effect.provideService(McpAuth.McpAuth, env.auth.value) : (effect) => effect
  )
}

/**
 * Starts `config` as `name` in a child scope of the manager's, and hands the new connection to `register`
 * (ledger transitions; it returns `undefined` to refuse it). Uninterruptible: spawning is quick.
 */
export const spawn = Effect.fnUntraced(function*(
  env: Env,
  name: string,
  config: ServerConfig,
  register: (conn: Conn) => ServerRecord | undefined
): Effect.fn.Return<Spawn> {
  const scope = yield* Scope.fork(env.scope, "sequential")
  const made = yield* start(env, name, config).pipe(
    Scope.provide(scope),
    Effect.provideContext(env.spawner),
    Effect.result
  )
  if (made._tag === "Failure") {
    yield* Scope.close(scope, Exit.void)
    return { _tag: "Failed", message: made.failure.message } satisfies Spawn
  }
  const conn: Conn = { client: made.success, scope }
  if (register(conn) === undefined) {
    yield* Scope.close(scope, Exit.void)
    return { _tag: "Refused" } satisfies Spawn
  }
  return { _tag: "Spawned", conn } satisfies Spawn
}, Effect.uninterruptible)

/** Applies a discovery outcome to the ledger if `conn` is still the server's process. */
export const apply = (env: Env, name: string, conn: Conn, outcome: Discovery.Outcome): void => {
  if (!env.ledger.isCurrent(name, conn)) return
  if (outcome._tag === "Listed" || outcome._tag === "ListFailed" || outcome._tag === "InitializeFailed") {
    env.ledger.transition(name, outcome)
  }
  if (outcome._tag === "AuthorizationRequired") needsAuthorization(env, name, outcome.reason)
}

/** Moves the server to `unauthorized`: it waits for the user, and nothing is retried until a restart. */
export const needsAuthorization = (env: Pick<Env, "ledger" | "options">, name: string, reason: string): void => {
  env.ledger.transition(name, { _tag: "AuthorizationRequired", reason, advice: env.options.authorizationAdvice(name) })
}

/**
 * A call failed: when it failed because the server wants the user to authorize (a refresh refused mid-session,
 * with nobody to ask), the server goes `unauthorized` so that the next call fails fast and says so.
 */
export const onCallFailed = (
  ledger: Ledger,
  options: Resolved,
  name: string,
  conn: Conn,
  error: ErrorKind.Classified
): void => {
  const reason = ErrorKind.userAction(error)
  if (reason !== undefined && ledger.isCurrent(name, conn)) needsAuthorization({ ledger, options }, name, reason)
}

/** What lists each connection's tools again, as its `tools/list_changed` would (set by `serve`). */
const relisters = new WeakMap<Conn, Effect.Effect<void>>()

/** Lists `conn`'s tools again, as a `tools/list_changed` from it would; nothing before it is served. */
export const relist = (conn: Conn): Effect.Effect<void> => relisters.get(conn) ?? Effect.void

/**
 * Forks the connection's reader and lister into its scope. With `discoverFirst` the lister runs discovery
 * first (a first start or a restart); a reconnected connection has been discovered by its supervisor already.
 */
export const serve = Effect.fnUntraced(function*(env: Env, name: string, conn: Conn, discoverFirst: boolean) {
  const { client } = conn
  yield* env.catalog.watch(name, conn, env.options.startupTimeoutMs, env.options.serverLogLevel)
  const refresh = yield* Queue.sliding<void>(1)
  const changed = Effect.andThen(
    Queue.offer(refresh, undefined),
    Effect.sync(() => env.ledger.isCurrent(name, conn) && env.ledger.transition(name, { _tag: "ListChangedSeen" }))
  )
  relisters.set(conn, changed)
  // Notifications are read on their own fiber, never on the transport's reader.
  yield* client.notifications.pipe(
    Stream.filter((n) => n.method === "notifications/tools/list_changed"),
    Stream.runForEach(() => changed),
    Effect.forkIn(conn.scope)
  )
  yield* Listen.keep(
    name,
    client,
    env.options.reconnect,
    env.options.startupTimeoutMs,
    () => client.isAlive() && env.ledger.isCurrent(name, conn),
    changed
  ).pipe(Effect.forkIn(conn.scope))
  yield* Effect.gen(function*() {
    if (discoverFirst) {
      const outcome = yield* Discovery.discover(
        client,
        env.options,
        true,
        (note) =>
          Effect.sync(() =>
            env.ledger.isCurrent(name, conn) && env.ledger.transition(name, { _tag: "InitializeSlow", note })
          )
      )
      if (outcome._tag === "Gone") return
      apply(env, name, conn, outcome)
    }
    while (true) {
      yield* Queue.take(refresh)
      if (!client.isAlive() || !env.ledger.isCurrent(name, conn)) return
      apply(env, name, conn, yield* Discovery.list(client, env.options.startupTimeoutMs))
    }
  }).pipe(Effect.forkIn(conn.scope))
})
