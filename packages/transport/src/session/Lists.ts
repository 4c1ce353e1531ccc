/**
 * Paginated lists other than tools (`resources/list`, `resources/templates/list`, `prompts/list`), assembled as the
 * tool list is: the shared cursor loop (`internal/CursorLoop.ts`: same cursor rules, same page cap), each item
 * decoded on its own (one bad item is skipped and reported, never the whole list lost), and the first item of a key
 * kept (a later one is reported, never merged). A session's lists go through its list cache (`ttlMs`/`cacheScope`,
 * 2026-07-28: `internal/ListCache.ts`), as `tools/list` does: within the TTL a list is answered without a request.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as CursorLoop from "../internal/CursorLoop.ts"
import * as ListCache from "../internal/ListCache.ts"
import { schemaDetail } from "../internal/SchemaDetail.ts"
import type { PageCapExceeded, RepeatedCursor } from "../McpError.ts"
import { ProtocolError } from "../McpError.ts"
import type { Context, FeatureOptions } from "./Context.ts"
import type { Era } from "./Era.ts"
import type { Skipped } from "./ToolList.ts"

/**
 * What a listing returns, whatever the item: the items, what was skipped and why, and how many pages it took.
 *
 * @since 0.3.0
 * @category models
 */
export interface Listed<A> {
  readonly items: ReadonlyArray<A>
  /** Listed items left out: not decodable, or a key listed before. `index` counts every listed item, across pages. */
  readonly skipped: ReadonlyArray<Skipped>
  readonly pages: number
}

/** What one list method is: its result field, its item schema and the key that must be unique. */
export interface Spec<S extends Schema.Top> {
  readonly method: string
  readonly field: string
  readonly item: S
  /** The field naming an item uniquely (`uri`, `uriTemplate`, `name`). */
  readonly keyField: string
  readonly key: (item: S["Type"]) => string
}

/** A page's envelope: its items are checked apart (their field differs per method). */
const Envelope = Schema.StructWithRest(Schema.Struct({ nextCursor: Schema.optionalKey(Schema.String) }), [
  Schema.Record(Schema.String, Schema.Unknown)
])

const fieldOf = (value: unknown, field: string): unknown =>
  typeof value === "object" && value !== null ? Object.entries(value).find(([key]) => key === field)?.[1] : undefined

const stringField = (value: unknown, field: string): string | undefined => {
  const found = fieldOf(value, field)
  return typeof found === "string" ? found : undefined
}

/** Lists every item of `spec.method`, following the cursor through `fetch`. */
export const collect = <S extends Schema.Top & Schema.ConstraintDecoder<unknown>, E>(
  spec: Spec<S>,
  options: {
    readonly server: string
    readonly maxPages: number
    /** The era's rule for the last page (`session/Era.ts`). */
    readonly endsList: (next: string | undefined) => next is undefined | ""
    readonly scrub: (text: string) => string
    readonly fetch: (params: { readonly cursor?: string }) => Effect.Effect<unknown, E>
  }
): Effect.Effect<Listed<S["Type"]>, E | ProtocolError | RepeatedCursor | PageCapExceeded> => {
  const { scrub, server } = options
  const decodeItem = Schema.decodeUnknownExit(spec.item)
  const decodePage = Schema.decodeUnknownExit(Envelope)
  const items: Array<S["Type"]> = []
  const skipped: Array<Skipped> = []
  const firstIndex = new Map<string, number>()
  const add = (page: ReadonlyArray<unknown>) => {
    for (const raw of page) {
      const index = items.length + skipped.length
      const decoded = decodeItem(raw)
      if (Exit.isFailure(decoded)) {
        const name = stringField(raw, "name")
        skipped.push({
          index,
          name: name === undefined ? undefined : scrub(name),
          reason: scrub(schemaDetail(decoded.cause))
        })
        continue
      }
      const key = spec.key(decoded.value)
      const first = firstIndex.get(key)
      if (first !== undefined) {
        skipped.push({
          index,
          name: stringField(decoded.value, "name"),
          reason: `another item with ${spec.keyField} ${
            JSON.stringify(key)
          } was listed before it (index ${first}); the first is kept`
        })
        continue
      }
      firstIndex.set(key, index)
      items.push(decoded.value)
    }
  }
  return CursorLoop.collect({
    server,
    method: spec.method,
    maxPages: options.maxPages,
    endsList: options.endsList,
    fetch: options.fetch,
    page: (raw) => {
      const decoded = decodePage(raw)
      const page = fieldOf(raw, spec.field)
      if (Exit.isFailure(decoded) || !Array.isArray(page)) {
        const detail = Exit.isFailure(decoded)
          ? scrub(schemaDetail(decoded.cause))
          : `the result has no ${JSON.stringify(spec.field)} array`
        return Exit.fail(new ProtocolError({ server, method: spec.method, detail }))
      }
      return Exit.succeed({ items: page, nextCursor: decoded.value.nextCursor })
    },
    onItems: add
  }).pipe(Effect.map((pages): Listed<S["Type"]> => ({ items, skipped, pages })))
}

/**
 * The list method `spec` of a session: `collect` over its request path, through a cache of the session's list
 * caches when it has them (a fresh entry answers without a request; see `internal/ListCache.ts`).
 */
export const lister = <S extends Schema.Top & Schema.ConstraintDecoder<unknown>>(context: Context, spec: Spec<S>) => {
  const lists = context.lists
  const cache = lists?.cache<Listed<S["Type"]>>()
  return (era: Era, options: FeatureOptions | undefined) => {
    const run = (seen: <T>(raw: T) => T) =>
      collect(spec, {
        server: context.server,
        maxPages: context.maxPages,
        endsList: era.endsList,
        scrub: context.scrub,
        fetch: (params) => Effect.map(context.request(spec.method, params, options), seen)
      })
    return lists === undefined || cache === undefined
      ? run((raw) => raw)
      : ListCache.through(cache, spec.method, lists.now, run)
  }
}
