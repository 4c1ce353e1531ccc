/**
 * Getting a client id at an authorization server, in the spec's order: pre-registered credentials, then a
 * Client ID Metadata Document (when the server supports them and the host has one), then Dynamic Client
 * Registration (RFC 7591). Registrations are kept per issuer in the {@link TokenStore}.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { RegistrationFailed } from "./AuthError.ts"
import type { AuthorizationServerMetadata } from "./AuthorizationServerMetadata.ts"
import { exchangeJson } from "./internal/httpJson.ts"
import { isLoopback } from "./internal/secureUrl.ts"
import { MAX_TOKEN_CHARS } from "./TokenResponse.ts"
import { type ClientCredentials, type TokenEndpointAuthMethod, TokenStore } from "./TokenStore.ts"

/**
 * Credentials the host registered beforehand (from config). Without `issuer` they apply to any server.
 *
 * @since 0.1.0
 * @category models
 */
export interface PreRegistered {
  readonly clientId: string
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  readonly issuer?: string | undefined
}

/**
 * What the host tells the registration step about itself.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientOptions {
  readonly clientName: string
  readonly redirectUri: string
  readonly preRegistered?: ReadonlyArray<PreRegistered> | undefined
  /** An HTTPS URL with a path serving this client's metadata document (used when the server supports them). */
  readonly clientMetadataUrl?: string | undefined
  /** Sent in Dynamic Client Registration; default `native` for a localhost redirect, else `web`. */
  readonly applicationType?: "native" | "web" | undefined
}

/**
 * The method to use with a secret (basic, then post, as the server allows; RFC 8414's default is basic) or
 * `none` without one.
 *
 * @since 0.1.0
 * @category registration
 */
export const chooseAuthMethod = (
  metadata: AuthorizationServerMetadata,
  hasSecret: boolean
): TokenEndpointAuthMethod => {
  if (!hasSecret) return "none"
  const supported = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
  if (supported.includes("client_secret_basic")) return "client_secret_basic"
  if (supported.includes("client_secret_post")) return "client_secret_post"
  return "client_secret_basic"
}

const RegistrationResponse = Schema.Struct({
  client_id: Schema.String,
  client_secret: Schema.optionalKey(Schema.String),
  token_endpoint_auth_method: Schema.optionalKey(Schema.String)
})
const decodeRegistration = Schema.decodeUnknownOption(RegistrationResponse)

/** RFC 6749's VSCHAR (printable ASCII), what a client id and a client secret are made of. */
const VSCHAR = /^[\x20-\x7e]+$/

/** Why a registration response's fields cannot be kept (bounded, printable), or undefined when they can. */
const checkRegistration = (registration: typeof RegistrationResponse.Type): string | undefined => {
  const fields: ReadonlyArray<readonly [string, string | undefined, number]> = [
    ["client_id", registration.client_id, 4 * 1024],
    ["client_secret", registration.client_secret, MAX_TOKEN_CHARS]
  ]
  for (const [name, value, max] of fields) {
    if (value === undefined) continue
    if (value.length === 0 || value.length > max || !VSCHAR.test(value)) {
      return `${name} is not 1 to ${max} printable ASCII characters`
    }
  }
  return undefined
}

const requestedMethod = (metadata: AuthorizationServerMetadata): TokenEndpointAuthMethod => {
  const supported = metadata.token_endpoint_auth_methods_supported
  if (supported === undefined) return "client_secret_basic"
  const preferred: ReadonlyArray<TokenEndpointAuthMethod> = ["client_secret_basic", "client_secret_post", "none"]
  return preferred.find((m) => supported.includes(m)) ?? "client_secret_basic"
}

const asMethod = (method: string | undefined, fallback: TokenEndpointAuthMethod): TokenEndpointAuthMethod =>
  method === "client_secret_basic" || method === "client_secret_post" || method === "none" ? method : fallback

/**
 * Registers dynamically (RFC 7591) at the server's `registration_endpoint`.
 *
 * @since 0.1.0
 * @category registration
 */
export const registerDynamically: (
  metadata: AuthorizationServerMetadata,
  options: ClientOptions
) => Effect.Effect<ClientCredentials, RegistrationFailed, HttpClient.HttpClient> = Effect.fnUntraced(function*(
  metadata: AuthorizationServerMetadata,
  options: ClientOptions
) {
  const issuer = metadata.issuer
  const endpoint = metadata.registration_endpoint
  if (endpoint === undefined) {
    return yield* new RegistrationFailed({
      issuer,
      reason:
        "it has no registration endpoint, supports no client metadata documents, and no credentials were pre-registered"
    })
  }
  const method = requestedMethod(metadata)
  const request = yield* HttpClientRequest.post(endpoint).pipe(
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyJson({
      client_name: options.clientName,
      redirect_uris: [options.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: method,
      application_type: options.applicationType ?? (isLoopback(options.redirectUri) ? "native" : "web")
    }),
    Effect.mapError((cause) => new RegistrationFailed({ issuer, reason: "the request could not be encoded", cause }))
  )
  const reply = yield* exchangeJson(request).pipe(
    Effect.mapError((e) =>
      new RegistrationFailed({ issuer, reason: `the registration endpoint ${endpoint} ${e.reason}`, cause: e.cause })
    )
  )
  if (reply.status !== 200 && reply.status !== 201) {
    return yield* new RegistrationFailed({
      issuer,
      reason: `the registration endpoint answered HTTP ${reply.status}`
    })
  }
  const registered = Option.flatMap(reply.body, decodeRegistration)
  if (Option.isNone(registered)) {
    return yield* new RegistrationFailed({ issuer, reason: "the registration response is not a client registration" })
  }
  const invalid = checkRegistration(registered.value)
  if (invalid !== undefined) {
    return yield* new RegistrationFailed({ issuer, reason: `the registration response's ${invalid}` })
  }
  const secret = registered.value.client_secret
  return {
    issuer,
    clientId: registered.value.client_id,
    clientSecret: secret === undefined ? undefined : Redacted.make(secret),
    authMethod: secret === undefined ? "none" : asMethod(registered.value.token_endpoint_auth_method, method),
    source: "dynamic"
  }
})

const isSameClient = (stored: ClientCredentials, pre: PreRegistered): boolean =>
  stored.clientId === pre.clientId &&
  (stored.clientSecret === undefined ? undefined : Redacted.value(stored.clientSecret)) ===
    (pre.clientSecret === undefined ? undefined : Redacted.value(pre.clientSecret))

/**
 * The client to use at `metadata.issuer`: pre-registered credentials for it (a stored client only when it is the
 * same), else one stored for that issuer, else the client metadata document, else a dynamic registration (stored
 * for next time).
 *
 * @since 0.1.0
 * @category registration
 */
export const resolve: (
  metadata: AuthorizationServerMetadata,
  options: ClientOptions
) => Effect.Effect<ClientCredentials, RegistrationFailed, HttpClient.HttpClient | TokenStore> = Effect.fnUntraced(
  function*(
    metadata: AuthorizationServerMetadata,
    options: ClientOptions
  ) {
    const store = yield* TokenStore
    const issuer = metadata.issuer
    const pre = (options.preRegistered ?? []).find((p) => p.issuer === issuer) ??
      (options.preRegistered ?? []).find((p) => p.issuer === undefined)
    const stored = yield* store.getClient(issuer)
    // A client the host configured wins over one kept from an earlier registration (or an older configuration).
    if (Option.isSome(stored) && (pre === undefined || isSameClient(stored.value, pre))) return stored.value
    const client: ClientCredentials = pre !== undefined
      ? {
        issuer,
        clientId: pre.clientId,
        clientSecret: pre.clientSecret,
        authMethod: chooseAuthMethod(metadata, pre.clientSecret !== undefined),
        source: "pre-registered"
      }
      : metadata.client_id_metadata_document_supported === true && options.clientMetadataUrl !== undefined
      ? {
        issuer,
        clientId: options.clientMetadataUrl,
        clientSecret: undefined,
        authMethod: "none",
        source: "metadata-document"
      }
      : yield* registerDynamically(metadata, options)
    yield* store.setClient(issuer, client)
    return client
  }
)
