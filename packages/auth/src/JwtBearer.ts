/**
 * The JWT bearer grant (RFC 7523 §2.1) for workload identity: a workload presents a JWT its platform issued (a
 * Kubernetes projected service-account token, a cloud workload identity token, a CI OIDC token) as the grant, and
 * gets an access token for the MCP server without any secret of its own. The assertion comes from a
 * {@link CredentialSource}: a file read afresh at every token request (platforms rotate it), or a value the
 * application provides.
 *
 * As the workload identity extension asks, a refused assertion is not sent again and no other grant is tried: the
 * error (`invalid_grant`, `invalid_scope`, `unauthorized_client`) is the result, and the same assertion fails at once
 * after that, without a request, until the source yields a new one. An assertion whose `exp` has passed is refused
 * before it is sent. The assertion is never decoded for anything else and never logged.
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import { CredentialUnavailable, TokenRequestFailed } from "./AuthError.ts"
import type * as ClientAuthentication from "./ClientAuthentication.ts"
import type { CredentialSource } from "./CredentialSource.ts"
import * as Machine from "./internal/machine.ts"
import type * as MachineGrant from "./MachineGrant.ts"
import * as McpAuth from "./McpAuth.ts"
import * as TokenEndpoint from "./TokenEndpoint.ts"
import type { TokenStore } from "./TokenStore.ts"

/**
 * The grant type of RFC 7523 §2.1.
 *
 * @since 0.2.0
 * @category constants
 */
export const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"

/**
 * The options: where the assertion comes from, how (and whether) the client authenticates besides it, and the shared
 * options.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends Machine.CommonOptions {
  readonly assertion: CredentialSource
  /** Default: no client authentication (`none`, no `client_id`): the assertion identifies the workload. */
  readonly client?: ClientAuthentication.ClientAuthentication | undefined
  /** What the assertion is, for messages; default `assertion`. */
  readonly what?: "assertion" | "ID token" | undefined
}

/** `exp` of a JWT, in seconds, when it has one; the payload is read, never verified (the server verifies). */
const expiryOf = (jwt: string): Effect.Effect<number | undefined> =>
  Effect.try({
    try: () => {
      const payload = Base64Url.decodeString(jwt.split(".")[1] ?? "")
      const claims: unknown = Result.isSuccess(payload) ? JSON.parse(payload.success) : undefined
      const exp: unknown = typeof claims === "object" && claims !== null ? Reflect.get(claims, "exp") : undefined
      return typeof exp === "number" ? exp : undefined
    },
    catch: () => undefined
  }).pipe(Effect.orElseSucceed(() => undefined))

/**
 * The grant: sends the assertion, once per assertion and scope until it is accepted.
 *
 * @since 0.2.0
 * @category grants
 */
export const grant: (options: Options) => Effect.Effect<MachineGrant.MachineGrant> = Effect.fnUntraced(
  function*(options: Options) {
    /** Assertions the authorization server refused (an OAuth error, not a network failure), with the scope asked. */
    const refused = yield* Ref.make(new Map<string, TokenRequestFailed>())
    const client: ClientAuthentication.ClientAuthentication = options.client ?? { method: "none" }
    const what = options.what ?? "assertion"
    return {
      name: "jwt-bearer",
      authentication: client,
      obtain: (request) =>
        Effect.gen(function*() {
          const assertion = yield* options.assertion
          const text = Redacted.value(assertion)
          const scope = Machine.scopeOf(options, request.scope)
          const exp = yield* expiryOf(text)
          const now = (yield* Clock.currentTimeMillis) / 1000
          if (exp !== undefined && exp <= now) {
            return yield* new CredentialUnavailable({
              what,
              source: "its source",
              reason: `it expired ${Math.round(now - exp)} s ago (a fresh one is needed)`
            })
          }
          const key = `${scope ?? ""} ${text}`
          const before = (yield* Ref.get(refused)).get(key)
          if (before !== undefined) {
            return yield* new TokenRequestFailed({
              endpoint: before.endpoint,
              grant: "jwt-bearer",
              reason: `the authorization server refused this ${what} before (${
                before.oauthError ?? "refused"
              }); it is not sent again until a new one is available`,
              ...(before.oauthError === undefined ? {} : { oauthError: before.oauthError })
            })
          }
          return yield* TokenEndpoint.request({
            metadata: request.metadata,
            client,
            resource: request.resource,
            grant: { _tag: "jwt-bearer", assertion, scope },
            requestedScope: scope,
            timeout: request.timeout,
            dpop: request.dpop
          }).pipe(
            Effect.tapError((error) =>
              error._tag === "TokenRequestFailed" && error.oauthError !== undefined
                ? Ref.update(refused, (m) => new Map(m.size >= 16 ? [] : m).set(key, error))
                : Effect.void
            )
          )
        })
    }
  }
)

/**
 * `McpAuth` with the JWT bearer grant.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<McpAuth.Service, never, HttpClient.HttpClient | TokenStore> =>
  Effect.flatMap(grant(options), (g) => Machine.make(g, options))

/**
 * {@link make} as the `McpAuth` layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<McpAuth.McpAuth, never, HttpClient.HttpClient | TokenStore> =>
  Layer.effect(McpAuth.McpAuth, make(options))
