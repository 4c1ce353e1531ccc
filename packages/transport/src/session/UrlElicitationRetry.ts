/**
 * `-32042` (URL elicitation required, 2025-11-25), answered: a request the server refuses until the user has
 * completed some URL-mode elicitations fails with `UrlElicitationRequired`, carrying them; with a URL-mode
 * elicitation handler, the client first hands each one to it (in order, each under the handler's own timeout, its
 * id watched for the server's completion notification), and once every one is accepted it sends the request again,
 * once. A second `-32042` is not completed again (`repeated`): a server that keeps asking cannot loop the client.
 *
 * Era-neutral: the error is the same in both eras, and the retry is a new request through the era's own path.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Elicitation from "../Elicitation.ts"
import { millis } from "../internal/Durations.ts"
import { RemoteError, UrlElicitationRequired } from "../McpError.ts"
import type { UrlElicitationOutcome } from "../McpError.ts"
import type { Completions } from "./ElicitationCompletions.ts"
import { TIMEOUT_MS } from "./ServerRequest.ts"

/** The JSON-RPC code of "URL elicitation required". */
export const CODE = -32042

const decodeData = Schema.decodeUnknownOption(
  Schema.Struct({ elicitations: Schema.NonEmptyArray(Elicitation.RequiredElicitation) })
)

/**
 * The elicitations a `-32042` error requires; `undefined` for any other error, and for a `-32042` whose data is not a
 * list of URL-mode elicitations with absolute URLs (the server broke the rule: its error stays a `RemoteError`).
 */
export const required = (error: unknown): ReadonlyArray<Elicitation.RequiredElicitation> | undefined => {
  if (!(error instanceof RemoteError) || error.code !== CODE) return undefined
  const data = decodeData(error.data)
  if (Option.isNone(data)) return undefined
  return data.value.elicitations.every((elicitation) => URL.canParse(elicitation.url))
    ? data.value.elicitations
    : undefined
}

/** What the retry needs of its session. */
export interface Config {
  readonly server: string
  /** The client's elicitation handlers (only `url` is used here). */
  readonly elicitation: Elicitation.Service | undefined
  readonly completions: Completions
}

/** Wraps one request (`attempt`, sent again as it is for the retry). */
export const make = (config: Config) => {
  const { server } = config
  const fail = (
    method: string,
    elicitations: ReadonlyArray<Elicitation.RequiredElicitation>,
    outcome: UrlElicitationOutcome
  ) => Effect.fail(new UrlElicitationRequired({ server, method, elicitations, outcome }))

  /** Hands one elicitation to the handler: `undefined` when accepted, else why not. */
  const complete = (
    handle: NonNullable<Elicitation.Service["url"]>,
    elicitation: Elicitation.RequiredElicitation
  ): Effect.Effect<UrlElicitationOutcome | undefined> => {
    const { completion, release } = config.completions.watch(elicitation.elicitationId)
    const request: Elicitation.UrlRequest = {
      _tag: "Url",
      server,
      message: elicitation.message,
      elicitationId: elicitation.elicitationId,
      url: elicitation.url,
      completion
    }
    return Effect.suspend(() => handle(request)).pipe(
      Effect.timeoutOption(millis(config.elicitation?.timeout, TIMEOUT_MS.elicitation)),
      Effect.map((answer): UrlElicitationOutcome | undefined => {
        if (Option.isNone(answer)) return "failed"
        switch (answer.value.action) {
          case "accept":
            return undefined
          case "decline":
            return "declined"
          case "cancel":
            return "cancelled"
        }
      }),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.interrupt
          : Effect.logWarning("the client's URL elicitation handler failed", cause).pipe(Effect.as("failed" as const))
      ),
      Effect.ensuring(Effect.sync(release)),
      Effect.annotateLogs({ mcpServer: server, elicitationId: elicitation.elicitationId })
    )
  }

  return <A, E>(method: string, attempt: Effect.Effect<A, E>): Effect.Effect<A, E | UrlElicitationRequired> =>
    Effect.catch(attempt, (error): Effect.Effect<A, E | UrlElicitationRequired> => {
      const elicitations = required(error)
      if (elicitations === undefined) return Effect.fail(error)
      const handle = config.elicitation?.url
      if (handle === undefined) return fail(method, elicitations, "unhandled")
      return Effect.gen(function*() {
        for (const elicitation of elicitations) {
          const outcome = yield* complete(handle, elicitation)
          if (outcome !== undefined) return yield* fail(method, elicitations, outcome)
        }
        // Once: a second -32042 is the server asking again, not something to complete again.
        return yield* Effect.catch(attempt, (again): Effect.Effect<A, E | UrlElicitationRequired> => {
          const still = required(again)
          return still === undefined ? Effect.fail(again) : fail(method, still, "repeated")
        })
      })
    })
}
