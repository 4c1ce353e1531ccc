/**
 * Answering one request a server sent (`roots/list`, `elicitation/create`, `sampling/createMessage`) with the
 * client's handlers: method and params in, the JSON-RPC `result` or error out.
 *
 * Knows nothing of ids, frames or fibers: the dispatcher runs it and writes the reply, and the 2026-07-28 era's
 * `inputRequests` (several requests inside one result) can run it the same way. Each handler is bounded by its
 * own timeout; its failure or defect becomes an error (the details are logged here, never sent to the server),
 * and a method without a handler is -32601. Interruption (the server cancelled) is not caught: no reply is owed.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ClientHandlers } from "../ClientHandlers.ts"
import type * as Elicitation from "../Elicitation.ts"
import type { Failure } from "../internal/Dispatch.ts"
import { millis } from "../internal/Durations.ts"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import * as Sampling from "../Sampling.ts"
import type { Completions } from "./ElicitationCompletions.ts"
import * as ElicitationForm from "./ElicitationForm.ts"
import * as SamplingCheck from "./SamplingCheck.ts"

export type { Failure }

/** JSON-RPC codes of the replies (`-1` is the spec's "user rejected sampling request"). */
const METHOD_NOT_FOUND = -32601
const INVALID_PARAMS = -32602
const INTERNAL_ERROR = -32603
const REQUEST_TIMEOUT = -32001
const REJECTED = -1

const fail = (kind: Failure["kind"], code: number, message: string): Effect.Effect<never, Failure> =>
  Effect.fail({ kind, code, message })

/** The default bound of each handler. */
export const TIMEOUT_MS = { roots: 10_000, elicitation: 600_000, sampling: 300_000 } as const

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Builds the answerer of one client (`server` is the label of the server it talks to, given to the handlers
 * and to the logs; `completions` routes the server's `notifications/elicitation/complete` to URL-mode handlers).
 */
export const make = (handlers: ClientHandlers, server: string, completions: Completions) => {
  /** Runs one handler under its timeout; every outcome but success and interruption becomes a `Failure`. */
  const guard = <A>(
    what: keyof typeof TIMEOUT_MS,
    timeout: Duration.Input | undefined,
    effect: Effect.Effect<A, unknown>
  ): Effect.Effect<A, Failure> => {
    const ms = millis(timeout, TIMEOUT_MS[what])
    return Effect.suspend(() => effect).pipe(
      Effect.timeoutOption(ms),
      Effect.catchCause((cause): Effect.Effect<Option.Option<A>, Failure> => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
        const error = Cause.findErrorOption(cause)
        if (Option.isSome(error) && error.value instanceof Sampling.SamplingRefused) {
          return fail("refused", REJECTED, `User rejected sampling request: ${error.value.reason}`)
        }
        return Effect.logWarning(`the client's ${what} handler failed`, cause).pipe(
          Effect.andThen(fail("failed", INTERNAL_ERROR, `The client's ${what} handler failed.`))
        )
      }),
      Effect.flatMap((answer) =>
        Option.isSome(answer)
          ? Effect.succeed(answer.value)
          : fail("timedOut", REQUEST_TIMEOUT, `The client's ${what} handler did not answer within ${ms} ms.`)
      )
    )
  }

  const roots = (service: NonNullable<ClientHandlers["roots"]>) =>
    Effect.map(guard("roots", service.timeout, service.list), (list) => ({
      roots: list.map((root) => root.name === undefined ? { uri: root.uri } : { uri: root.uri, name: root.name })
    }))

  /** An answer as sent: an accepted form's content checked first. */
  const answerOf = (
    answer: Elicitation.Answer,
    check: ElicitationForm.Check | undefined
  ): Effect.Effect<unknown, Failure> => {
    if (answer.action !== "accept") return Effect.succeed({ action: answer.action })
    if (check === undefined) return Effect.succeed({ action: "accept" })
    const content = answer.content ?? {}
    const wrong = check(content)
    return wrong === undefined
      ? Effect.succeed({ action: "accept", content })
      : Effect.logWarning(`the client's elicitation answer does not match the requested schema: ${wrong}`).pipe(
        Effect.andThen(fail("failed", INTERNAL_ERROR, `The client's answer does not match the requested schema.`))
      )
  }

  const elicit = (service: NonNullable<ClientHandlers["elicitation"]>, params: unknown) => {
    if (!isRecord(params) || typeof params["message"] !== "string") {
      return fail("invalid", INVALID_PARAMS, "elicitation/create needs params with a message")
    }
    const message = params["message"]
    const mode = params["mode"] ?? "form"
    if (mode === "url") {
      const { elicitationId, url } = params
      if (typeof elicitationId !== "string" || typeof url !== "string" || !URL.canParse(url)) {
        return fail("invalid", INVALID_PARAMS, "a URL-mode elicitation needs an elicitationId and an absolute url")
      }
      const handle = service.url
      if (handle === undefined) {
        return fail("invalid", INVALID_PARAMS, "This client does not support URL-mode elicitation.")
      }
      // Watched while the handler has it: the server's completion notification completes `completion`.
      const { completion, release } = completions.watch(elicitationId)
      const request: Elicitation.UrlRequest = { _tag: "Url", server, message, elicitationId, url, completion }
      return Effect.flatMap(
        guard("elicitation", service.timeout, handle(request)).pipe(Effect.ensuring(Effect.sync(release))),
        (answer) => answerOf(answer, undefined)
      )
    }
    if (mode !== "form") return fail("invalid", INVALID_PARAMS, `unknown elicitation mode ${JSON.stringify(mode)}`)
    const handle = service.form
    if (handle === undefined) {
      return fail("invalid", INVALID_PARAMS, "This client does not support form-mode elicitation.")
    }
    const schema = ElicitationForm.readSchema(params["requestedSchema"])
    if (typeof schema === "string") return fail("invalid", INVALID_PARAMS, schema)
    const check = ElicitationForm.compile(schema)
    if (typeof check === "string") return fail("invalid", INVALID_PARAMS, check)
    const request: Elicitation.FormRequest = {
      _tag: "Form",
      server,
      message,
      requestedSchema: schema,
      values: ElicitationForm.defaults(schema)
    }
    return Effect.flatMap(guard("elicitation", service.timeout, handle(request)), (answer) => answerOf(answer, check))
  }

  const decodeParams = Schema.decodeUnknownExit(Sampling.CreateMessageParams)
  const decodeResult = Schema.decodeUnknownExit(Sampling.CreateMessageResult)

  const sample = (service: NonNullable<ClientHandlers["sampling"]>, raw: unknown) => {
    const params = decodeParams(raw)
    if (Exit.isFailure(params)) {
      return fail("invalid", INVALID_PARAMS, `sampling/createMessage params: ${schemaDetail(params.cause)}`)
    }
    const broken = SamplingCheck.request(params.value, service.tools === true)
    if (broken !== undefined) return fail("invalid", INVALID_PARAMS, broken)
    const include = params.value.includeContext
    const provider = service.context
    // `includeContext` (see Sampling): without a provider nothing is attached, and the handler can tell.
    const context: Effect.Effect<string | undefined, unknown> =
      provider === undefined || include === undefined || include === "none"
        ? Effect.succeed(undefined)
        : provider({ server, include })
    const answer = Effect.flatMap(
      context,
      (context) =>
        service.createMessage({ server, params: params.value, ...(context === undefined ? {} : { context }) })
    )
    return guard("sampling", service.timeout, answer).pipe(
      Effect.flatMap((result) => {
        const decoded = decodeResult(result)
        if (Exit.isFailure(decoded)) {
          return Effect.logWarning(`the client's sampling answer is not a message: ${schemaDetail(decoded.cause)}`)
            .pipe(
              Effect.andThen(fail("failed", INTERNAL_ERROR, "The client's sampling handler answered no message."))
            )
        }
        const wrong = SamplingCheck.answer(params.value, decoded.value)
        return wrong === undefined
          ? Effect.succeed(decoded.value)
          : Effect.logWarning(`the client's sampling answer breaks a rule of sampling with tools: ${wrong}`).pipe(
            Effect.andThen(fail("failed", INTERNAL_ERROR, "The client's sampling handler answered an invalid message."))
          )
      })
    )
  }

  /** Answers one server request: its `result`, or the error to reply with. */
  return (method: string, params: unknown): Effect.Effect<unknown, Failure> => {
    const unhandled = () => fail("unhandled", METHOD_NOT_FOUND, `Method not found: ${method}`)
    const answer = (() => {
      switch (method) {
        case "roots/list":
          return handlers.roots === undefined ? unhandled() : roots(handlers.roots)
        case "elicitation/create":
          return handlers.elicitation === undefined ? unhandled() : elicit(handlers.elicitation, params)
        case "sampling/createMessage":
          return handlers.sampling === undefined ? unhandled() : sample(handlers.sampling, params)
        default:
          return unhandled()
      }
    })()
    return answer.pipe(Effect.annotateLogs({ mcpServer: server, mcpMethod: method }))
  }
}
