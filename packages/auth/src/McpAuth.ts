/**
 * What an HTTP transport needs from OAuth: the Authorization header for a server, and what to do when the
 * server answers 401 or 403. On a 401 it refreshes (if it can) or runs the whole flow: Protected Resource
 * Metadata, authorization-server metadata, registration, PKCE authorization through the host's
 * {@link AuthorizationPrompt}, token exchange. On a 403 `insufficient_scope` it steps up with the union of
 * scopes, a bounded number of times. The caller retries its request once after a successful `onChallenge`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import { type AuthError, AuthorizationFailed, AuthorizationRequired, DiscoveryFailed } from "./AuthError.ts"
import { AuthorizationPrompt, type PromptFailed } from "./AuthorizationPrompt.ts"
import * as AuthorizationRequest from "./AuthorizationRequest.ts"
import * as AuthorizationServerMetadata from "./AuthorizationServerMetadata.ts"
import * as ClientRegistration from "./ClientRegistration.ts"
import { isSecure } from "./internal/secureUrl.ts"
import * as Pkce from "./Pkce.ts"
import * as ProtectedResourceMetadata from "./ProtectedResourceMetadata.ts"
import * as Scopes from "./Scopes.ts"
import * as TokenEndpoint from "./TokenEndpoint.ts"
import { type Tokens, TokenStore } from "./TokenStore.ts"
import * as WwwAuthenticate from "./WwwAuthenticate.ts"

/**
 * The options of {@link make}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ClientRegistration.ClientOptions {
  /** Deadline of each token request; default 30 seconds. */
  readonly tokenTimeout?: Duration.Input | undefined
  /** Refresh when the access token expires within this (at most half its lifetime); default 60 seconds. */
  readonly refreshBefore?: Duration.Input | undefined
  /** Step-ups allowed for one server before a success resets the count; default 3. */
  readonly maxStepUps?: number | undefined
}

/**
 * What the transport saw: the status and the `WWW-Authenticate` header.
 *
 * @since 0.1.0
 * @category models
 */
export interface Challenge {
  readonly status: number
  readonly wwwAuthenticate: string | undefined
}

/**
 * The service's operations. `server` is the MCP server's URL as the transport has it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The headers to add to every request to `server`: `{ authorization }` when a token is held, else `{}`. */
  readonly headers: (server: string) => Effect.Effect<Readonly<Record<string, Redacted.Redacted<string>>>>
  /** Handles a 401 or 403; success means "retry the request once". */
  readonly onChallenge: (server: string, challenge: Challenge) => Effect.Effect<void, AuthorizationRequired>
  /** Tells the service a request to `server` succeeded (resets the step-up count). */
  readonly onSuccess: (server: string) => Effect.Effect<void>
}

/**
 * The service key.
 *
 * @since 0.1.0
 * @category services
 */
export class McpAuth extends Context.Service<McpAuth, Service>()("@mcp-fleet/auth/McpAuth") {}

interface Session {
  readonly metadata: AuthorizationServerMetadata.AuthorizationServerMetadata
  readonly resourceParam: string
  readonly scopesSupported: ReadonlyArray<string> | undefined
}

/**
 * Builds the service.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<Service, never, HttpClient.HttpClient | TokenStore | AuthorizationPrompt> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<HttpClient.HttpClient | TokenStore | AuthorizationPrompt>()
    const store = yield* TokenStore
    const prompt = yield* AuthorizationPrompt
    const sessions = yield* Ref.make(new Map<string, Session>())
    const stepUps = yield* Ref.make(new Map<string, number>())
    const mutex = yield* Semaphore.make(1)
    /** Bumped whenever new tokens are stored for a server: a challenge that waited on the mutex while another
     * fiber got tokens needs no flow of its own, only the retry. */
    const generations = yield* Ref.make(new Map<string, number>())
    const generation = (key: string) => Ref.get(generations).pipe(Effect.map((m) => m.get(key) ?? 0))
    const saveTokens = (server: string, tokens: Tokens) => {
      const key = ProtectedResourceMetadata.canonicalResource(server)
      return store.setTokens(key, tokens).pipe(
        Effect.andThen(Ref.update(generations, (m) => new Map(m).set(key, (m.get(key) ?? 0) + 1)))
      )
    }
    /** This process's mutex, then the store's lock across processes for the server when it has one. */
    const exclusive = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) =>
      mutex.withPermit(store.exclusive === undefined ? effect : store.exclusive(key, effect))
    /** Whether the store holds other tokens for the server than `before` (another process refreshed meanwhile). */
    const replacedSince = (key: string, before: Option.Option<Tokens>) =>
      Effect.map(store.getTokens(key), (now) =>
        Option.isSome(now) &&
        (Option.isNone(before) || Redacted.value(now.value.accessToken) !== Redacted.value(before.value.accessToken)))
    const maxStepUps = options.maxStepUps ?? 3
    const refreshBefore = Duration.toMillis(Duration.fromInputUnsafe(options.refreshBefore ?? "60 seconds"))

    const discover = (server: string, resourceMetadata: string | undefined) =>
      Effect.gen(function*() {
        const prm = yield* ProtectedResourceMetadata.discover(server, resourceMetadata).pipe(
          Effect.map(Option.some),
          Effect.catchTag("DiscoveryFailed", () => Effect.succeed(Option.none()))
        )
        const origin = new URL(server).origin
        const issuer = Option.flatMap(prm, (p) => Option.fromNullishOr(p.authorization_servers?.[0]))
        const metadata = yield* AuthorizationServerMetadata.discover(Option.getOrElse(issuer, () => origin)).pipe(
          Effect.catchTag("DiscoveryFailed", (e) =>
            // 2025-03-26 servers: no PRM, the server is its own AS; without metadata use the default endpoints.
            Option.isNone(prm) && isSecure(origin)
              ? Effect.succeed(AuthorizationServerMetadata.legacyDefaults(origin))
              : Effect.fail(e))
        )
        const session: Session = {
          metadata,
          resourceParam: Option.match(prm, {
            onNone: () => ProtectedResourceMetadata.canonicalResource(server),
            onSome: (p) => p.resource
          }),
          scopesSupported: Option.getOrUndefined(prm)?.scopes_supported
        }
        yield* Ref.update(sessions, (m) => new Map(m).set(ProtectedResourceMetadata.canonicalResource(server), session))
        return session
      })

    const sessionFor = (server: string) =>
      Ref.get(sessions).pipe(
        Effect.flatMap((m) => {
          const known = m.get(ProtectedResourceMetadata.canonicalResource(server))
          return known === undefined ? discover(server, undefined) : Effect.succeed(known)
        })
      )

    const authorize = (server: string, session: Session, scope: string | undefined) =>
      Effect.gen(function*() {
        const { metadata } = session
        yield* Pkce.requireS256(metadata)
        if (!isSecure(options.redirectUri)) {
          return yield* new AuthorizationFailed({
            issuer: metadata.issuer,
            reason: `the redirect URI ${options.redirectUri} is neither HTTPS nor on localhost`
          })
        }
        const client = yield* ClientRegistration.resolve(metadata, options)
        // SEP-2207: ask for a refresh token with offline_access only where the authorization server lists it.
        const requested = metadata.scopes_supported?.includes("offline_access") === true
          ? Scopes.union(scope, "offline_access")
          : scope
        const pkce = yield* Pkce.make
        const state = yield* Pkce.randomToken(16)
        const url = AuthorizationRequest.url({
          metadata,
          clientId: client.clientId,
          redirectUri: options.redirectUri,
          pkce,
          state,
          resource: session.resourceParam,
          scope: requested
        })
        const callback = yield* prompt.authorize({ url, redirectUri: options.redirectUri })
        const code = yield* AuthorizationRequest.validate(metadata, state, callback)
        const tokens = yield* TokenEndpoint.request({
          metadata,
          client,
          resource: session.resourceParam,
          grant: { _tag: "authorization_code", code, verifier: pkce.verifier, redirectUri: options.redirectUri },
          requestedScope: requested,
          timeout: options.tokenTimeout
        })
        yield* saveTokens(server, tokens)
        yield* Effect.logInfo("Authorized").pipe(
          Effect.annotateLogs({ server: session.resourceParam, issuer: metadata.issuer })
        )
      })

    const refresh = (server: string, tokens: Tokens, refreshToken: Redacted.Redacted<string>) =>
      Effect.gen(function*() {
        const session = yield* sessionFor(server)
        if (session.metadata.issuer !== tokens.issuer) {
          return yield* new DiscoveryFailed({ what: "authorization server metadata", tried: [tokens.issuer] })
        }
        const client = yield* ClientRegistration.resolve(session.metadata, options)
        const next = yield* TokenEndpoint.request({
          metadata: session.metadata,
          client,
          resource: session.resourceParam,
          grant: { _tag: "refresh_token", refreshToken },
          requestedScope: tokens.scope,
          timeout: options.tokenTimeout
        })
        yield* saveTokens(server, next)
      })

    /** Whether tokens are due for a refresh: within `refreshBefore` of expiry, or past half their lifetime if shorter. */
    const due = (tokens: Tokens, now: number) =>
      tokens.expiresAt !== undefined &&
      now >= tokens.expiresAt - Math.min(refreshBefore, (tokens.expiresAt - tokens.obtainedAt) / 2)

    /** Refreshes, or forgets the tokens when the refresh fails (the next 401 then authorizes afresh). */
    const refreshOrForget = (server: string, tokens: Tokens) =>
      tokens.refreshToken === undefined
        ? Effect.succeed(false)
        : refresh(server, tokens, tokens.refreshToken).pipe(
          Effect.as(true),
          Effect.catch((error: AuthError) =>
            Effect.logWarning("Token refresh failed; the tokens were dropped").pipe(
              Effect.annotateLogs({ server, reason: error.message }),
              Effect.andThen(store.removeTokens(ProtectedResourceMetadata.canonicalResource(server))),
              Effect.as(false)
            )
          )
        )

    const required = (server: string) => (error: AuthError | PromptFailed | AuthorizationRequired) =>
      error._tag === "AuthorizationRequired"
        ? error
        : new AuthorizationRequired({
          resource: ProtectedResourceMetadata.canonicalResource(server),
          reason: error.message,
          cause: error
        })

    const handle = (server: string, challenge: Challenge) =>
      Effect.gen(function*() {
        const key = ProtectedResourceMetadata.canonicalResource(server)
        const bearer = Option.getOrUndefined(WwwAuthenticate.bearer(challenge.wwwAuthenticate))
        const held = yield* store.getTokens(key)
        if (challenge.status === 403) {
          if (bearer?.error !== "insufficient_scope") {
            return yield* new AuthorizationRequired({ resource: key, reason: "the server refused access (HTTP 403)." })
          }
          const count = (yield* Ref.get(stepUps)).get(key) ?? 0
          if (count >= maxStepUps) {
            return yield* new AuthorizationRequired({
              resource: key,
              reason: `the server still answers insufficient_scope after ${count} step-ups.`
            })
          }
          yield* Ref.update(stepUps, (m) => new Map(m).set(key, count + 1))
          const session = yield* discover(server, bearer.resourceMetadata)
          const granted = Option.getOrUndefined(held)?.scope
          return yield* authorize(server, session, Scopes.union(granted, bearer.scope))
        }
        if (
          Option.isSome(held) && bearer?.error !== "insufficient_scope" && (yield* refreshOrForget(server, held.value))
        ) {
          return
        }
        const session = yield* discover(server, bearer?.resourceMetadata)
        yield* authorize(server, session, Scopes.select(bearer?.scope, session.scopesSupported))
      }).pipe(Effect.mapError(required(server)))

    return McpAuth.of({
      headers: (server) =>
        Effect.gen(function*() {
          const key = ProtectedResourceMetadata.canonicalResource(server)
          let held = yield* store.getTokens(key)
          const now = yield* Clock.currentTimeMillis
          if (Option.isSome(held) && due(held.value, now)) {
            yield* exclusive(
              key,
              Effect.gen(function*() {
                // Another fiber may have refreshed while this one waited.
                const current = yield* store.getTokens(key)
                if (Option.isSome(current) && due(current.value, now)) {
                  yield* refreshOrForget(server, current.value)
                }
              })
            )
            held = yield* store.getTokens(key)
          }
          return Option.match(held, {
            onNone: () => ({}),
            onSome: (t) => ({ authorization: Redacted.make(`Bearer ${Redacted.value(t.accessToken)}`) })
          })
        }).pipe(Effect.provide(context)),
      onChallenge: (server, challenge) =>
        Effect.gen(function*() {
          const key = ProtectedResourceMetadata.canonicalResource(server)
          const seen = yield* generation(key)
          const before = yield* store.getTokens(key)
          yield* exclusive(
            key,
            Effect.gen(function*() {
              // Tokens arrived while this challenge waited (concurrent 401s, here or in another process sharing the
              // store, or a concurrent step-up that already covers the challenged scope): retry with them instead.
              if ((yield* generation(key)) !== seen || (yield* replacedSince(key, before))) {
                if (challenge.status === 401) return
                const scope = Option.getOrUndefined(WwwAuthenticate.bearer(challenge.wwwAuthenticate))?.scope
                const held = yield* store.getTokens(key)
                if (Option.isSome(held) && Scopes.covers(held.value.scope, scope)) return
              }
              yield* handle(server, challenge)
            })
          )
        }).pipe(Effect.provide(context)),
      onSuccess: (server) =>
        Ref.update(stepUps, (m) => {
          const key = ProtectedResourceMetadata.canonicalResource(server)
          if (!m.has(key)) return m
          const next = new Map(m)
          next.delete(key)
          return next
        })
    })
  })

/**
 * The service as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<McpAuth, never, HttpClient.HttpClient | TokenStore | AuthorizationPrompt> =>
  Layer.effect(McpAuth, make(options))
