/**
 * Test support: the fake authorization server as a scoped resource, the McpAuth stack over real undici, and
 * a tiny "transport" that does what the HTTP transport will: add the headers, and on 401/403 ask McpAuth and
 * retry once.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { type AuthServer, type AuthServerOptions, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { createServer, type IncomingMessage } from "node:http"
import { AuthorizationPrompt, McpAuth, TokenStore } from "../src/index.ts"

export const REDIRECT_URI = "http://127.0.0.1:8976/callback"

/** The fake authorization server, closed (every connection too) when the scope closes. */
export const authServer = (options: AuthServerOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startAuthServer(options)),
    (server) => Effect.promise(() => server.close())
  )

/** McpAuth over real undici with the headless prompt and an in-memory store. */
export const authLayer = (options: Partial<McpAuth.Options> = {}) => authLayerWith(NodeHttpClient.layerUndici, options)

/** McpAuth over `http` with the headless prompt (or `prompt`) and an in-memory store (or `store`). */
export const authLayerWith = (
  http: Layer.Layer<HttpClient.HttpClient>,
  options: Partial<McpAuth.Options> = {},
  prompt: Layer.Layer<AuthorizationPrompt.AuthorizationPrompt, never, HttpClient.HttpClient> =
    AuthorizationPrompt.layerHeadless,
  store: Layer.Layer<TokenStore.TokenStore> = TokenStore.layerMemory
) =>
  McpAuth.layer({ clientName: "mcp-fleet tests", redirectUri: REDIRECT_URI, ...options }).pipe(
    Layer.provideMerge(Layer.mergeAll(prompt, store)),
    Layer.provideMerge(http)
  )

/**
 * Real undici, except that requests to the virtual origins of `hosts` (e.g. `https://mcp.example`) go to the real
 * origin each maps to (a fake on 127.0.0.1): the client under test sees, judges and keys by the virtual URLs, so a
 * server "off loopback" can be played on loopback. Any other URL (127.0.0.1 …) is sent as it is.
 */
export const virtualHosts = (hosts: Readonly<Record<string, string>>): Layer.Layer<HttpClient.HttpClient> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      HttpClient.mapRequest(client, (request) => {
        const url = new URL(request.url)
        const target = hosts[url.origin]
        return target === undefined
          ? request
          : HttpClientRequest.setUrl(request, `${target}${url.pathname}${url.search}`)
      }))
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))

/** What a hostile local service (another port on 127.0.0.1) received. */
export interface Hostile {
  readonly origin: string
  readonly received: Array<{ readonly method: string; readonly url: string; readonly authorization?: string }>
}

/**
 * A local service an attacker would like the client to reach (an admin API on another port of 127.0.0.1): it
 * records every request and answers `status` with `body` (default 200 `{}`). Closed with the scope.
 */
export const hostileServiceAnswering = (status: number, body: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly hostile: Hostile; readonly close: () => Promise<void> }>((resume) => {
      const received: Hostile["received"] = []
      const server = createServer((req: IncomingMessage, res) => {
        received.push({
          method: req.method ?? "GET",
          url: req.url ?? "/",
          ...(typeof req.headers.authorization === "string" ? { authorization: req.headers.authorization } : {})
        })
        req.resume()
        res.writeHead(status, { "content-type": "application/json" }).end(body)
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({
          hostile: { origin: `http://127.0.0.1:${port}`, received },
          close: () =>
            new Promise<void>((done) => {
              server.closeAllConnections()
              server.close(() => done())
            })
        }))
      })
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ hostile }) => hostile))

/** {@link hostileServiceAnswering} 200 `{}`. */
export const hostileService = hostileServiceAnswering(200, "{}")

const post = (url: string, headers: Readonly<Record<string, Redacted.Redacted<string>>>) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.post(url)
    for (const [name, value] of Object.entries(headers)) {
      request = HttpClientRequest.setHeader(request, name, Redacted.value(value))
    }
    const response = yield* client.execute(request)
    return { status: response.status, wwwAuthenticate: response.headers["www-authenticate"] }
  }).pipe(Effect.scoped, Effect.orDie)

/**
 * One request to the protected endpoint, as the transport will make it: on 401/403 ask McpAuth and retry, at
 * most twice (a 401 then a 403 step-up).
 */
export const call = (url: string) =>
  Effect.gen(function*() {
    const auth = yield* McpAuth.McpAuth
    let reply = yield* post(url, yield* auth.headers(url))
    for (let retry = 0; retry < 2 && (reply.status === 401 || reply.status === 403); retry++) {
      yield* auth.onChallenge(url, reply)
      reply = yield* post(url, yield* auth.headers(url))
    }
    if (reply.status < 400) yield* auth.onSuccess(url)
    return reply.status
  })

export const paths = (server: AuthServer) => server.requests.map((r) => `${r.method} ${r.path}`)

/** Every value the server handed out or received that must stay secret. */
export const secretsSeen = (server: AuthServer): ReadonlyArray<string> =>
  server.requests.flatMap((
    r
  ) => [r.form["code"], r.form["code_verifier"], r.form["client_secret"], r.form["refresh_token"]])
    .filter((s): s is string => s !== undefined)
