/**
 * Where tokens and client registrations live: tokens keyed by the MCP server's canonical URI, client
 * credentials keyed by the authorization server's issuer (never reused for another issuer). In memory by
 * default; a host may provide a persistent store.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"

/**
 * How a client authenticates at the token endpoint.
 *
 * @since 0.1.0
 * @category models
 */
export type TokenEndpointAuthMethod = "client_secret_basic" | "client_secret_post" | "none"

/**
 * A client registration at one authorization server.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientCredentials {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string> | undefined
  readonly authMethod: TokenEndpointAuthMethod
  readonly source: "pre-registered" | "metadata-document" | "dynamic"
}

/**
 * The tokens held for one MCP server. `expiresAt` is epoch milliseconds by the effect `Clock`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tokens {
  readonly issuer: string
  readonly accessToken: Redacted.Redacted<string>
  readonly refreshToken: Redacted.Redacted<string> | undefined
  readonly expiresAt: number | undefined
  /** When the tokens were obtained (epoch milliseconds). */
  readonly obtainedAt: number
  readonly scope: string | undefined
  /** `DPoP` when the access token is bound to a proof key (RFC 9449); absent for a Bearer token. */
  readonly tokenType?: "DPoP" | undefined
  /** The proof key a DPoP-bound token needs (its private JWK, see `Dpop.serialize`), kept with the tokens. */
  readonly dpopKey?: Redacted.Redacted<string> | undefined
}

/**
 * The store's operations.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly getTokens: (resource: string) => Effect.Effect<Option.Option<Tokens>>
  readonly setTokens: (resource: string, tokens: Tokens) => Effect.Effect<void>
  readonly removeTokens: (resource: string) => Effect.Effect<void>
  readonly getClient: (issuer: string) => Effect.Effect<Option.Option<ClientCredentials>>
  readonly setClient: (issuer: string, client: ClientCredentials) => Effect.Effect<void>
  /**
   * Runs `effect` while no other process sharing this store runs one for `resource` (a lock across processes, such
   * as gateway replicas sharing a Redis store). `McpAuth` refreshes and re-authorizes inside it after reading the
   * store again, so that processes sharing a store make one token request per expiry. Absent: a store that one
   * process uses (`McpAuth`'s own mutex is enough).
   */
  readonly exclusive?:
    | (<A, E, R>(resource: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>)
    | undefined
}

/**
 * The token store service.
 *
 * @since 0.1.0
 * @category services
 */
export class TokenStore extends Context.Service<TokenStore, Service>()("@mcp-fleet/auth/TokenStore") {}

/**
 * A store that lives as long as the layer, holding nothing on disk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<Service> = Effect.gen(function*() {
  const tokens = yield* Ref.make(new Map<string, Tokens>())
  const clients = yield* Ref.make(new Map<string, ClientCredentials>())
  const get = <A>(ref: Ref.Ref<Map<string, A>>, key: string) =>
    Ref.get(ref).pipe(Effect.map((m) => Option.fromNullishOr(m.get(key))))
  const set = <A>(ref: Ref.Ref<Map<string, A>>, key: string, value: A) =>
    Ref.update(ref, (m) => new Map(m).set(key, value))
  return TokenStore.of({
    getTokens: (resource) => get(tokens, resource),
    setTokens: (resource, value) => set(tokens, resource, value),
    removeTokens: (resource) =>
      Ref.update(tokens, (m) => {
        const next = new Map(m)
        next.delete(resource)
        return next
      }),
    getClient: (issuer) => get(clients, issuer),
    setClient: (issuer, value) => set(clients, issuer, value)
  })
})

/**
 * The in-memory store as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<TokenStore> = Layer.effect(TokenStore, makeMemory)
