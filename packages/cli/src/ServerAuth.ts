/**
 * A remote server's `auth` settings (the config's `RemoteAuth`) as the `McpAuth` strategy that acts on them: the
 * interactive flow with a pre-registered client, `client_credentials`, the JWT bearer grant (workload identity) or
 * enterprise-managed authorization. Key, assertion and ID token files are read when a token is requested (a rotated
 * file is picked up), never at load; secrets stay `Redacted`.
 *
 * @since 0.2.0
 */
import type * as AuthorizationPrompt from "@mcp-fleet/auth/AuthorizationPrompt"
import * as AuthRoutes from "@mcp-fleet/auth/AuthRoutes"
import type * as ClientAuthentication from "@mcp-fleet/auth/ClientAuthentication"
import * as ClientCredentials from "@mcp-fleet/auth/ClientCredentials"
import * as CredentialSource from "@mcp-fleet/auth/CredentialSource"
import * as EnterpriseManaged from "@mcp-fleet/auth/EnterpriseManaged"
import * as JwtBearer from "@mcp-fleet/auth/JwtBearer"
import * as McpAuth from "@mcp-fleet/auth/McpAuth"
import type * as TokenStore from "@mcp-fleet/auth/TokenStore"
import type { McpConfig, RemoteAuth } from "@mcp-fleet/config"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as HttpClient from "effect/http/HttpClient"
import * as Redacted from "effect/Redacted"

/**
 * What building the strategies needs: HTTP, the token store, the file system (key, assertion and ID token files), and
 * the prompt of the interactive flow.
 *
 * @since 0.2.0
 * @category models
 */
export type Requirements =
  | HttpClient.HttpClient
  | TokenStore.TokenStore
  | FileSystem.FileSystem
  | AuthorizationPrompt.AuthorizationPrompt

/**
 * How the interactive flow runs here: the client name it registers with and where the browser comes back (the
 * unattended commands refuse to prompt; `auth login` listens on the loopback).
 *
 * @since 0.2.0
 * @category models
 */
export interface Interactive {
  readonly clientName: string
  readonly redirectUri: string
}

type Confidential = Exclude<ClientAuthentication.ClientAuthentication, { readonly method: "none" }>

/**
 * A confidential client's authentication from its configured secret or key (the config refuses either without a
 * client id).
 *
 * @since 0.2.0
 * @category mapping
 */
export const confidential = (
  clientId: string,
  credential: Exclude<RemoteAuth.ClientCredential, { readonly method: "none" }>
): Effect.Effect<Confidential, never, FileSystem.FileSystem> =>
  credential.method === "private_key_jwt"
    ? Effect.map(CredentialSource.fromFile(credential.privateKeyFile, "private key"), (privateKey) => ({
      method: "private_key_jwt" as const,
      clientId,
      key: { privateKey, algorithm: credential.signingAlgorithm, keyId: credential.keyId }
    }))
    : Effect.succeed({ method: credential.method, clientId, clientSecret: CredentialSource.value(credential.secret) })

/**
 * A client's authentication from its configured credential.
 *
 * @since 0.2.0
 * @category mapping
 */
export const authentication = (
  clientId: string | undefined,
  credential: RemoteAuth.ClientCredential
): Effect.Effect<ClientAuthentication.ClientAuthentication, never, FileSystem.FileSystem> =>
  credential.method === "none" || clientId === undefined
    ? Effect.succeed({ method: "none", clientId })
    : confidential(clientId, credential)

/**
 * The `McpAuth` for one server's settings. The interactive flow asks `AuthorizationPrompt` (the caller provides a
 * refusing one for unattended commands); the machine grants never do.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  auth: RemoteAuth.RemoteAuth,
  interactive: Interactive
): Effect.Effect<McpAuth.Service, never, Requirements> =>
  Effect.gen(function*() {
    const dpop = auth.dpop
    switch (auth.grant) {
      case "authorization_code":
        return yield* McpAuth.make({
          ...interactive,
          dpop,
          preRegistered: auth.clientId === undefined
            ? undefined
            : [{ clientId: auth.clientId, clientSecret: auth.clientSecret, issuer: auth.issuer }]
        })
      case "client_credentials":
        return yield* ClientCredentials.make({
          client: yield* confidential(auth.clientId, auth.credential),
          scope: auth.scope,
          dpop
        })
      case "jwt_bearer":
        return yield* JwtBearer.make({
          assertion: yield* CredentialSource.fromFile(auth.assertionFile, "assertion"),
          client: yield* authentication(auth.clientId, auth.credential),
          scope: auth.scope,
          dpop
        })
      case "enterprise":
        return yield* EnterpriseManaged.make({
          idp: {
            tokenEndpoint: auth.idp.tokenEndpoint,
            issuer: auth.idp.issuer,
            client: yield* authentication(auth.idp.clientId, auth.idp.credential),
            idToken: yield* CredentialSource.fromFile(auth.idp.idTokenFile, "ID token")
          },
          client: yield* authentication(auth.clientId, auth.credential),
          scope: auth.scope,
          dpop
        })
    }
  })

/**
 * Whether the settings are a machine grant (no browser, no `auth login` needed).
 *
 * @since 0.2.0
 * @category predicates
 */
export const isMachine = (auth: RemoteAuth.RemoteAuth | undefined): boolean =>
  auth !== undefined && auth.grant !== "authorization_code"

/**
 * One `McpAuth` for the servers of a config: each remote entry with `auth` gets its strategy, every other server
 * `fallback` (matched by the server's URL without credentials, query or fragment).
 *
 * @since 0.2.0
 * @category constructors
 */
export const routes = (
  remote: ReadonlyArray<McpConfig.RemoteEntry>,
  fallback: McpAuth.Service,
  interactive: Interactive
): Effect.Effect<McpAuth.Service, never, Requirements> =>
  Effect.gen(function*() {
    const own: Array<readonly [string, McpAuth.Service]> = []
    for (const entry of remote) {
      if (entry.auth !== undefined) own.push([urlOf(entry), yield* make(entry.auth, interactive)])
    }
    return own.length === 0 ? fallback : AuthRoutes.make(own, fallback)
  })

const urlOf = (entry: McpConfig.RemoteEntry): string => {
  const parsed = URL.parse(Redacted.value(entry.url))
  if (parsed === null) return Redacted.value(entry.url)
  parsed.username = ""
  parsed.password = ""
  return parsed.href
}
