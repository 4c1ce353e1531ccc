/**
 * Where the user is sent to authorize: a service the host provides. It receives the authorization URL and
 * returns what came back to the redirect URI. The CLI's implementation would open a loopback listener; the
 * headless one here follows the authorization server's redirect itself (test servers redirect straight back).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Kind from "./internal/Kind.ts"

/**
 * What arrived at the redirect URI: the code (secret), `state`, `iss`, or an OAuth `error`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Callback {
  readonly code: Redacted.Redacted<string> | undefined
  readonly state: string | undefined
  readonly iss: string | undefined
  readonly error: string | undefined
}

/**
 * Reads a callback from the URL the browser was redirected to.
 *
 * @since 0.1.0
 * @category parsing
 */
export const callbackFromRedirect = (redirect: string | URL): Callback => {
  const params = new URL(redirect).searchParams
  const code = params.get("code")
  return {
    code: code === null ? undefined : Redacted.make(code),
    state: params.get("state") ?? undefined,
    iss: params.get("iss") ?? undefined,
    error: params.get("error") ?? undefined
  }
}

/**
 * The prompt could not get the user's answer (no browser, the listener failed, the user gave up).
 *
 * @since 0.1.0
 * @category errors
 */
export class PromptFailed extends Schema.TaggedError<PromptFailed>("@mcp-fleet/auth/AuthorizationPrompt/PromptFailed")(
  "PromptFailed",
  { reason: Schema.String, cause: Schema.optional(Schema.Defect()) }
) {
  /** Needs the user: the prompt could not get their answer. */
  get kind(): Kind.NeedsUser {
    return Kind.needsUser(this.message)
  }
  override get message(): string {
    return `The authorization prompt failed: ${this.reason}.`
  }
}

/**
 * A request to the user: open `url`; the answer comes back at `redirectUri`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly url: URL
  readonly redirectUri: string
}

/**
 * The prompt service.
 *
 * @since 0.1.0
 * @category services
 */
export class AuthorizationPrompt extends Context.Service<AuthorizationPrompt, {
  readonly authorize: (request: Request) => Effect.Effect<Callback, PromptFailed>
  /**
   * Set when nobody can be asked (an unattended host), to why: `McpAuth` then stops after discovery, with this
   * reason, before registering a client or requesting a token.
   */
  readonly unavailable?: string | undefined
}>()("@mcp-fleet/auth/AuthorizationPrompt") {}

const MAX_HOPS = 5

/**
 * Follows the authorization URL's redirects (at most five) until one points at the redirect URI, without a
 * browser. For test servers and conformance mocks, whose `/authorize` answers 302 with the code.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHeadless: Layer.Layer<AuthorizationPrompt, never, HttpClient.HttpClient> = Layer.effect(
  AuthorizationPrompt,
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const hop = (url: URL) =>
      client.execute(HttpClientRequest.get(url)).pipe(
        Effect.map((response) => ({
          status: response.status,
          location: Option.fromNullishOr(response.headers["location"])
        })),
        Effect.scoped,
        Effect.mapError((cause) =>
          new PromptFailed({ reason: `${url.origin}${url.pathname} could not be reached`, cause })
        )
      )
    return AuthorizationPrompt.of({
      authorize: Effect.fnUntraced(function*(request) {
        let url = request.url
        for (let i = 0; i < MAX_HOPS; i++) {
          const { location, status } = yield* hop(url)
          if (status < 300 || status >= 400 || Option.isNone(location)) {
            return yield* new PromptFailed({
              reason: `the authorization endpoint answered HTTP ${status}, not a redirect`
            })
          }
          const next = URL.parse(location.value, url.href)
          if (next === null) {
            return yield* new PromptFailed({ reason: "the authorization endpoint redirected to a bad URL" })
          }
          if (`${next.origin}${next.pathname}` === request.redirectUri.replace(/\?.*$/, "")) {
            return callbackFromRedirect(next)
          }
          url = next
        }
        return yield* new PromptFailed({ reason: `more than ${MAX_HOPS} redirects without reaching the redirect URI` })
      })
    })
  })
)

/**
 * A prompt that never sends anyone anywhere: every authorization fails at once with `reason` (for a host that
 * runs unattended, where the user authorizes beforehand, e.g. with `mcp-fleet auth login <server>`). A server
 * whose tokens are missing or cannot be refreshed then fails typed (`AuthorizationRequired`) instead of waiting
 * for a user who is not there. `McpAuth` stops after discovery: it registers no client and requests no token for
 * an authorization nobody can complete.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerUnavailable = (reason: string): Layer.Layer<AuthorizationPrompt> =>
  Layer.succeed(
    AuthorizationPrompt,
    AuthorizationPrompt.of({ authorize: () => Effect.fail(new PromptFailed({ reason })), unavailable: reason })
  )
