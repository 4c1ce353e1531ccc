/**
 * Whether a remote server needs a sign-in at all, asked of the server itself: one `initialize` without any
 * authorization, bounded in time. `auth status` asks it of each remote server that holds no tokens, so that a server
 * that needs no authorization is said to need none instead of being told to sign in.
 *
 * @since 0.4.0
 */
import type { McpConfig } from "@mcp-fleet/config"
import { McpClient } from "@mcp-fleet/transport"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/**
 * What the probe found: the server answered without authorization (`open`), refused without it (`needed`), or
 * could not be asked (`unknown`, with why: unreachable, too slow, an error of another kind).
 *
 * @since 0.4.0
 * @category models
 */
export type Finding =
  | { readonly _tag: "open" }
  | { readonly _tag: "needed" }
  | { readonly _tag: "unknown"; readonly reason: string }

/**
 * How long one probe may take.
 *
 * @since 0.4.0
 * @category constants
 */
export const TIMEOUT: Duration.Duration = Duration.seconds(10)

/** A failure that says the server wants authorization (no `McpAuth` is given, so a 401 or 403 comes back as is). */
const refused = (error: { readonly _tag: string }): boolean =>
  error._tag === "AuthorizationRequired" ||
  (error._tag === "HttpStatusError" && "status" in error && (error.status === 401 || error.status === 403))

/**
 * Asks `entry`'s server for `initialize` with no credentials but the entry's own headers, within {@link TIMEOUT};
 * the session is closed at once.
 *
 * @since 0.4.0
 * @category probing
 */
export const probe = (entry: McpConfig.RemoteEntry): Effect.Effect<Finding, never, HttpClient.HttpClient> =>
  Effect.scoped(
    Effect.gen(function*() {
      const client = yield* McpClient.http({
        url: Redacted.isRedacted(entry.url) ? Redacted.value(entry.url) : entry.url,
        headers: entry.headers,
        transport: entry.transport === "sse" ? "sse" : "auto",
        name: entry.name,
        requestTimeout: TIMEOUT
      })
      return yield* client.awaitReady
    })
  ).pipe(
    Effect.timeoutOption(TIMEOUT),
    Effect.match({
      onSuccess: (ready): Finding =>
        Option.isSome(ready)
          ? { _tag: "open" }
          : { _tag: "unknown", reason: `no answer within ${Duration.format(TIMEOUT)}` },
      onFailure: (error): Finding => refused(error) ? { _tag: "needed" } : { _tag: "unknown", reason: error.message }
    })
  )
