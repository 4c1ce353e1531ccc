/**
 * The cursor loop shared by every paginated list (`tools/list`, `resources/list`, `prompts/list`…): follow
 * `nextCursor` until it is absent, refuse a repeated cursor (it would loop forever) and stop at `maxPages` with an
 * error rather than a silently truncated list.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { PageCapExceeded, ProtocolError, RepeatedCursor } from "../McpError.ts"

/** Every item of every page, undecoded, and how many pages it took. */
export interface Pages {
  readonly items: ReadonlyArray<unknown>
  readonly pages: number
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Lists `method` page by page; `key` is the array each page holds (`tools`, `resources`, `prompts`). `fetch` sends
 * one page request with the given params.
 */
export const collect = <E, R>(options: {
  readonly server: string
  readonly method: string
  readonly key: string
  readonly maxPages: number
  readonly fetch: (params: { readonly cursor?: string }) => Effect.Effect<unknown, E, R>
}): Effect.Effect<Pages, E | ProtocolError | RepeatedCursor | PageCapExceeded, R> =>
  Effect.gen(function*() {
    const { key, method, server } = options
    const items: Array<unknown> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let page = 1;; page++) {
      const raw = yield* options.fetch(cursor === undefined ? {} : { cursor })
      const list = isRecord(raw) ? raw[key] : undefined
      const next = isRecord(raw) ? raw.nextCursor : undefined
      if (!Array.isArray(list)) {
        return yield* new ProtocolError({ server, method, detail: `the page has no ${key} array` })
      }
      if (next !== undefined && typeof next !== "string") {
        return yield* new ProtocolError({ server, method, detail: "nextCursor is not a string" })
      }
      for (const item of list) items.push(item)
      if (next === undefined) return { items, pages: page }
      if (seen.has(next)) return yield* new RepeatedCursor({ server, method, page })
      if (page >= options.maxPages) return yield* new PageCapExceeded({ server, method, pages: page })
      seen.add(next)
      cursor = next
    }
  })
