/**
 * What an HTTP transport needs from OAuth: the Authorization header for a server, and what to do when the
 * server answers 401 or 403. On a 401 it refreshes (if it can) or runs the whole flow: Protected Resource
 * Metadata, authorization-server metadata, registration, PKCE authorization through the host's
 * {@link AuthorizationPrompt}, token exchange. On a 403 `insufficient_scope` it steps up with the union of
 * scopes, a bounded number of times. The caller retries its request once after a successful `onChallenge`.
 *
 * The interactive authorization is one strategy; a machine grant (`Options.grant`: `ClientCredentials`,
 * `JwtBearer`, `EnterpriseManaged`) takes its place for clients with no user, and renews its tokens unattended.
 * Either may bind its tokens to a DPoP key (RFC 9449, `Options.dpop`): the request then carries
 * `Authorization: DPoP <token>` and a fresh `DPoP` proof, and a server's `use_dpop_nonce` is answered once per nonce.
 *
 * - A server that is plain HTTP off the loopback interface is never sent a token, and is not authorized for
 *   ({@link CleartextRefused}).
 * - Every URL the server hands out is judged by the {@link UrlPolicy} before anything is sent to it.
 * - With a prompt that is unavailable (an unattended host), the flow stops after discovery: no client is
 *   registered and no token is requested before the user is there to authorize.
 * - The `resource` sent is the server's canonical URI, whatever a document the server named says (RFC 9728's root
 *   document reached by the spec's fallback aside: see `ProtectedResourceMetadata.resourceParameter`).
 * - What the authorization server says is scrubbed of every secret held for the server before it is shown.
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
import {
  type AuthError,
  AuthorizationFailed,
  AuthorizationRequired,
  CleartextRefused,
  DiscoveryFailed
} from "./AuthError.ts"
import { AuthorizationPrompt, PromptFailed } from "./AuthorizationPrompt.ts"
import * as AuthorizationRequest from "./AuthorizationRequest.ts"
import * as AuthorizationServerMetadata from "./AuthorizationServerMetadata.ts"
import * as ClientRegistration from "./ClientRegistration.ts"
import * as Dpop from "./Dpop.ts"
import * as Secrets from "./internal/secrets.ts"
import { isSecure } from "./internal/secureUrl.ts"
import type * as MachineGrant from "./MachineGrant.ts"
import * as Pkce from "./Pkce.ts"
import * as ProtectedResourceMetadata from "./ProtectedResourceMetadata.ts"
import * as Scopes from "./Scopes.ts"
import * as TokenEndpoint from "./TokenEndpoint.ts"
import { type Tokens, TokenStore } from "./TokenStore.ts"
import * as UrlPolicy from "./UrlPolicy.ts"
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
  /**
   * DPoP (RFC 9449). `auto` (default): bind tokens to a key when the server's challenge uses the `DPoP` scheme and the
   * authorization server takes ES256 proofs; `always`: whenever the authorization server takes them; `never`.
   */
  readonly dpop?: "auto" | "always" | "never" | undefined
  /** A machine grant in place of the interactive authorization (no prompt, no registration; see `MachineGrant`). */
  readonly grant?: MachineGrant.MachineGrant | undefined
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
  /** The `DPoP-Nonce` header (RFC 9449 §9), when the server sent one. */
  readonly dpopNonce?: string | undefined
}

/**
 * The request the headers are for, as a DPoP proof names it: its method (default `POST`) and the URL it goes to
 * (default: the server's; another when a transport posts to an endpoint its server named, as legacy HTTP+SSE does).
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestInfo {
  readonly method?: string | undefined
  readonly url?: string | undefined
}

/**
 * What a successful response said that matters here.
 *
 * @since 0.2.0
 * @category models
 */
export interface SuccessInfo {
  /** A `DPoP-Nonce` the server handed out for the next requests. */
  readonly dpopNonce?: string | undefined
}

/**
 * The service's operations. `server` is the MCP server's URL as the transport has it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The headers to add to a request to `server`: `{ authorization }` when a token is held (`Bearer`, or `DPoP` with a
   * fresh `dpop` proof for `request`), else `{}`.
   */
  readonly headers: (
    server: string,
    request?: RequestInfo
  ) => Effect.Effect<Readonly<Record<string, Redacted.Redacted<string>>>>
  /** Handles a 401 or 403; success means "retry the request once". */
  readonly onChallenge: (server: string, challenge: Challenge) => Effect.Effect<void, AuthorizationRequired>
  /** Tells the service a request to `server` succeeded (resets the step-up count; keeps a DPoP nonce it gave). */
  readonly onSuccess: (server: string, response?: SuccessInfo) => Effect.Effect<void>
  /**
   * Every credential value this service has put on a request to `server` so far (the whole header value and the
   * token alone), for a transport to scrub server text of: a server may echo its token in an error.
   */
  readonly sent?: ((server: string) => ReadonlyArray<string>) | undefined
}

/**
 * The service key.
 *
 * @since 0.1.0
 * @category services
 */
export class McpAuth extends Context.Service<McpAuth, Service>()("@mcp-fleet/auth/McpAuth") {}

/** How many of a server's latest tokens `sent` lists (bounded memory over months of refreshes). */
const REMEMBERED = 8

interface Session {
  readonly metadata: AuthorizationServerMetadata.AuthorizationServerMetadata
  /** The `resource` asked for ({@link ProtectedResourceMetadata.resourceParameter}). */
  readonly resource: string
  readonly scopesSupported: ReadonlyArray<string> | undefined
}

/**
 * Builds the service.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options: Options
) => Effect.Effect<Service, never, HttpClient.HttpClient | TokenStore | AuthorizationPrompt> = Effect.fnUntraced(
  function*(
    options: Options
  ) {
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
    /** What `headers` handed out, per server: the last `REMEMBERED` tokens, so that one echoed late is still known. */
    const handedOut = new Map<string, ReadonlyArray<string>>()
    const remember = (key: string, token: Redacted.Redacted<string>) => {
      const value = Redacted.value(token)
      const known = handedOut.get(key) ?? []
      if (known.includes(value)) return
      handedOut.set(key, [...known, value].slice(-REMEMBERED))
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
    const dpopMode = options.dpop ?? "auto"
    /** The latest DPoP nonces: of authorization servers (token requests) and of MCP servers, apart. */
    const asNonces = yield* Dpop.makeNonces
    const rsNonces = yield* Dpop.makeNonces
    const keyring = yield* Dpop.makeKeyring
    /** A key to bind new tokens to, when DPoP is wanted here and the authorization server takes it. */
    const dpopFor = (metadata: AuthorizationServerMetadata.AuthorizationServerMetadata, dpopScheme: boolean) =>
      dpopMode !== "never" && (dpopMode === "always" || dpopScheme) && Dpop.supportedBy(metadata)
        ? Effect.map(Dpop.generate, (key) => ({ key, nonces: asNonces }))
        : Effect.succeed(undefined)
    const refreshBefore = Duration.toMillis(Duration.fromInputUnsafe(options.refreshBefore ?? "60 seconds"))

    const discover = Effect.fnUntraced(function*(server: string, resourceMetadata: string | undefined) {
      const prm = yield* ProtectedResourceMetadata.discoverFound(server, resourceMetadata).pipe(
        Effect.map(Option.some),
        Effect.catchTag("DiscoveryFailed", () => Effect.succeed(Option.none()))
      )
      const origin = new URL(server).origin
      const issuer = Option.flatMap(prm, (p) => Option.fromNullishOr(p.metadata.authorization_servers?.[0]))
      const metadata = yield* AuthorizationServerMetadata.discover(Option.getOrElse(issuer, () => origin), server)
        .pipe(
          Effect.catchTag("DiscoveryFailed", (e) =>
            // 2025-03-26 servers: no PRM, the server is its own AS; without metadata use the default endpoints.
            Option.isNone(prm) && isSecure(origin)
              ? Effect.succeed(AuthorizationServerMetadata.legacyDefaults(origin))
              : Effect.fail(e))
        )
      // The metadata's `resource` may be a parent path (accepted for discovery only): the token is asked for the
      // server's own canonical URI, never for the broader resource (but for the origin's root document, see
      // resourceParameter).
      const found = Option.getOrUndefined(prm)
      const session: Session = {
        metadata,
        resource: ProtectedResourceMetadata.resourceParameter(server, found, resourceMetadata),
        scopesSupported: found?.metadata.scopes_supported
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

    const authorize = Effect.fnUntraced(
      function*(server: string, session: Session, scope: string | undefined, dpopScheme: boolean) {
        const { metadata } = session
        const dpop = yield* dpopFor(metadata, dpopScheme)
        if (options.grant !== undefined) {
          const tokens = yield* options.grant.obtain({
            metadata,
            resource: session.resource,
            scope,
            dpop,
            timeout: options.tokenTimeout
          })
          yield* saveTokens(server, tokens)
          return yield* Effect.logInfo("Authorized").pipe(
            Effect.annotateLogs({ server: session.resource, issuer: metadata.issuer, grant: options.grant.name })
          )
        }
        yield* Pkce.requireS256(metadata)
        if (!isSecure(options.redirectUri)) {
          return yield* new AuthorizationFailed({
            issuer: metadata.issuer,
            reason: `the redirect URI ${options.redirectUri} is neither HTTPS nor on localhost`
          })
        }
        // Nobody to ask (an unattended host): stop here, before a client is registered or a token requested.
        if (prompt.unavailable !== undefined) return yield* new PromptFailed({ reason: prompt.unavailable })
        const client = yield* ClientRegistration.resolve(metadata, options)
        // SEP-2207: ask for a refresh token with offline_access only where the authorization server lists it.
        const requested = metadata.scopes_supported?.includes("offline_access") === true
          ? Scopes.union(scope, "offline_access")
          : scope
        const pkce = yield* Pkce.make
        const state = yield* Pkce.randomToken(16)
        const resource = session.resource
        const url = AuthorizationRequest.url({
          metadata,
          clientId: client.clientId,
          redirectUri: options.redirectUri,
          pkce,
          state,
          resource,
          scope: requested
        })
        const callback = yield* prompt.authorize({ url, redirectUri: options.redirectUri })
        const code = yield* AuthorizationRequest.validate(metadata, state, callback)
        const tokens = yield* TokenEndpoint.request({
          metadata,
          client,
          resource,
          grant: { _tag: "authorization_code", code, verifier: pkce.verifier, redirectUri: options.redirectUri },
          requestedScope: requested,
          timeout: options.tokenTimeout,
          dpop
        })
        yield* saveTokens(server, tokens)
        yield* Effect.logInfo("Authorized").pipe(Effect.annotateLogs({ server: resource, issuer: metadata.issuer }))
      }
    )

    const refresh = Effect.fnUntraced(
      function*(server: string, tokens: Tokens, refreshToken: Redacted.Redacted<string>) {
        const session = yield* sessionFor(server)
        if (session.metadata.issuer !== tokens.issuer) {
          return yield* new DiscoveryFailed({ what: "authorization server metadata", tried: [tokens.issuer] })
        }
        const client = options.grant !== undefined
          ? options.grant.authentication
          : yield* ClientRegistration.resolve(session.metadata, options)
        // A DPoP-bound refresh token is bound to the same key (RFC 9449 §5).
        const dpop = tokens.dpopKey === undefined
          ? undefined
          : { key: yield* keyring.load(tokens.dpopKey), nonces: asNonces }
        const next = yield* TokenEndpoint.request({
          metadata: session.metadata,
          client,
          resource: session.resource,
          grant: { _tag: "refresh_token", refreshToken },
          requestedScope: tokens.scope,
          timeout: options.tokenTimeout,
          dpop
        })
        yield* saveTokens(server, next)
      }
    )

    /** Whether tokens are due for a refresh: within `refreshBefore` of expiry, or past half their lifetime if shorter. */
    const due = (tokens: Tokens, now: number) =>
      tokens.expiresAt !== undefined &&
      now >= tokens.expiresAt - Math.min(refreshBefore, (tokens.expiresAt - tokens.obtainedAt) / 2)

    /** A machine grant needs no refresh token: it asks again, for the scope it holds, as it would after a 401. */
    const obtainAgain = Effect.fnUntraced(function*(server: string, tokens: Tokens) {
      const session = yield* sessionFor(server)
      yield* authorize(server, session, tokens.scope, tokens.tokenType === "DPoP")
    })

    /** Every secret held for `server`: its tokens, and the client secrets of its issuers. */
    const secretsOf = Effect.fnUntraced(function*(server: string) {
      const key = ProtectedResourceMetadata.canonicalResource(server)
      const held = Option.getOrUndefined(yield* store.getTokens(key))
      const known = (yield* Ref.get(sessions)).get(key)?.metadata.issuer
      const issuers = [...new Set([held?.issuer, known].filter((i): i is string => i !== undefined))]
      const clients = yield* Effect.forEach(issuers, (issuer) => store.getClient(issuer))
      return [
        ...(held === undefined
          ? []
          : [held.accessToken, ...(held.refreshToken === undefined ? [] : [held.refreshToken])]),
        ...clients.flatMap((
          c
        ) => (Option.isSome(c) && c.value.clientSecret !== undefined ? [c.value.clientSecret] : []))
      ].map(Redacted.value)
    })

    /** Refreshes (or, for a machine grant without a refresh token, asks again), or forgets the tokens when that fails
     * (the next 401 then authorizes afresh). */
    const refreshOrForget = (server: string, tokens: Tokens) =>
      tokens.refreshToken === undefined && options.grant === undefined
        ? Effect.succeed(false)
        : (tokens.refreshToken === undefined
          ? obtainAgain(server, tokens)
          : refresh(server, tokens, tokens.refreshToken)).pipe(
            Effect.as(true),
            Effect.catch((error: AuthError | PromptFailed) =>
              Effect.flatMap(
                secretsOf(server),
                (secrets) =>
                  Effect.logWarning("Token refresh failed; the tokens were dropped").pipe(
                    Effect.annotateLogs({
                      server: ProtectedResourceMetadata.canonicalResource(server),
                      reason: Secrets.scrub(error.message, secrets)
                    })
                  )
              ).pipe(
                Effect.andThen(store.removeTokens(ProtectedResourceMetadata.canonicalResource(server))),
                Effect.as(false)
              )
            )
          )

    /** The typed refusal, its reason scrubbed of every secret held for the server (the cause only when clean). */
    const required = (server: string) => (error: AuthError | PromptFailed | AuthorizationRequired) =>
      Effect.map(secretsOf(server), (secrets) => {
        const reason = Secrets.scrub(error._tag === "AuthorizationRequired" ? error.reason : error.message, secrets)
        const clean = reason === (error._tag === "AuthorizationRequired" ? error.reason : error.message)
        return new AuthorizationRequired({
          resource: ProtectedResourceMetadata.canonicalResource(server),
          reason,
          ...(clean ? { cause: error } : {})
        })
      })

    const handle = Effect.fnUntraced(function*(server: string, challenge: Challenge) {
      const key = ProtectedResourceMetadata.canonicalResource(server)
      if (!UrlPolicy.mayCarryBearer(server)) {
        return yield* new CleartextRefused({ server: key })
      }
      const dpopChallenge = Option.getOrUndefined(Dpop.challenge(challenge.wwwAuthenticate))
      const bearer = Option.getOrUndefined(WwwAuthenticate.bearer(challenge.wwwAuthenticate)) ?? dpopChallenge
      const dpopScheme = dpopChallenge !== undefined
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
        return yield* authorize(server, session, Scopes.union(granted, bearer.scope), dpopScheme)
      }
      if (
        Option.isSome(held) && bearer?.error !== "insufficient_scope" && (yield* refreshOrForget(server, held.value))
      ) {
        return
      }
      const session = yield* discover(server, bearer?.resourceMetadata)
      yield* authorize(server, session, Scopes.select(bearer?.scope, session.scopesSupported), dpopScheme)
    }, (effect, server) => effect.pipe(Effect.catch((error) => Effect.flatMap(required(server)(error), Effect.fail))))

    /** `Authorization: DPoP` and a fresh proof for a DPoP-bound token; a key that cannot sign drops the tokens. */
    const dpopHeaders = Effect.fnUntraced(
      function*(server: string, tokens: Tokens, dpopKey: Redacted.Redacted<string>, request?: RequestInfo) {
        const key = yield* keyring.load(dpopKey)
        const proof = yield* Dpop.proof(key, {
          method: request?.method ?? "POST",
          url: request?.url ?? server,
          nonce: yield* rsNonces.get(server),
          accessToken: tokens.accessToken
        })
        return { authorization: Redacted.make(`DPoP ${Redacted.value(tokens.accessToken)}`), dpop: proof }
      },
      (effect, server) =>
        effect.pipe(
          Effect.catch((error) =>
            Effect.logWarning("The DPoP proof could not be made; the tokens were dropped").pipe(
              Effect.annotateLogs({ server, reason: error.message }),
              Effect.andThen(store.removeTokens(ProtectedResourceMetadata.canonicalResource(server))),
              Effect.as({})
            )
          )
        )
    )

    /** The headers of a request to `server` (refreshing tokens that are due first). */
    const headers = Effect.fnUntraced(function*(server: string, request?: RequestInfo) {
      // Never over cleartext: a plain-HTTP server off loopback gets no token, whatever the store holds.
      if (!UrlPolicy.mayCarryBearer(server)) return {}
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
      if (Option.isNone(held)) return {}
      const tokens = held.value
      remember(key, tokens.accessToken)
      return tokens.tokenType === "DPoP" && tokens.dpopKey !== undefined
        ? yield* dpopHeaders(server, tokens, tokens.dpopKey, request)
        : { authorization: Redacted.make(`Bearer ${Redacted.value(tokens.accessToken)}`) }
    }, Effect.provide(context))

    /** Answers a server's 401 or 403 `insufficient_scope`: a DPoP nonce, a refresh, a step-up or a new authorization. */
    const onChallenge = Effect.fnUntraced(function*(server: string, challenge: Challenge) {
      const key = ProtectedResourceMetadata.canonicalResource(server)
      // RFC 9449 §9: the server wants a nonce in the proof. Retry with a new one it gave; never twice with one.
      if (
        challenge.status === 401 &&
        Option.getOrUndefined(Dpop.challenge(challenge.wwwAuthenticate))?.error === "use_dpop_nonce"
      ) {
        const sent = yield* rsNonces.get(server)
        if (challenge.dpopNonce !== sent && (yield* rsNonces.remember(server, challenge.dpopNonce))) return
        return yield* new AuthorizationRequired({
          resource: key,
          reason: "the server asks for a DPoP nonce but gave no new valid one (DPoP-Nonce)."
        })
      }
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
    }, Effect.provide(context))

    return McpAuth.of({
      headers,
      onChallenge,
      sent: (server) =>
        (handedOut.get(ProtectedResourceMetadata.canonicalResource(server)) ?? []).flatMap((t) => [t, `Bearer ${t}`]),
      onSuccess: (server, response) =>
        Ref.update(stepUps, (m) => {
          const key = ProtectedResourceMetadata.canonicalResource(server)
          if (!m.has(key)) return m
          const next = new Map(m)
          next.delete(key)
          return next
        }).pipe(Effect.andThen(rsNonces.remember(server, response?.dpopNonce)), Effect.asVoid)
    })
  }
)

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
