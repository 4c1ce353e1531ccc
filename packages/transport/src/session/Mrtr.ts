/**
 * Multi-round-trip requests (MCP 2026-07-28 SEP-2322): a `tools/call`, `prompts/get` or `resources/read` may be
 * answered `resultType: "input_required"` with `inputRequests` (elicitation, sampling, roots) and an opaque
 * `requestState`. The client fulfils each input request through the same handlers the legacy era answers server
 * requests with, then sends the request again — a new JSON-RPC id, the caller's params plus `inputResponses`, and
 * `requestState` exactly as received (absent stays absent).
 *
 * Each call keeps its own rounds (nothing is shared between parallel calls), the rounds are bounded, and an input
 * request for a capability the client did not declare is a typed error, never a guess.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { InputRoundsExceeded, InputUnavailable } from "../EraError.ts"
import { ProtocolError } from "../McpError.ts"

/** Methods whose result may ask for input. */
export const METHODS: ReadonlySet<string> = new Set(["tools/call", "prompts/get", "resources/read"])

/** Most `input_required` rounds one call may take. */
export const DEFAULT_MAX_ROUNDS = 8

/**
 * Answers one server request from the client's handlers (roots, elicitation, sampling) with its result; a failure
 * says why in one sentence.
 */
export type Answer = (method: string, params: unknown) => Effect.Effect<unknown, { readonly message: string }>

/** The capability an input request needs, by its method. */
const CAPABILITY: Readonly<Record<string, string>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots"
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What one round's answer says: done, or the next round's `inputResponses` and `requestState`. */
export interface Round {
  readonly inputResponses: Record<string, unknown>
  /** Present exactly when the server sent one. */
  readonly requestState?: unknown
}

/**
 * Answers every input request of `result` (its `inputRequests`) from the client's handlers: an `inputResponses`
 * record, and the `requestState` when the server sent one. An input request for a capability the client did not
 * declare, or with no handler, is `InputUnavailable`; one that is not an object with a `method`, a `ProtocolError`.
 */
export const answerAll: (
  options: {
    readonly server: string
    readonly method: string
    readonly capabilities: Readonly<Record<string, unknown>>
    readonly answer: Answer | undefined
  },
  result: Record<string, unknown>
) => Effect.Effect<Round, ProtocolError | InputUnavailable> = Effect.fnUntraced(function*(options, result) {
  const { method, server } = options
  const requests = result["inputRequests"] ?? {}
  if (!isRecord(requests)) {
    return yield* new ProtocolError({ server, method, detail: "inputRequests is not an object" })
  }
  const inputResponses: Record<string, unknown> = {}
  for (const [key, request] of Object.entries(requests)) {
    const inputMethod = isRecord(request) && typeof request["method"] === "string" ? request["method"] : undefined
    if (inputMethod === undefined) {
      return yield* new ProtocolError({ server, method, detail: `input request ${JSON.stringify(key)} has no method` })
    }
    const unavailable = (reason: string) => new InputUnavailable({ server, method, inputMethod, reason })
    const capability = CAPABILITY[inputMethod]
    if (capability === undefined) return yield* unavailable("it is not an input request this client knows")
    if (options.capabilities[capability] === undefined) {
      return yield* unavailable(`the client did not declare the ${capability} capability`)
    }
    if (options.answer === undefined) return yield* unavailable(`no ${capability} handler was provided`)
    inputResponses[key] = yield* options.answer(inputMethod, isRecord(request) ? request["params"] : undefined)
      .pipe(Effect.mapError((error) => unavailable(`its handler failed: ${error.message}`)))
  }
  return "requestState" in result ? { inputResponses, requestState: result["requestState"] } : { inputResponses }
})

/** Runs `send(params)`, and again with the input each `input_required` answer asks for, until a result is complete. */
export const run = <E>(options: {
  readonly server: string
  readonly method: string
  readonly params: unknown
  readonly maxRounds: number
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly answer: Answer | undefined
  /** Sends the request once (a new JSON-RPC id each time) and checks its `resultType`. */
  readonly send: (params: unknown) => Effect.Effect<unknown, E>
}): Effect.Effect<unknown, E | ProtocolError | InputRoundsExceeded | InputUnavailable> => {
  const { method, server } = options

  const fulfil = (result: Record<string, unknown>) => answerAll(options, result)

  const withRound = (round: Round): unknown => {
    const base = isRecord(options.params) ? options.params : {}
    const next: Record<string, unknown> = { ...base, inputResponses: round.inputResponses }
    delete next["requestState"]
    if ("requestState" in round) next["requestState"] = round.requestState
    return next
  }

  const loop = (
    params: unknown,
    rounds: number
  ): Effect.Effect<unknown, E | ProtocolError | InputRoundsExceeded | InputUnavailable> =>
    Effect.flatMap(options.send(params), (result) => {
      if (!isRecord(result) || result["resultType"] !== "input_required") return Effect.succeed(result)
      if (rounds >= options.maxRounds) return Effect.fail(new InputRoundsExceeded({ server, method, rounds }))
      return Effect.flatMap(fulfil(result), (round) => loop(withRound(round), rounds + 1))
    })

  return loop(options.params, 0)
}
