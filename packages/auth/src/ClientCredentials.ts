/**
 * The `client_credentials` grant (OAuth 2.1 §4.2, the MCP OAuth client-credentials extension): a service account,
 * CI job or agent with no user and no browser gets tokens with its own pre-registered credentials. The client
 * authenticates with `private_key_jwt` (RFC 7523 §2.2, recommended), `client_secret_basic` or `client_secret_post`.
 * No registration, no prompt; tokens are renewed unattended before they expire.
 *
 * ```ts
 * import { ClientCredentials, CredentialSource, TokenStore } from "@mcp-fleet/auth"
 *
 * const AuthLive = ClientCredentials.layer({
 *   client: { method: "client_secret", clientId: "svc-reports", clientSecret: CredentialSource.value(secret) },
 *   scope: "mcp:read"
 * }).pipe(Layer.provide(TokenStore.layerMemory)) // needs HttpClient
 * ```
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Layer from "effect/Layer"
import type * as ClientAuthentication from "./ClientAuthentication.ts"
import * as Machine from "./internal/machine.ts"
import type * as MachineGrant from "./MachineGrant.ts"
import type * as McpAuth from "./McpAuth.ts"
import * as TokenEndpoint from "./TokenEndpoint.ts"
import type { TokenStore } from "./TokenStore.ts"

/**
 * The options: how the client authenticates (a confidential client: a secret or a key), and the shared options
 * (`scope`, `dpop`, deadlines).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends Machine.CommonOptions {
  readonly client: Exclude<ClientAuthentication.ClientAuthentication, { readonly method: "none" }>
}

/**
 * The grant.
 *
 * @since 0.2.0
 * @category grants
 */
export const grant = (options: Options): MachineGrant.MachineGrant => ({
  name: "client_credentials",
  authentication: options.client,
  obtain: (request) =>
    TokenEndpoint.request({
      metadata: request.metadata,
      client: options.client,
      resource: request.resource,
      grant: { _tag: "client_credentials", scope: Machine.scopeOf(options, request.scope) },
      requestedScope: Machine.scopeOf(options, request.scope),
      timeout: request.timeout,
      dpop: request.dpop
    })
})

/**
 * `McpAuth` with the `client_credentials` grant.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<McpAuth.Service, never, HttpClient.HttpClient | TokenStore> =>
  Machine.make(grant(options), options)

/**
 * {@link make} as the `McpAuth` layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<McpAuth.McpAuth, never, HttpClient.HttpClient | TokenStore> =>
  Machine.layer(grant(options), options)
