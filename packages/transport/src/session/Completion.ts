/**
 * Completion: `completion/complete` for an argument of a prompt or a variable of a resource template.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import type { CompleteResult, CompletionReference } from "../ProtocolFeatures.ts"
import * as Wire from "../ProtocolFeatures.ts"
import type { Context, FeatureError, FeatureOptions } from "./Context.ts"
import { decodeWith, gated } from "./Context.ts"

/**
 * The argument being completed: its name and what the user typed so far.
 *
 * @since 0.3.0
 * @category models
 */
export interface CompletionArgument {
  readonly name: string
  readonly value: string
}

/**
 * Arguments already resolved, which a server may use to narrow its suggestions.
 *
 * @since 0.3.0
 * @category models
 */
export interface CompletionContext {
  readonly arguments?: Readonly<Record<string, string>> | undefined
}

/**
 * The client's completion method.
 *
 * @since 0.3.0
 * @category models
 */
export interface Completion {
  /** Suggestions for `argument` of `ref` (needs the server's `completions` capability). */
  readonly complete: (
    ref: CompletionReference,
    argument: CompletionArgument,
    context?: CompletionContext,
    options?: FeatureOptions
  ) => Effect.Effect<CompleteResult, FeatureError>
}

/** Builds the completion method over `context`. */
export const make = (context: Context): Completion => {
  const decode = decodeWith(context, "completion/complete", Wire.CompleteResult)
  return {
    complete: (ref, argument, completionContext, options) =>
      gated(
        context,
        "complete",
        "completion/complete",
        "completions",
        options,
        () =>
          Effect.flatMap(
            context.request("completion/complete", {
              ref,
              argument: { name: argument.name, value: argument.value },
              ...(completionContext === undefined ? {} : { context: completionContext })
            }, options),
            decode
          )
      )
  }
}
