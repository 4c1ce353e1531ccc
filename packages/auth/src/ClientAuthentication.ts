/**
 * How a client proves who it is at a token endpoint (OAuth 2.1 §2.4, RFC 7523 §2.2): nothing but its id (`none`,
 * a public client; or nothing at all, when a grant's assertion identifies it), its secret in the Authorization header
 * (`client_secret_basic`) or in the form (`client_secret_post`; `client_secret`: whichever the server advertises,
 * basic first), or a JWT it signs with its private key (`private_key_jwt`). Secrets are read from their
 * {@link CredentialSource} at each request and travel only in the header or the form body.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Redacted from "effect/Redacted"
import { type CredentialUnavailable, SigningFailed } from "./AuthError.ts"
import type { AuthorizationServerMetadata } from "./AuthorizationServerMetadata.ts"
import * as ClientAssertion from "./ClientAssertion.ts"
import * as CredentialSource from "./CredentialSource.ts"
import type { ClientCredentials } from "./TokenStore.ts"

/**
 * A client's authentication at the token endpoint.
 *
 * @since 0.2.0
 * @category models
 */
export type ClientAuthentication =
  | { readonly method: "none"; readonly clientId?: string | undefined }
  | {
    readonly method: "client_secret_basic" | "client_secret_post" | "client_secret"
    readonly clientId: string
    readonly clientSecret: CredentialSource.CredentialSource
  }
  | { readonly method: "private_key_jwt"; readonly clientId: string; readonly key: ClientAssertion.SigningKey }

/**
 * The authentication of a registered client (pre-registered, metadata document or dynamic registration).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromClient = (client: ClientCredentials): ClientAuthentication =>
  client.authMethod === "none"
    ? { method: "none", clientId: client.clientId }
    : {
      method: client.authMethod,
      clientId: client.clientId,
      clientSecret: CredentialSource.value(client.clientSecret ?? Redacted.make(""))
    }

/**
 * What authentication adds to one token request: form parameters, headers, and every secret value it put in
 * them (for scrubbing what the server echoes back).
 *
 * @since 0.2.0
 * @category models
 */
export interface Applied {
  readonly params: ReadonlyArray<readonly [string, string]>
  readonly headers: Readonly<Record<string, string>>
  readonly secrets: ReadonlyArray<string>
}

const formEncode = (value: string): string => encodeURIComponent(value).replace(/%20/g, "+")

/** Basic unless the server lists only post (RFC 8414's default is basic). */
const secretMethod = (
  metadata: Pick<AuthorizationServerMetadata, "token_endpoint_auth_methods_supported">
): "client_secret_basic" | "client_secret_post" => {
  const supported = metadata.token_endpoint_auth_methods_supported
  return supported !== undefined && !supported.includes("client_secret_basic") &&
      supported.includes("client_secret_post")
    ? "client_secret_post"
    : "client_secret_basic"
}

/**
 * The parameters and headers for one request to `metadata`'s token endpoint. `private_key_jwt` signs a fresh
 * assertion whose audience is the issuer; when the server lists the algorithms it takes
 * (`token_endpoint_auth_signing_alg_values_supported`) and ours is not among them, that is a `SigningFailed` naming
 * both, before anything is sent.
 *
 * @since 0.2.0
 * @category requests
 */
export const apply: (
  authentication: ClientAuthentication,
  metadata: Pick<
    AuthorizationServerMetadata,
    "issuer" | "token_endpoint_auth_methods_supported" | "token_endpoint_auth_signing_alg_values_supported"
  >
) => Effect.Effect<Applied, CredentialUnavailable | SigningFailed> = Effect.fnUntraced(function*(
  authentication: ClientAuthentication,
  metadata: Pick<
    AuthorizationServerMetadata,
    "issuer" | "token_endpoint_auth_methods_supported" | "token_endpoint_auth_signing_alg_values_supported"
  >
) {
  switch (authentication.method) {
    case "none":
      return {
        params: authentication.clientId === undefined ? [] : [["client_id", authentication.clientId]],
        headers: {},
        secrets: []
      }
    case "client_secret":
      return yield* apply({ ...authentication, method: secretMethod(metadata) }, metadata)
    case "client_secret_post": {
      const secret = Redacted.value(yield* authentication.clientSecret)
      return {
        params: [["client_id", authentication.clientId], ["client_secret", secret]],
        headers: {},
        secrets: [secret]
      }
    }
    case "client_secret_basic": {
      const secret = Redacted.value(yield* authentication.clientSecret)
      const basic = Base64.encode(`${formEncode(authentication.clientId)}:${formEncode(secret)}`)
      return {
        params: [],
        headers: { authorization: `Basic ${basic}` },
        secrets: [secret, formEncode(secret), basic]
      }
    }
    case "private_key_jwt": {
      const accepted = metadata.token_endpoint_auth_signing_alg_values_supported
      const wanted = authentication.key.algorithm
      if (wanted !== undefined && accepted !== undefined && !accepted.includes(wanted)) {
        return yield* new SigningFailed({
          what: "client assertion",
          reason: `the authorization server takes ${accepted.join(", ")} for private_key_jwt, not ${wanted}`
        })
      }
      const assertion = Redacted.value(
        yield* ClientAssertion.sign(authentication.key, {
          clientId: authentication.clientId,
          audience: metadata.issuer
        })
      )
      return {
        params: [["client_assertion_type", ClientAssertion.ASSERTION_TYPE], ["client_assertion", assertion]],
        headers: {},
        secrets: [assertion]
      }
    }
  }
})
