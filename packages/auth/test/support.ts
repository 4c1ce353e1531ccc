/**
 * Test support: the fake authorization server as a scoped resource, the McpAuth stack over real undici, and
 * a tiny "transport" that does what the HTTP transport will: add the headers, and on 401/403 ask McpAuth and
 * retry once.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { type AuthServer, type AuthServerOptions, startAuthServer } from "@mcp-fleet/fake-server/auth-server"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { AuthorizationPrompt, McpAuth, TokenStore } from "../src/index.ts"

export const REDIRECT_URI = "http://127.0.0.1:8976/callback"

/** The fake authorization server, closed (every connection too) when the scope closes. */
export const authServer = (options: AuthServerOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startAuthServer(options)),
    (server) => Effect.promise(() => server.close())
  )

/** McpAuth over real undici with the headless prompt and an in-memory store. */
export const authLayer = (options: Partial<McpAuth.Options> = {}) =>
  McpAuth.layer({ clientName: "mcp-fleet tests", redirectUri: REDIRECT_URI, ...options }).pipe(
    Layer.provideMerge(Layer.mergeAll(AuthorizationPrompt.layerHeadless, TokenStore.layerMemory)),
    Layer.provideMerge(NodeHttpClient.layerUndici)
  )

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
