/**
 * Large tool results: a result whose text is longer than `threshold` goes to a bounded store with a TTL, and the
 * host gets its head and a `resource_link` to `fleet://results/<id>`, which it reads page by page with
 * `resources/read` (`fleet://results/<id>?page=2` …).
 *
 * **Contract**:
 * - `spill` leaves a result whose text blocks total `threshold` characters or fewer exactly as it is. A longer
 *   one is stored (its text blocks joined by a blank line) and comes back as: one text block (the first
 *   `headChars` characters and a note saying how to read the rest), the result's non-text blocks unchanged, and
 *   one `resource_link`. `isError` and `_meta` are kept; `structuredContent` is dropped (it would be as large).
 * - Ids are 16 bytes from `SecureRandom` (128 bits, base64url): unguessable, and a host can read only what its
 *   own links name.
 * - Time is `Clock`'s: an entry lives `ttl` from when it was stored, then reads fail with `ResultNotFound`.
 * - The store is bounded: at most `maxEntries` entries and `maxChars` characters in all. Expired entries go
 *   first, then the oldest. A text longer than `maxChars` is not stored: the host gets the head and a note that
 *   the rest was not kept.
 * - `read` serves page `n` (1-based, `pageChars` characters, never splitting a surrogate pair) with `_meta`
 *   `mcp-fleet/page`, `mcp-fleet/pages` and, before the last, `mcp-fleet/next`; a page out of range or a
 *   malformed URI is `InvalidResultUri`.
 *
 * @since 0.1.0
 */
import type { Protocol, ProtocolFeatures } from "@mcp-fleet/transport"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as SecureRandom from "effect/crypto/SecureRandom"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { InvalidResultUri, ResultNotFound } from "./GatewayError.ts"

/**
 * The start of every stored result's URI.
 *
 * @since 0.1.0
 * @category constants
 */
export const URI_PREFIX = "fleet://results/"

/**
 * The options of {@link make}, each with its default.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /**
   * Text longer than this (characters) is stored. Default 80,000: about 20,000 tokens at 4 characters a token,
   * under Claude Code's 25,000-token cap on a tool result (`MAX_MCP_OUTPUT_TOKENS`).
   */
  readonly threshold?: number | undefined
  /** How much text stays in the result. Default 4,000 characters. */
  readonly headChars?: number | undefined
  /** The size of a page. Default 40,000 characters. */
  readonly pageChars?: number | undefined
  /** How long an entry is kept. Default 15 minutes. */
  readonly ttl?: Duration.Input | undefined
  /** Default 100 entries. */
  readonly maxEntries?: number | undefined
  /** Characters kept in all. Default 20,000,000 (about 40 MB as JavaScript strings). */
  readonly maxChars?: number | undefined
}

interface Resolved {
  readonly threshold: number
  readonly headChars: number
  readonly pageChars: number
  readonly ttlMillis: number
  readonly maxEntries: number
  readonly maxChars: number
}

const positive = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback

const resolve = (options: Options): Resolved => {
  const ttl = options.ttl === undefined ? 15 * 60_000 : Duration.toMillis(Duration.fromInputUnsafe(options.ttl))
  return {
    threshold: positive(options.threshold, 80_000),
    headChars: positive(options.headChars, 4_000),
    pageChars: positive(options.pageChars, 40_000),
    ttlMillis: ttl > 0 ? ttl : 15 * 60_000,
    maxEntries: positive(options.maxEntries, 100),
    maxChars: positive(options.maxChars, 20_000_000)
  }
}

/**
 * The number of text characters above which `spill` stores a result, for `options` (the default when unset).
 *
 * @since 0.1.0
 * @category options
 */
export const thresholdOf = (options: Options): number => resolve(options).threshold

/**
 * The length of a tool result's text as `spill` measures it (its text blocks joined by a blank line), for a cheap
 * check before decoding the result; 0 for anything that is not a content array.
 *
 * @since 0.1.0
 * @category predicates
 */
export const textChars = (content: unknown): number => {
  if (!Array.isArray(content)) return 0
  let chars = 0
  let blocks = 0
  for (const block of content) {
    if (typeof block === "object" && block !== null && "type" in block && block.type === "text" && "text" in block) {
      if (typeof block.text !== "string") continue
      chars += block.text.length
      blocks++
    }
  }
  return blocks === 0 ? 0 : chars + 2 * (blocks - 1)
}

interface Entry {
  readonly text: string
  readonly expiresAt: number
  /** Page starts, in characters; never inside a surrogate pair. */
  readonly pages: ReadonlyArray<number>
}

/**
 * The store. Its operations are `ResultStore["Service"]`.
 *
 * @since 0.1.0
 * @category services
 */
export class ResultStore extends Context.Service<ResultStore, {
  /** A result as the host should get it: unchanged, or its head and a link to the stored whole. */
  readonly spill: (result: Protocol.CallToolResult) => Effect.Effect<Protocol.CallToolResult>
  /** One page of a stored result, by its URI. */
  readonly read: (uri: string) => Effect.Effect<ProtocolFeatures.ReadResourceResult, ResultNotFound | InvalidResultUri>
  /** What is kept now (expired entries are not counted). */
  readonly size: Effect.Effect<{ readonly entries: number; readonly chars: number }>
}>()("@mcp-fleet/gateway/ResultStore") {}

/**
 * Whether a URI is in the store's space (`fleet://results/…`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isResultUri = (uri: string): boolean => uri.startsWith(URI_PREFIX)

const isLowSurrogateAt = (text: string, index: number): boolean => {
  const code = text.charCodeAt(index)
  return code >= 0xdc00 && code <= 0xdfff
}

/** Where a cut at `index` lands, moved back so it never splits a surrogate pair. */
const safeCut = (text: string, index: number): number =>
  index > 0 && index < text.length && isLowSurrogateAt(text, index) ? index - 1 : index

const pageStarts = (text: string, pageChars: number): Array<number> => {
  const starts = [0]
  let at = 0
  while (text.length - at > pageChars) {
    const next = safeCut(text, at + pageChars)
    // A page of one surrogate pair when pageChars is 1: move forward instead of back.
    at = next > at ? next : at + 2
    starts.push(at)
  }
  return starts
}

const base64url = (bytes: Uint8Array): string => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
  let out = ""
  let bits = 0
  let value = 0
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 6) {
      bits -= 6
      out += alphabet[(value >> bits) & 63]
    }
  }
  if (bits > 0) out += alphabet[(value << (6 - bits)) & 63]
  return out
}

const ID = /^[A-Za-z0-9_-]{22}$/

const parse = (uri: string): { readonly id: string; readonly page: number } | InvalidResultUri => {
  const rest = uri.slice(URI_PREFIX.length)
  const [id = "", query] = rest.split("?", 2)
  if (!isResultUri(uri) || !ID.test(id)) {
    return new InvalidResultUri({ uri, reason: `expected ${URI_PREFIX}<22-character id>[?page=<n>]` })
  }
  if (query === undefined) return { id, page: 1 }
  const match = /^page=([1-9][0-9]{0,8})$/.exec(query)
  if (match === null) return new InvalidResultUri({ uri, reason: "the only query is page=<n>, n from 1" })
  return { id, page: Number(match[1]) }
}

const pageUri = (id: string, page: number) => page === 1 ? `${URI_PREFIX}${id}` : `${URI_PREFIX}${id}?page=${page}`

const utf8Length = (text: string): number => new TextEncoder().encode(text).length

/**
 * Where entries are kept: in memory ({@link memory}, the default) or shared (the Redis backing of `SharedState`).
 * Each call gets `now` (epoch ms by `Clock`); an entry lives `ttlMillis` from when it was put.
 *
 * @since 0.1.0
 * @category models
 */
export interface Backing {
  /** Keeps an entry, dropping expired then oldest entries to stay within the bounds. `false`: not kept. */
  readonly put: (
    id: string,
    entry: { readonly text: string; readonly pages: ReadonlyArray<number> },
    now: number
  ) => Effect.Effect<boolean>
  /** Page `page` (1-based) of an entry and its page count; `undefined` when the entry is not kept (or expired). */
  readonly page: (
    id: string,
    page: number,
    now: number
  ) => Effect.Effect<{ readonly text: string | undefined; readonly pages: number } | undefined>
  /** What is kept now. */
  readonly size: (now: number) => Effect.Effect<{ readonly entries: number; readonly chars: number }>
}

/**
 * The bounds a backing keeps: `ttlMillis`, `maxEntries`, `maxChars` (resolved from {@link Options}).
 *
 * @since 0.1.0
 * @category models
 */
export interface Bounds {
  readonly ttlMillis: number
  readonly maxEntries: number
  readonly maxChars: number
}

/**
 * The bounds of `options`, with their defaults.
 *
 * @since 0.1.0
 * @category options
 */
export const bounds = (options: Options = {}): Bounds => {
  const { maxChars, maxEntries, ttlMillis } = resolve(options)
  return { ttlMillis, maxEntries, maxChars }
}

/**
 * Entries in this process's memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const memory = (limits: Bounds): Effect.Effect<Backing> =>
  Effect.map(Ref.make(new Map<string, Entry>()), (entries) => {
    /** The map without expired entries and, if `incoming` chars must fit, without the oldest ones. */
    const prune = (map: Map<string, Entry>, now: number, incoming: number): Map<string, Entry> => {
      const next = new Map([...map].filter(([, entry]) => entry.expiresAt > now))
      let chars = [...next.values()].reduce((sum, entry) => sum + entry.text.length, 0)
      const slots = incoming > 0 ? 1 : 0
      for (const [id, entry] of next) {
        if (next.size + slots <= limits.maxEntries && chars + incoming <= limits.maxChars) break
        next.delete(id)
        chars -= entry.text.length
      }
      return next
    }
    const backing: Backing = {
      put: (id, entry, now) =>
        Ref.update(entries, (map) => {
          const next = prune(map, now, entry.text.length)
          next.set(id, { text: entry.text, expiresAt: now + limits.ttlMillis, pages: entry.pages })
          return next
        }).pipe(Effect.as(true)),
      page: (id, page, now) =>
        Ref.modify(entries, (map) => {
          const next = prune(map, now, 0)
          const entry = next.get(id)
          if (entry === undefined) return [undefined, next] as const
          const start = entry.pages[page - 1]
          const text = start === undefined ? undefined : entry.text.slice(start, entry.pages[page] ?? entry.text.length)
          return [{ text, pages: entry.pages.length }, next] as const
        }),
      size: (now) =>
        Effect.map(Ref.get(entries), (map) => {
          const live = [...map.values()].filter((entry) => entry.expiresAt > now)
          return { entries: live.length, chars: live.reduce((sum, entry) => sum + entry.text.length, 0) }
        })
    }
    return backing
  })

/**
 * Builds the store. Needs `SecureRandom` (`SecureRandom.layerWebCrypto` in an app).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  options: Options = {}
): Effect.fn.Return<ResultStore["Service"], never, SecureRandom.SecureRandom> {
  return yield* makeWith(options, yield* memory(bounds(options)))
})

/**
 * Builds the store over a backing (see {@link Backing}). Needs `SecureRandom`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWith = Effect.fnUntraced(function*(
  options: Options,
  backing: Backing
): Effect.fn.Return<ResultStore["Service"], never, SecureRandom.SecureRandom> {
  const config = resolve(options)
  const random = yield* SecureRandom.SecureRandom

  const spill = Effect.fn("ResultStore.spill")(function*(result: Protocol.CallToolResult) {
    const texts: Array<string> = []
    const others: Array<Protocol.ContentBlock> = []
    for (const block of result.content) {
      if (block.type === "text" && typeof block["text"] === "string") texts.push(block["text"])
      else others.push(block)
    }
    const text = texts.join("\n\n")
    if (text.length <= config.threshold) return result
    const now = yield* Clock.currentTimeMillis
    const head = text.slice(0, safeCut(text, config.headChars))
    const { structuredContent: _dropped, content: _content, ...rest } = result
    const notKept = (why: string) => {
      const note = `\n\n[mcp-fleet: this result is ${text.length} characters; the first ${head.length} are above. ` +
        `The rest was not kept: ${why}.]`
      return { ...rest, content: [{ type: "text", text: head + note }, ...others] }
    }
    if (text.length > config.maxChars) {
      return notKept(`it is larger than the gateway's store (${config.maxChars} characters)`)
    }
    const id = base64url(yield* random.randomBytes(16))
    const pages = pageStarts(text, config.pageChars)
    if (!(yield* backing.put(id, { text, pages }, now))) return notKept("the gateway's store is unavailable")
    const uri = pageUri(id, 1)
    const minutes = Math.round(config.ttlMillis / 60_000)
    const note = `\n\n[mcp-fleet: this result is ${text.length} characters; the first ${head.length} are above. ` +
      `The whole text is the resource ${uri}, in ${pages.length} page${
        pages.length === 1 ? "" : "s"
      } of up to ${config.pageChars} characters` +
      (pages.length > 1 ? ` (read ${uri}, then ${uri}?page=2 … ?page=${pages.length})` : "") +
      `; it is kept ${minutes > 0 ? `${minutes} minutes` : `${Math.round(config.ttlMillis / 1000)} seconds`}.]`
    const link = {
      type: "resource_link",
      uri,
      name: `result-${id}`,
      title: "The whole tool result",
      description: `${text.length} characters in ${pages.length} page(s); read ${uri}?page=<n> for page n.`,
      mimeType: "text/plain",
      size: utf8Length(text)
    }
    return { ...rest, content: [{ type: "text", text: head + note }, ...others, link] }
  })

  const read = Effect.fn("ResultStore.read")(function*(uri: string) {
    const parsed = parse(uri)
    if (parsed instanceof InvalidResultUri) return yield* parsed
    const now = yield* Clock.currentTimeMillis
    const found = yield* backing.page(parsed.id, parsed.page, now)
    if (found === undefined) return yield* new ResultNotFound({ uri, ttlMillis: config.ttlMillis })
    const pages = found.pages
    if (parsed.page > pages || found.text === undefined) {
      return yield* new InvalidResultUri({ uri, reason: `it has ${pages} page${pages === 1 ? "" : "s"}` })
    }
    const result: ProtocolFeatures.ReadResourceResult = {
      contents: [{ uri, mimeType: "text/plain", text: found.text }],
      _meta: {
        "mcp-fleet/page": parsed.page,
        "mcp-fleet/pages": pages,
        ...(parsed.page < pages ? { "mcp-fleet/next": pageUri(parsed.id, parsed.page + 1) } : {})
      }
    }
    return result
  })

  const size = Effect.flatMap(Clock.currentTimeMillis, backing.size)

  return ResultStore.of({ spill, read, size })
})

/**
 * The store as a layer. Needs `SecureRandom`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<ResultStore, never, SecureRandom.SecureRandom> =>
  Layer.effect(ResultStore, make(options))
