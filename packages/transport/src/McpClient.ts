/**
 * One MCP server, over stdio or over HTTP, as a scoped Effect resource: the one client of this package.
 *
 * `make({ command })` spawns the server over stdio; `make({ url })` connects to a remote one (Streamable HTTP,
 * legacy HTTP+SSE, or auto-detection between them). Either returns the client at once; the handshake runs in a
 * background fiber owned by the client's scope (`awaitReady`, `readiness`, `readinessChanges`). For stdio, closing the scope shuts the server down gracefully (fail pending calls → end
 * stdin → grace → SIGTERM → grace → SIGKILL, to the whole process group) and joins every fiber of the
 * client before it returns.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { McpClient } from "@mcp-fleet/transport"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient.make({ command: "node", args: ["server.js"] })
 *   yield* client.awaitReady
 *   const { tools } = yield* client.listTools()
 *   return yield* client.callTool(tools[0]!.name, {})
 * }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Scope from "effect/Scope"
import * as ClientHandlers from "./ClientHandlers.ts"
import type { InvalidUrl } from "./HttpError.ts"
import * as Redactor from "./internal/Redactor.ts"
import * as Options from "./McpClientOptions.ts"
import type { McpClientOptions, RemoteOptions } from "./McpClientOptions.ts"
import type { SpawnError } from "./McpError.ts"
import * as Open from "./session/Open.ts"
import type * as Readiness_ from "./session/Readiness.ts"
import type * as Session from "./session/Session.ts"
import * as Stdio from "./wire/Stdio.ts"

/**
 * A client of one MCP server.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpClient extends Session.Session {}

/**
 * A client of a server over stdio: the process id is always known.
 *
 * @since 0.2.0
 * @category models
 */
export interface StdioClient extends McpClient {
  readonly transport: "stdio"
  readonly url: undefined
  readonly pid: number
}

/**
 * How a server's process ended.
 *
 * @since 0.1.0
 * @category models
 */
export type ExitInfo = Stdio.ExitInfo

/**
 * Per-call options.
 *
 * @since 0.1.0
 * @category models
 */
export type CallOptions = Session.CallOptions

/**
 * The tools of a server (every page), with the `instructions` it sent in `initialize`.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolList = Session.ToolList

/**
 * Counters of what the client's reader skipped or refused, and of its traffic.
 *
 * @since 0.1.0
 * @category models
 */
export type Stats = Session.Stats

/**
 * Where the client's session is (`Starting`, `Ready`, `Renewing`, `Failed`, `Closed`).
 *
 * @since 0.4.0
 * @category models
 */
export type Readiness = Readiness_.Readiness

/**
 * Spawns an MCP server and returns its client at once; the handshake continues in the background.
 *
 * Needs the `ChildProcessSpawner` service (apps provide `NodeServices.layer` from
 * `@effect/platform-node`) and a `Scope`: closing it shuts the server down, with its process group. Provide the
 * optional `ProcessTree` service too (`NodeProcessTree.layer`) and closing also ends the server's descendants that
 * left its group (`setsid`), read from the process table.
 *
 * @since 0.2.0
 * @category constructors
 */
export const stdio: (
  options: McpClientOptions
) => Effect.Effect<StdioClient, SpawnError, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> = Effect.fnUntraced(
  function*(options: McpClientOptions) {
    const opts = Options.resolve(options)
    return yield* Open.open({ ...opts, handlers: yield* ClientHandlers.fromContext(options.handlers) }, {
      // The spawn comes first, so the server starts while the session is set up.
      prepare: Stdio.spawn(opts),
      open: (receiver, handle) => Stdio.attach(handle, opts, Redactor.make(opts.secrets), receiver),
      process: (wire) => wire,
      members: (wire) => ({ transport: "stdio" as const, url: undefined, pid: wire.pid })
    })
  }
)

/**
 * Opens a session with a remote server (Streamable HTTP, legacy HTTP+SSE, or auto-detection between them) and
 * returns its client at once; the handshake continues in the background.
 *
 * Needs the `HttpClient` service (apps provide `NodeHttpClient.layerUndici` from `@effect/platform-node`) and a
 * `Scope`: closing it ends the session (`DELETE`, bounded) and aborts every exchange and stream.
 *
 * @since 0.2.0
 * @category constructors
 */
export const http: (
  options: RemoteOptions
) => Effect.Effect<McpClient, InvalidUrl, Scope.Scope | HttpClient.HttpClient> = Effect.fnUntraced(
  function*(options: RemoteOptions) {
    const opts = yield* Options.resolveRemote(options)
    // The HTTP wires (and `effect/http`, SSE parsing, `@mcp-fleet/auth` behind them) load on the first remote
    // session, not at import: a stdio-only program never loads them.
    const [Remote, Auth] = yield* Effect.promise(() =>
      Promise.all([import("./wire/Remote.ts"), import("@mcp-fleet/auth/McpAuth")])
    )
    // The OAuth tokens sent to this server are secrets too: a server may echo one in an error.
    const auth = yield* Effect.serviceOption(Auth.McpAuth)
    const sent = auth._tag === "Some" ? auth.value.sent : undefined
    const url = opts.endpoint.href
    const moreSecrets = sent === undefined ? undefined : () => sent(url)
    return yield* Open.open({ ...opts, moreSecrets, handlers: yield* ClientHandlers.fromContext(options.handlers) }, {
      prepare: Effect.void,
      open: (receiver) => Remote.make({ ...opts, url: opts.endpoint }, receiver),
      members: () => ({})
    })
  }
)

/**
 * Starts a client of one MCP server, local or remote: `{ command, … }` spawns it over stdio (needs
 * `ChildProcessSpawner`), `{ url, … }` connects over HTTP (needs `HttpClient`). Returns at once; the handshake
 * continues in the background (`awaitReady`). Closing the scope (or `close`) shuts the server or the session down.
 *
 * @since 0.1.0
 * @category constructors
 */
export function make(
  options: McpClientOptions
): Effect.Effect<StdioClient, SpawnError, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner>
export function make(options: RemoteOptions): Effect.Effect<McpClient, InvalidUrl, Scope.Scope | HttpClient.HttpClient>
export function make(
  options: McpClientOptions | RemoteOptions
): Effect.Effect<
  McpClient,
  SpawnError | InvalidUrl,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | HttpClient.HttpClient
>
export function make(
  options: McpClientOptions | RemoteOptions
): Effect.Effect<
  McpClient,
  SpawnError | InvalidUrl,
  Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | HttpClient.HttpClient
> {
  return "url" in options ? http(options) : stdio(options)
}

/**
 * A URL as it may be shown: user, password and secret-looking query values (`token`, `key`, `auth`…) replaced by
 * `***`. Accepts a `Redacted` URL (config files keep them so).
 *
 * @since 0.4.0
 * @category formatting
 */
export const redactUrl = Options.redactUrl

/**
 * The service of a single-server app: one `McpClient`, provided by `layer`.
 *
 * @since 0.2.0
 * @category services
 */
export const McpClient: Context.Service<McpClient, McpClient> = Context.Service<McpClient>(
  "@mcp-fleet/transport/McpClient"
)

/**
 * A layer that starts one client (as `make`) for the life of the layer. Like `make`, it does not wait for the
 * handshake: use `awaitReady` on the service.
 *
 * @since 0.2.0
 * @category layers
 */
export function layer(
  options: McpClientOptions
): Layer.Layer<McpClient, SpawnError, ChildProcessSpawner.ChildProcessSpawner>
export function layer(options: RemoteOptions): Layer.Layer<McpClient, InvalidUrl, HttpClient.HttpClient>
export function layer(
  options: McpClientOptions | RemoteOptions
): Layer.Layer<McpClient, SpawnError | InvalidUrl, ChildProcessSpawner.ChildProcessSpawner | HttpClient.HttpClient> {
  return Layer.effect(McpClient, make(options))
}
