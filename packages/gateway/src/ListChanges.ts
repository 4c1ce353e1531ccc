/**
 * Real changes only, coalesced: turns "something may have changed" events (the manager's `changes`, its
 * `snapshots`, a config reload) into the `list_changed` notifications a host should get.
 *
 * **Contract** of {@link watch}:
 * - It reads the catalog the host sees once when the stream starts (the baseline; nothing is emitted for it).
 * - Each trigger starts (or restarts) a quiet `window` measured with `Clock` (default 100 ms); when the window
 *   passes with no further trigger, it reads the catalog once and emits the kinds (`prompts`, `resources`,
 *   `tools`, in that order) whose fingerprint differs from the last emitted one, then that becomes the baseline.
 *   Nothing is emitted when no fingerprint changed: a reconnect that lists the same tools, a state change that
 *   leaves the catalog alone, or a change undone within the window.
 * - The fingerprint of a kind is the FNV-1a 64 of its items as canonical JSON (object keys sorted at every
 *   depth) in code-unit order of the item's name (or URI): order of items and keys does not matter, any other
 *   difference (a description, a schema) does.
 * - `every` adds a trigger on a fixed `Clock` spacing, for sources that send no event.
 *
 * Feed it the catalog the host actually sees (after grace periods, filters and naming), so that what is
 * compared is what the host would list.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { canonicalJson } from "./internal/canonical.ts"
import * as Fnv from "./internal/fnv.ts"

/**
 * The kinds of list a host is told about.
 *
 * @since 0.1.0
 * @category models
 */
export type Kind = "prompts" | "resources" | "tools"

/**
 * The catalog a host sees: its tools, its resources and resource templates, its prompts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Catalog {
  readonly tools: ReadonlyArray<{ readonly name: string }>
  readonly resources: ReadonlyArray<{ readonly uri: string }>
  readonly resourceTemplates: ReadonlyArray<{ readonly uriTemplate: string }>
  readonly prompts: ReadonlyArray<{ readonly name: string }>
}

/**
 * One fingerprint per kind.
 *
 * @since 0.1.0
 * @category models
 */
export type Fingerprints = { readonly [K in Kind]: string }

const KINDS: ReadonlyArray<Kind> = ["prompts", "resources", "tools"]

const sortedBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string): Array<A> =>
  [...items].sort((a, b) => {
    const x = key(a)
    const y = key(b)
    return x < y ? -1 : x > y ? 1 : 0
  })

const hash = (value: unknown): string => Fnv.base32(canonicalJson(value), 13)

/**
 * The fingerprints of a catalog (see the module's contract).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fingerprint = (catalog: Catalog): Fingerprints => ({
  tools: hash(sortedBy(catalog.tools, (t) => t.name)),
  resources: hash([
    sortedBy(catalog.resources, (r) => r.uri),
    sortedBy(catalog.resourceTemplates, (t) => t.uriTemplate)
  ]),
  prompts: hash(sortedBy(catalog.prompts, (p) => p.name))
})

/**
 * The kinds whose fingerprint differs, in the order `prompts`, `resources`, `tools`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const diff = (before: Fingerprints, after: Fingerprints): ReadonlyArray<Kind> =>
  KINDS.filter((kind) => before[kind] !== after[kind])

/**
 * The options of {@link watch}.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options<R> {
  /** Anything that may change the catalog. Its values are ignored. */
  readonly triggers: Stream.Stream<unknown, never, R>
  /** Reads the catalog the host sees now. */
  readonly read: Effect.Effect<Catalog, never, R>
  /** The quiet time that ends a burst of triggers. Default 100 ms. */
  readonly window?: Duration.Input | undefined
  /** Also check on this fixed spacing. Default: only on triggers. */
  readonly every?: Duration.Input | undefined
}

/**
 * The list changes to notify, one element per burst that really changed something (see the module's contract).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ListChanges } from "@mcp-fleet/gateway"
 * import { McpManager } from "@mcp-fleet/manager"
 *
 * const notifications = Effect.gen(function*() {
 *   const manager = yield* McpManager.McpManager
 *   return ListChanges.watch({
 *     triggers: manager.changes,
 *     read: Effect.sync(() => ({
 *       tools: manager.tools().map((t) => t.tool),
 *       resources: manager.resources().map((r) => r.resource),
 *       resourceTemplates: manager.resourceTemplates().map((t) => t.template),
 *       prompts: manager.prompts().map((p) => p.prompt)
 *     }))
 *   })
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const watch = <R>(options: Options<R>): Stream.Stream<ReadonlyArray<Kind>, never, R> =>
  Stream.unwrap(Effect.gen(function*() {
    const last = yield* Ref.make(fingerprint(yield* options.read))
    const ticks = options.every === undefined
      ? Stream.empty
      : Stream.fromSchedule(Schedule.spaced(options.every))
    return Stream.merge(options.triggers, ticks).pipe(
      Stream.debounce(options.window ?? "100 millis"),
      Stream.mapEffect(() => options.read),
      Stream.mapEffect((catalog) =>
        Ref.modify(last, (before) => {
          const after = fingerprint(catalog)
          return [diff(before, after), after] as const
        })
      ),
      Stream.filter((kinds) => kinds.length > 0)
    )
  }))
