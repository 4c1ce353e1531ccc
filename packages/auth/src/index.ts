/**
 * OAuth 2.1 for remote MCP servers on Effect's `HttpClient`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AuthError from "./AuthError.ts"
/** @since 0.2.0 */
export * as AuthRoutes from "./AuthRoutes.ts"
/** @since 0.1.0 */
export * as AuthorizationPrompt from "./AuthorizationPrompt.ts"
/** @since 0.1.0 */
export * as AuthorizationRequest from "./AuthorizationRequest.ts"
/** @since 0.1.0 */
export * as AuthorizationServerMetadata from "./AuthorizationServerMetadata.ts"
/** @since 0.2.0 */
export * as ClientAssertion from "./ClientAssertion.ts"
/** @since 0.2.0 */
export * as ClientAuthentication from "./ClientAuthentication.ts"
/** @since 0.2.0 */
export * as ClientCredentials from "./ClientCredentials.ts"
/** @since 0.1.0 */
export * as ClientRegistration from "./ClientRegistration.ts"
/** @since 0.2.0 */
export * as CredentialSource from "./CredentialSource.ts"
/** @since 0.2.0 */
export * as Dpop from "./Dpop.ts"
/** @since 0.2.0 */
export * as EnterpriseManaged from "./EnterpriseManaged.ts"
/** @since 0.1.0 */
export * as FileTokenStore from "./FileTokenStore.ts"
/** @since 0.2.0 */
export * as JwtBearer from "./JwtBearer.ts"
/** @since 0.2.0 */
export * as MachineGrant from "./MachineGrant.ts"
/** @since 0.1.0 */
export * as McpAuth from "./McpAuth.ts"
/** @since 0.1.0 */
export * as Pkce from "./Pkce.ts"
/** @since 0.1.0 */
export * as ProtectedResourceMetadata from "./ProtectedResourceMetadata.ts"
/** @since 0.1.0 */
export * as Scopes from "./Scopes.ts"
/** @since 0.1.0 */
export * as TokenEndpoint from "./TokenEndpoint.ts"
/** @since 0.2.0 */
export * as TokenExchange from "./TokenExchange.ts"
/** @since 0.2.0 */
export * as TokenResponse from "./TokenResponse.ts"
/** @since 0.1.0 */
export * as TokenStore from "./TokenStore.ts"
/** @since 0.2.0 */
export * as UrlPolicy from "./UrlPolicy.ts"
/** @since 0.1.0 */
export * as WwwAuthenticate from "./WwwAuthenticate.ts"
