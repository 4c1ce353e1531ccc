/**
 * The `McpAuth` that `client.ts` runs each of the suite's auth extension scenarios with, built from the scenario's
 * context (`MCP_CONFORMANCE_CONTEXT`) as a host would build it from its configuration:
 *
 * - `auth/client-credentials-basic`: `ClientCredentials` with the client's secret (basic, as the server advertises);
 * - `auth/client-credentials-jwt`: `ClientCredentials` with `private_key_jwt` (the PKCS#8 key the suite made);
 * - `auth/wif-jwt-bearer`: `JwtBearer` with the workload token (RFC 7523 §2.1);
 * - `auth/enterprise-managed-authorization`: `EnterpriseManaged` (ID token → ID-JAG at the IdP → access token);
 * - `auth/dpop`, `auth/dpop-nonce`: the interactive `McpAuth` (headless prompt, DCR) with DPoP on `auto`: the
 *   server's challenge uses the `DPoP` scheme and its authorization server takes ES256 proofs.
 *
 * Any other scenario gets no `McpAuth`.
 */
import * as AuthorizationPrompt from "@mcp-fleet/auth/AuthorizationPrompt"
import * as ClientCredentials from "@mcp-fleet/auth/ClientCredentials"
import * as CredentialSource from "@mcp-fleet/auth/CredentialSource"
import * as EnterpriseManaged from "@mcp-fleet/auth/EnterpriseManaged"
import * as JwtBearer from "@mcp-fleet/auth/JwtBearer"
import * as McpAuth from "@mcp-fleet/auth/McpAuth"
import * as TokenStore from "@mcp-fleet/auth/TokenStore"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

/** A string field of the scenario's context; a missing one is the suite's bug, said at once. */
const field = (context: Readonly<Record<string, unknown>>, name: string): string => {
  const value = context[name]
  if (typeof value !== "string") throw new Error(`the scenario's context has no ${name}`)
  return value
}

const secret = (context: Readonly<Record<string, unknown>>, name: string) =>
  CredentialSource.value(Redacted.make(field(context, name)))

/** The scenario's `McpAuth`, or undefined when it needs none. */
export const forScenario = (
  scenario: string,
  context: Readonly<Record<string, unknown>>
): Layer.Layer<McpAuth.McpAuth, never, HttpClient.HttpClient> | undefined => {
  const store = TokenStore.layerMemory
  switch (scenario) {
    case "auth/client-credentials-basic":
      return ClientCredentials.layer({
        client: {
          method: "client_secret",
          clientId: field(context, "client_id"),
          clientSecret: secret(context, "client_secret")
        }
      }).pipe(Layer.provide(store))
    case "auth/client-credentials-jwt":
      return ClientCredentials.layer({
        client: {
          method: "private_key_jwt",
          clientId: field(context, "client_id"),
          key: { privateKey: secret(context, "private_key_pem"), algorithm: field(context, "signing_algorithm") }
        }
      }).pipe(Layer.provide(store))
    case "auth/wif-jwt-bearer":
      return JwtBearer.layer({
        assertion: secret(context, "valid_jwt"),
        client: { method: "none", clientId: field(context, "client_id") }
      }).pipe(Layer.provide(store))
    case "auth/enterprise-managed-authorization":
      return EnterpriseManaged.layer({
        idp: {
          tokenEndpoint: field(context, "idp_token_endpoint"),
          issuer: field(context, "idp_issuer"),
          client: { method: "none", clientId: field(context, "idp_client_id") },
          idToken: secret(context, "idp_id_token")
        },
        client: {
          method: "client_secret",
          clientId: field(context, "client_id"),
          clientSecret: secret(context, "client_secret")
        }
      }).pipe(Layer.provide(store))
    case "auth/dpop":
    case "auth/dpop-nonce":
      return McpAuth.layer({
        clientName: "mcp-fleet-conformance-client",
        redirectUri: "http://localhost:3000/callback"
      })
        .pipe(Layer.provide(Layer.mergeAll(AuthorizationPrompt.layerHeadless, store)))
    default:
      return undefined
  }
}
