/**
 * A machine grant: how a client with no user gets tokens once the server and its authorization server are known
 * (`McpAuth` has done Protected Resource Metadata and authorization-server discovery). It takes the place of the
 * interactive authorization in `McpAuth.Options.grant`; `McpAuth` keeps everything else: tokens per server, the
 * Authorization header, renewal before expiry (by refresh token when one was issued, else by asking again), the
 * step-up on `insufficient_scope`, DPoP.
 *
 * The grants: `ClientCredentials` (`client_credentials`), `JwtBearer` (RFC 7523 §2.1, workload identity),
 * `EnterpriseManaged` (RFC 8693 token exchange for an ID-JAG, then the JWT bearer grant).
 *
 * @since 0.2.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type { AuthError } from "./AuthError.ts"
import type { AuthorizationServerMetadata } from "./AuthorizationServerMetadata.ts"
import type * as ClientAuthentication from "./ClientAuthentication.ts"
import type * as TokenEndpoint from "./TokenEndpoint.ts"
import type { Tokens } from "./TokenStore.ts"

/**
 * What a grant is asked for.
 *
 * @since 0.2.0
 * @category models
 */
export interface Request {
  readonly metadata: AuthorizationServerMetadata
  /** The resource indicator (RFC 8707): the server's resource as its metadata names it. */
  readonly resource: string
  readonly scope: string | undefined
  /** Bind the token to this key (RFC 9449), when DPoP is in use. */
  readonly dpop: TokenEndpoint.DpopBinding | undefined
  readonly timeout: Duration.Input | undefined
}

/**
 * A grant.
 *
 * @since 0.2.0
 * @category models
 */
export interface MachineGrant {
  /** For logs: `client_credentials`, `jwt-bearer`, `enterprise-managed`. */
  readonly name: string
  readonly obtain: (request: Request) => Effect.Effect<Tokens, AuthError, HttpClient.HttpClient>
  /** How the client authenticates when it refreshes a token the grant obtained. */
  readonly authentication: ClientAuthentication.ClientAuthentication
}
