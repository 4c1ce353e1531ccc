/**
 * The client → server features beyond tools, assembled for one session: resources, prompts, completion, the
 * server's log level and log stream, list-change events and `callToolStream`.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type { CallToolResult } from "../Protocol.ts"
import type { LoggingLevel, LoggingMessage } from "../ProtocolFeatures.ts"
import * as Completion from "./Completion.ts"
import type { Context, FeatureError, FeatureOptions, ToolCallOptions as CallOptions } from "./Context.ts"
import { gated } from "./Context.ts"
import type { CallEvent } from "./Progress.ts"
import * as Prompts from "./Prompts.ts"
import * as Resources from "./Resources.ts"
import * as SkillMethods from "./SkillMethods.ts"

export type { FeatureError, FeatureListError, FeatureOptions, ToolCallOptions } from "./Context.ts"

/**
 * Which list a `notifications/…/list_changed` says changed.
 *
 * @since 0.3.0
 * @category models
 */
export type ListKind = "tools" | "resources" | "prompts"

/**
 * Every client → server feature method beyond tools.
 *
 * @since 0.3.0
 * @category models
 */
export interface Features
  extends Resources.Resources, Prompts.Prompts, Completion.Completion, SkillMethods.SkillMethods
{
  /** Sets the least severe level the server sends (`logging/setLevel`; needs the `logging` capability). */
  readonly setLogLevel: (level: LoggingLevel, options?: FeatureOptions) => Effect.Effect<void, FeatureError>
  /** The server's log entries that passed the rate limit, from the moment the stream runs. */
  readonly logMessages: Stream.Stream<LoggingMessage>
  /** `tools`, `resources` or `prompts` each time the server says that list changed. */
  readonly listChanges: Stream.Stream<ListKind>
}

const LIST_CHANGED: Readonly<Record<string, ListKind>> = {
  "notifications/tools/list_changed": "tools",
  "notifications/resources/list_changed": "resources",
  "notifications/prompts/list_changed": "prompts"
}

/** Builds the feature methods over `context`. */
export const make = (context: Context): Features => {
  const resources = Resources.make(context)
  return {
    ...resources,
    ...SkillMethods.make(context, resources),
    ...Prompts.make(context),
    ...Completion.make(context),
    setLogLevel: (level, options) =>
      gated(
        context,
        "setLogLevel",
        "logging/setLevel",
        "logging",
        options,
        () => Effect.asVoid(context.request("logging/setLevel", { level }, options))
      ),
    logMessages: context.logMessages,
    listChanges: context.notifications.pipe(
      Stream.filterMap((notification) => {
        const kind = Object.hasOwn(LIST_CHANGED, notification.method) ? LIST_CHANGED[notification.method] : undefined
        return kind === undefined ? Result.failVoid : Result.succeed(kind)
      })
    )
  }
}

/**
 * The feature methods of anything that has them (an adapter copies them from a session).
 *
 * @since 0.3.0
 * @category constructors
 */
export const pick = (from: Features): Features => ({
  listResources: from.listResources,
  listResourceTemplates: from.listResourceTemplates,
  readResource: from.readResource,
  subscribeResource: from.subscribeResource,
  unsubscribeResource: from.unsubscribeResource,
  resourceUpdates: from.resourceUpdates,
  listPrompts: from.listPrompts,
  getPrompt: from.getPrompt,
  complete: from.complete,
  setLogLevel: from.setLogLevel,
  logMessages: from.logMessages,
  listChanges: from.listChanges,
  listSkills: from.listSkills,
  getSkill: from.getSkill,
  loadSkill: from.loadSkill
})

/**
 * `callTool` as a stream: each progress report, then the result (the stream's last element); the call's error is the
 * stream's error.
 *
 * @since 0.3.0
 * @category constructors
 */
export const callToolStream = <E>(
  callTool: (options: CallOptions) => Effect.Effect<CallToolResult, E>,
  options?: CallOptions
): Stream.Stream<CallEvent<CallToolResult>, E> =>
  Stream.callback<CallEvent<CallToolResult>, E>((queue) =>
    callTool({
      ...options,
      onProgress: (progress) =>
        Effect.andThen(
          options?.onProgress?.(progress) ?? Effect.void,
          Queue.offer(queue, { _tag: "Progress", progress })
        )
    }).pipe(
      Effect.flatMap((result) => Queue.offer(queue, { _tag: "Result", result })),
      Effect.andThen(Queue.end(queue))
    )
  )
