/**
 * The cursor loop shared by every paginated list (`tools/list` today; `resources/list` and `prompts/list` go
 * through it too): follow `nextCursor` until the list ends (the era's `endsList`: absent, or `""` in the legacy
 * era), refuse a repeated cursor (it would loop forever) and stop at `maxPages` with an error rather than a silently
 * truncated list.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { ProtocolError } from "../McpError.ts"
import { PageCapExceeded, RepeatedCursor } from "../McpError.ts"

/** One decoded page: its items (undecoded, so that one bad item can be skipped) and its cursor. */
export interface Page {
  readonly items: ReadonlyArray<unknown>
  readonly nextCursor?: string | undefined
}

/**
 * Lists `method` page by page, handing each page's items to `onItems` as it comes; returns the number of pages.
 * `fetch` sends one page request with the given params; `page` decodes its envelope.
 */
export const collect = <E, R>(options: {
  readonly server: string
  readonly method: string
  readonly maxPages: number
  /** Whether a page whose `nextCursor` is `next` is the last one (the era's rule: see `session/Era.ts`). */
  readonly endsList: (next: string | undefined) => next is undefined | ""
  readonly fetch: (params: { readonly cursor?: string }) => Effect.Effect<unknown, E, R>
  readonly page: (raw: unknown) => Exit.Exit<Page, ProtocolError>
  readonly onItems: (items: ReadonlyArray<unknown>) => void
}): Effect.Effect<number, E | ProtocolError | RepeatedCursor | PageCapExceeded, R> =>
  Effect.suspend(() => {
    const { method, server } = options
    const seen = new Set<string>()
    // A flatMap chain, not `Effect.gen`: each page's raw answer is garbage once its items are handed on, instead of
    // being held by the generator's frame while the next page is awaited (same-run A/B in BENCHMARKS.md).
    const step = (
      cursor: string | undefined,
      page: number
    ): Effect.Effect<number, E | ProtocolError | RepeatedCursor | PageCapExceeded, R> =>
      Effect.flatMap(options.fetch(cursor === undefined ? {} : { cursor }), (raw) => {
        const decoded = options.page(raw)
        if (Exit.isFailure(decoded)) return Effect.failCause(decoded.cause)
        options.onItems(decoded.value.items)
        const next = decoded.value.nextCursor
        if (options.endsList(next)) return Effect.succeed(page)
        if (seen.has(next)) return Effect.fail(new RepeatedCursor({ server, method, page }))
        if (page >= options.maxPages) return Effect.fail(new PageCapExceeded({ server, method, pages: page }))
        seen.add(next)
        return step(next, page + 1)
      })
    return step(undefined, 1)
  })
