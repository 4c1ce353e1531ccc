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
import { HttpStatusError } from "./HttpError.ts"
import type { InvalidUrl } from "./HttpError.ts"
import * as Redactor from "./internal/Redactor.ts"
import * as Options from "./McpClientOptions.ts"
import type { McpClientOptions, RemoteOptions } from "./McpClientOptions.ts"
import type { SpawnError } from "./McpError.ts"
import * as Open from "./session/Open.ts"
import type * as Readiness_ from "./session/Readiness.ts"
import type * as Session from "./session/Session.ts"
import type * as LegacySseModule from "./wire/LegacySse.ts"
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
    const { endpoint: url, headers, maxMessageBytes, mode, requestTimeoutMs, server } = opts
    // The HTTP wires (and `effect/http`, SSE parsing, `@mcp-fleet/auth` behind them) load on the first remote
    // session, not at import: a stdio-only program never loads them.
    const [LegacySse, StreamableHttp, AutoDetect, Auth] = yield* Effect.promise(() =>
      Promise.all([
        import("./wire/LegacySse.ts"),
        import("./wire/StreamableHttp.ts"),
        import("./wire/AutoDetect.ts"),
        import("@mcp-fleet/auth/McpAuth")
      ])
    )
    // The OAuth tokens sent to this server are secrets too: a server may echo one in an error.
    const auth = yield* Effect.serviceOption(Auth.McpAuth)
    const sent = auth._tag === "Some" ? auth.value.sent : undefined
    const moreSecrets = sent === undefined ? undefined : () => sent(url.href)
    const legacy = (
      receiver: Parameters<typeof LegacySseModule.make>[1],
      refused?: HttpStatusError,
      withinMs?: number
    ) =>
      LegacySse.make({
        server,
        url,
        headers,
        maxMessageBytes,
        // The endpoint's bound expires before the first request's own deadline, so a server that never names its
        // endpoint is reported as that (ConnectionFailed), not as a RequestTimeout of whichever request happened to
        // be queued. Opened at once (transport: "sse"), both bounds are the request timeout: a millisecond apart
        // (two equal timers raced under load). Opened by auto-detection, initialize has already spent the time of
        // its refused POST: the bound is what is left of its deadline, less a margin.
        connectTimeoutMs: endpointWaitMillis(requestTimeoutMs, withinMs),
        notifyTimeoutMs: requestTimeoutMs,
        // Auto-detection: a failed fallback reports the modern refusal first, then why the fallback failed.
        connectFailure: refused === undefined ? undefined : (method, error) =>
          new HttpStatusError({
            server,
            method,
            status: refused.status,
            ...(refused.wwwAuthenticate !== undefined ? { wwwAuthenticate: refused.wwwAuthenticate } : {}),
            ...(refused.retryAfter !== undefined ? { retryAfter: refused.retryAfter } : {}),
            detail: `${refused.detail}; the legacy HTTP+SSE fallback failed too: ${error.message}`
          })
      }, receiver)
    return yield* Open.open({ ...opts, moreSecrets, handlers: yield* ClientHandlers.fromContext(options.handlers) }, {
      prepare: Effect.void,
      open: (receiver) => {
        if (mode === "sse") return legacy(receiver)
        const http = {
          server,
          url,
          headers,
          maxMessageBytes,
          notifyTimeoutMs: requestTimeoutMs,
          closeTimeoutMs: opts.closeTimeoutMs,
          maxResumeAttempts: 5
        }
        return mode === "http" ? StreamableHttp.make(http, receiver) : AutoDetect.make({ http, legacy }, receiver)
      },
      members: () => ({})
    })
  }
)

/**
 * How long the legacy transport waits for its `endpoint` event: the request timeout less a millisecond, or, when
 * auto-detection opens it, what is left of initialize's deadline (`withinMs`) less a tenth of it (at most 100 ms), so
 * that the endpoint's bound always expires first.
 */
const endpointWaitMillis = (requestTimeoutMs: number, withinMs: number | undefined): number => {
  const own = requestTimeoutMs > 1 ? requestTimeoutMs - 1 : requestTimeoutMs
  if (withinMs === undefined || withinMs === Infinity) return own
  return Math.max(0, Math.min(own, withinMs - Math.min(100, Math.max(1, withinMs / 10))))
}

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
