/**
 * Resources: `resources/list`, `resources/templates/list` (paginated as tools are), `resources/read`,
 * `resources/subscribe` / `resources/unsubscribe`, and `notifications/resources/updated` as a stream per URI. On a
 * 2026-07-28 server a subscription is part of the session's `subscriptions/listen` filter
 * (`resourceSubscriptions`) instead: the open listen is renewed with it, and the next listen carries it.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { ProtocolError } from "../McpError.ts"
import type { ResourceContents, ResourceUpdated } from "../ProtocolFeatures.ts"
import * as Wire from "../ProtocolFeatures.ts"
import type { Context, FeatureError, FeatureListError, FeatureOptions } from "./Context.ts"
import { decodeWith, gated } from "./Context.ts"
import type { Listed } from "./Lists.ts"
import * as Lists from "./Lists.ts"

/**
 * Every resource of a server, with what was skipped and the number of pages.
 *
 * @since 0.3.0
 * @category models
 */
export interface ResourceList extends Omit<Listed<Wire.Resource>, "items"> {
  readonly resources: ReadonlyArray<Wire.Resource>
}

/**
 * Every resource template of a server, with what was skipped and the number of pages.
 *
 * @since 0.3.0
 * @category models
 */
export interface ResourceTemplateList extends Omit<Listed<Wire.ResourceTemplate>, "items"> {
  readonly resourceTemplates: ReadonlyArray<Wire.ResourceTemplate>
}

/**
 * The client's resource methods.
 *
 * @since 0.3.0
 * @category models
 */
export interface Resources {
  /** Every resource, following `nextCursor` as `listTools` does (same cursor rules, same page cap). */
  readonly listResources: (options?: FeatureOptions) => Effect.Effect<ResourceList, FeatureListError>
  /** Every resource template, paginated the same way. */
  readonly listResourceTemplates: (options?: FeatureOptions) => Effect.Effect<ResourceTemplateList, FeatureListError>
  /** Reads one resource: text and blob contents (blobs stay base64: `contentBytes` decodes them). */
  readonly readResource: (uri: string, options?: FeatureOptions) => Effect.Effect<Wire.ReadResourceResult, FeatureError>
  /**
   * Asks for `notifications/resources/updated` about `uri` (needs `resources.subscribe`). On a 2026-07-28 server it
   * is added to the `subscriptions/listen` filter: the updates flow while a listen is open (the manager keeps one).
   */
  readonly subscribeResource: (uri: string, options?: FeatureOptions) => Effect.Effect<void, FeatureError>
  readonly unsubscribeResource: (uri: string, options?: FeatureOptions) => Effect.Effect<void, FeatureError>
  /**
   * `notifications/resources/updated` about `uri` (every URI when absent), from the moment the stream runs (after the
   * session's notification replay). Subscribing is apart: `subscribeResource`.
   */
  readonly resourceUpdates: (uri?: string) => Stream.Stream<ResourceUpdated>
}

const RESOURCES: Lists.Spec<typeof Wire.Resource> = {
  method: "resources/list",
  field: "resources",
  item: Wire.Resource,
  keyField: "uri",
  key: (resource) => resource.uri
}

const TEMPLATES: Lists.Spec<typeof Wire.ResourceTemplate> = {
  method: "resources/templates/list",
  field: "resourceTemplates",
  item: Wire.ResourceTemplate,
  keyField: "uriTemplate",
  key: (template) => template.uriTemplate
}

const decodeUpdated = (params: unknown): ResourceUpdated | undefined =>
  typeof params === "object" && params !== null && "uri" in params && typeof params.uri === "string"
    ? { ...params, uri: params.uri }
    : undefined

/**
 * The bytes of one content item: a blob base64-decoded, a text UTF-8 encoded. A blob that is not base64 is a
 * `ProtocolError` of `resources/read`.
 *
 * @since 0.3.0
 * @category conversions
 */
export const contentBytes = (server: string, content: ResourceContents): Effect.Effect<Uint8Array, ProtocolError> => {
  const text = content["text"]
  if (typeof text === "string") return Effect.succeed(new TextEncoder().encode(text))
  const blob = content["blob"]
  const bytes = Base64.decode(typeof blob === "string" ? blob : "")
  return Result.isSuccess(bytes)
    ? Effect.succeed(bytes.success)
    : Effect.fail(
      new ProtocolError({
        server,
        method: "resources/read",
        detail: `the blob of ${JSON.stringify(content.uri)} is not base64 (${bytes.failure.message})`
      })
    )
}

/** Builds the resource methods over `context`. */
export const make = (context: Context): Resources => {
  const decodeRead = decodeWith(context, "resources/read", Wire.ReadResourceResult)
  const listResources = Lists.lister(context, RESOURCES)
  const listTemplates = Lists.lister(context, TEMPLATES)
  return {
    listResources: (options) =>
      Effect.map(
        gated(context, "listResources", RESOURCES.method, "resources", options, (_session, era) =>
          listResources(era, options)),
        ({ items, pages, skipped }) => ({
          resources: items,
          skipped,
          pages
        })
      ),
    listResourceTemplates: (options) =>
      Effect.map(
        gated(context, "listResourceTemplates", TEMPLATES.method, "resources", options, (_session, era) =>
          listTemplates(era, options)),
        ({ items, pages, skipped }) => ({
          resourceTemplates: items,
          skipped,
          pages
        })
      ),
    readResource: (uri, options) =>
      gated(
        context,
        "readResource",
        "resources/read",
        "resources",
        options,
        () => Effect.flatMap(context.request("resources/read", { uri }, options), decodeRead)
      ),
    subscribeResource: (uri, options) =>
      gated(
        context,
        "subscribeResource",
        "resources/subscribe",
        "resources.subscribe",
        options,
        (_session, era) =>
          era.subscription(uri, true) ?? Effect.asVoid(context.request("resources/subscribe", { uri }, options))
      ),
    unsubscribeResource: (uri, options) =>
      gated(
        context,
        "unsubscribeResource",
        "resources/unsubscribe",
        "resources.subscribe",
        options,
        (_session, era) =>
          era.subscription(uri, false) ??
            Effect.asVoid(context.request("resources/unsubscribe", { uri }, options))
      ),
    resourceUpdates: (uri) =>
      context.notifications.pipe(
        Stream.filterMap((notification) => {
          if (notification.method !== "notifications/resources/updated") return Result.failVoid
          const updated = decodeUpdated(notification.params)
          return updated !== undefined && (uri === undefined || updated.uri === uri)
            ? Result.succeed(updated)
            : Result.failVoid
        })
      )
  }
}
