/**
 * Prompts: `prompts/list` (paginated as tools are) and `prompts/get`.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import type { GetPromptResult } from "../ProtocolFeatures.ts"
import * as Wire from "../ProtocolFeatures.ts"
import type { Context, FeatureError, FeatureListError, FeatureOptions } from "./Context.ts"
import { decodeWith, gated } from "./Context.ts"
import type { Listed } from "./Lists.ts"
import * as Lists from "./Lists.ts"

/**
 * Every prompt of a server, with what was skipped and the number of pages.
 *
 * @since 0.3.0
 * @category models
 */
export interface PromptList extends Omit<Listed<Wire.Prompt>, "items"> {
  readonly prompts: ReadonlyArray<Wire.Prompt>
}

/**
 * The client's prompt methods.
 *
 * @since 0.3.0
 * @category models
 */
export interface Prompts {
  /** Every prompt, following `nextCursor` as `listTools` does (same cursor rules, same page cap). */
  readonly listPrompts: (options?: FeatureOptions) => Effect.Effect<PromptList, FeatureListError>
  /** Renders one prompt with its arguments (strings, as the protocol has them). */
  readonly getPrompt: (
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: FeatureOptions
  ) => Effect.Effect<GetPromptResult, FeatureError>
}

const PROMPTS: Lists.Spec<typeof Wire.Prompt> = {
  method: "prompts/list",
  field: "prompts",
  item: Wire.Prompt,
  keyField: "name",
  key: (prompt) => prompt.name
}

/** Builds the prompt methods over `context`. */
export const make = (context: Context): Prompts => {
  const decodeGet = decodeWith(context, "prompts/get", Wire.GetPromptResult)
  const listPrompts = Lists.lister(context, PROMPTS)
  return {
    listPrompts: (options) =>
      gated(context, "listPrompts", "prompts/list", "prompts", options, (_session, era) => listPrompts(era, options))
        .pipe(Effect.map(({ items, pages, skipped }): PromptList => ({ prompts: items, skipped, pages }))),
    getPrompt: (name, args, options) =>
      gated(
        context,
        "getPrompt",
        "prompts/get",
        "prompts",
        options,
        () =>
          Effect.flatMap(
            context.request("prompts/get", args === undefined ? { name } : { name, arguments: args }, options),
            decodeGet
          )
      )
  }
}
