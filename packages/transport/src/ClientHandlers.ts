/**
 * The client's answers to what servers ask of it (`roots/list`, `elicitation/create`, `sampling/createMessage`),
 * and the capabilities they declare.
 *
 * Each handler is optional. The capabilities sent in `initialize` are derived from the handlers present: a client
 * with none declares `{}`, and a request for a method without a handler is answered -32601.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Elicitation from "./Elicitation.ts"
import * as Roots from "./Roots.ts"
import * as Sampling from "./Sampling.ts"

/**
 * The handlers of one client.
 *
 * @since 0.2.0
 * @category models
 */
export interface ClientHandlers {
  readonly roots?: Roots.Service | undefined
  readonly elicitation?: Elicitation.Service | undefined
  readonly sampling?: Sampling.Service | undefined
}

/**
 * What became of the server's requests (other than `ping`), by outcome: answered; -32601 for want of a handler
 * (`unhandled`); bad params or a mode without a handler (`invalid`); refused by the host; the handler failed, died
 * or answered something invalid (`failed`); `timedOut`; `cancelled` by the server before the answer.
 *
 * @since 0.2.0
 * @category models
 */
export interface HandlerStats {
  readonly answered: number
  readonly unhandled: number
  readonly invalid: number
  readonly refused: number
  readonly failed: number
  readonly timedOut: number
  readonly cancelled: number
}

/**
 * The capabilities to declare: the explicit ones as given, then one entry per handler present (`roots` with
 * `listChanged`, `sampling` with `tools` and `context` when its handler takes them, `elicitation` with the modes that
 * have a handler).
 *
 * @since 0.2.0
 * @category capabilities
 */
export const capabilities = (
  handlers: ClientHandlers,
  explicit: Readonly<Record<string, unknown>> = {}
): Readonly<Record<string, unknown>> => {
  const { elicitation, roots, sampling } = handlers
  const modes = {
    ...(elicitation?.form !== undefined ? { form: {} } : {}),
    ...(elicitation?.url !== undefined ? { url: {} } : {})
  }
  return {
    ...explicit,
    ...(roots !== undefined ? { roots: { listChanged: true } } : {}),
    ...(sampling !== undefined
      ? {
        sampling: {
          ...(sampling.tools === true ? { tools: {} } : {}),
          ...(sampling.context !== undefined ? { context: {} } : {})
        }
      }
      : {}),
    ...(Object.keys(modes).length > 0 ? { elicitation: modes } : {})
  }
}

/**
 * The handlers given, each missing one taken from the `Roots`, `Elicitation` or `Sampling` service when the
 * program provides it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromContext: (given: ClientHandlers | undefined) => Effect.Effect<ClientHandlers> = Effect.fnUntraced(
  function*(given: ClientHandlers | undefined) {
    const roots = given?.roots ?? Option.getOrUndefined(yield* Effect.serviceOption(Roots.Roots))
    const elicitation = given?.elicitation ??
      Option.getOrUndefined(yield* Effect.serviceOption(Elicitation.Elicitation))
    const sampling = given?.sampling ?? Option.getOrUndefined(yield* Effect.serviceOption(Sampling.Sampling))
    return { roots, elicitation, sampling }
  }
)
