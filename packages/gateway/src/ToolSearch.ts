/**
 * Search mode's two tools: `search_tools` (keyword ranking over the fleet's tools, no model) and `call_tool`
 * (calls one by the name `search_tools` returned), with their argument Schemas and definitions.
 *
 * **Ranking** is BM25+ from MiniSearch (`minisearch`, zero dependencies; a solved problem, so a library): one
 * document per exposed tool, with the fields `name` (the upstream name, ×3), `title` (×2), `args` (argument
 * names, ×1.5), `server` (×1.5) and `description` (×1). Text is split at non-alphanumerics and camelCase
 * humps, lower-cased, common English stop words dropped and a plural `s` stripped, for the index and the query
 * alike; query terms of 3+ characters also match as prefixes, and of 5+ characters with one edit (fuzzy 0.2).
 *
 * **Contract** of {@link make}'s `search`: the hits are the documents matching at least one query term, best
 * first; a document whose exposed or upstream name equals the whole query comes first; equal scores are in
 * code-unit order of exposed names, so the same index and query always give the same list; at most `limit`
 * (1..50, default {@link DEFAULT_LIMIT}) hits; a query with no searchable term gives none.
 *
 * @since 0.1.0
 */
import type { Tool } from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import MiniSearch from "minisearch"
import { InvalidArguments } from "./GatewayError.ts"

/**
 * The name of the search tool.
 *
 * @since 0.1.0
 * @category constants
 */
export const SEARCH_TOOLS = "search_tools"

/**
 * The name of the indirection tool.
 *
 * @since 0.1.0
 * @category constants
 */
export const CALL_TOOL = "call_tool"

/**
 * How many hits `search_tools` returns when the caller does not say.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_LIMIT = 5

/**
 * The arguments of `search_tools`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SearchArguments = Schema.Struct({
  query: Schema.String.check(Schema.isMinLength(1)).annotate({
    description: "Keywords: what the tool should do, or words from its name or arguments."
  }),
  limit: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 })).annotate({
      description: `How many tools to return, best first (default ${DEFAULT_LIMIT}).`
    })
  ),
  server: Schema.optionalKey(Schema.String.annotate({ description: "Only tools of this MCP server." }))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type SearchArguments = typeof SearchArguments.Type

/**
 * The arguments of `call_tool`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CallArguments = Schema.Struct({
  name: Schema.String.check(Schema.isMinLength(1)).annotate({
    description: "The tool's name, exactly as search_tools returned it."
  }),
  arguments: Schema.optionalKey(
    Schema.Record(Schema.String, Schema.Unknown).annotate({
      description: "The tool's arguments, as its inputSchema (from search_tools) describes them."
    })
  )
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CallArguments = typeof CallArguments.Type

const inputSchemaOf = (schema: Schema.Constraint): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(schema)
  return { ...document.schema, additionalProperties: false }
}

/**
 * The definition `tools/list` shows for `search_tools`.
 *
 * @since 0.1.0
 * @category constants
 */
export const searchToolsDefinition: Tool.DiscoveredTool = {
  name: SEARCH_TOOLS,
  title: "Search the fleet's tools",
  description:
    "Finds tools of the MCP servers behind this gateway by keywords (names, titles, descriptions, argument names) and returns the best matches with their input schemas. Call a match with call_tool.",
  inputSchema: inputSchemaOf(SearchArguments),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}

/**
 * The definition `tools/list` shows for `call_tool`. Its hints are absent: they are those of the tool it calls.
 *
 * @since 0.1.0
 * @category constants
 */
export const callToolDefinition: Tool.DiscoveredTool = {
  name: CALL_TOOL,
  title: "Call a tool found with search_tools",
  description:
    "Calls a tool of the MCP servers behind this gateway: name is the name search_tools returned, arguments its input.",
  inputSchema: inputSchemaOf(CallArguments)
}

const decodeWith = <S extends Schema.Codec<unknown, unknown>>(tool: string, schema: S) => {
  const decodeUnknown = Schema.decodeUnknownEffect(schema)
  return (input: unknown) =>
    decodeUnknown(input, { onExcessProperty: "error" }).pipe(
      Effect.mapError((error) => new InvalidArguments({ tool, issue: error.message }))
    )
}

/**
 * Decodes the arguments of a `search_tools` call, or fails with `InvalidArguments`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeSearchArguments: (input: unknown) => Effect.Effect<SearchArguments, InvalidArguments> = decodeWith(
  SEARCH_TOOLS,
  SearchArguments
)

/**
 * Decodes the arguments of a `call_tool` call, or fails with `InvalidArguments`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeCallArguments: (input: unknown) => Effect.Effect<CallArguments, InvalidArguments> = decodeWith(
  CALL_TOOL,
  CallArguments
)

/**
 * One tool to index: its exposed name, its server and its upstream definition.
 *
 * @since 0.1.0
 * @category models
 */
export interface Document {
  readonly name: string
  readonly server: string
  readonly tool: Tool.DiscoveredTool
}

/**
 * One hit of a search.
 *
 * @since 0.1.0
 * @category models
 */
export interface Hit extends Document {
  readonly score: number
}

/**
 * The options of one search.
 *
 * @since 0.1.0
 * @category models
 */
export interface SearchOptions {
  readonly limit?: number | undefined
  readonly server?: string | undefined
}

/**
 * An index of the exposed tools, immutable once made.
 *
 * @since 0.1.0
 * @category models
 */
export interface Index {
  readonly size: number
  readonly search: (query: string, options?: SearchOptions) => ReadonlyArray<Hit>
}

const STOP_WORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "for",
  "from",
  "in",
  "into",
  "is",
  "it",
  "of",
  "on",
  "or",
  "that",
  "the",
  "this",
  "to",
  "with"
])

/** Splits at non-alphanumerics and at camelCase humps (`readFile`, `HTTPServer` → `HTTP Server`). */
const tokenize = (text: string): Array<string> =>
  text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0)

const processTerm = (term: string): string | null => {
  const lower = term.toLowerCase()
  if (STOP_WORDS.has(lower)) return null
  return lower.length > 3 && lower.endsWith("s") && !lower.endsWith("ss") ? lower.slice(0, -1) : lower
}

const argumentNames = (tool: Tool.DiscoveredTool): string => {
  const properties = tool.inputSchema["properties"]
  return typeof properties === "object" && properties !== null ? Object.keys(properties).join(" ") : ""
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Indexes the exposed tools (see the module's contract).
 *
 * @example
 * ```ts
 * import { ToolSearch } from "@mcp-fleet/gateway"
 *
 * const index = ToolSearch.make([
 *   { name: "filesystem__read_file", server: "filesystem", tool: { name: "read_file", inputSchema: {} } },
 *   { name: "memory__create_entities", server: "memory", tool: { name: "create_entities", inputSchema: {} } }
 * ])
 * index.search("read a file")[0]?.name // "filesystem__read_file"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (documents: ReadonlyArray<Document>): Index => {
  const docs = [...documents].sort((a, b) => compare(a.name, b.name))
  const mini = new MiniSearch<number>({
    fields: ["name", "title", "args", "server", "description"],
    extractField: (id, field) => {
      const doc = docs[id]!
      switch (field) {
        case "id":
          return id
        case "name":
          return doc.tool.name
        case "title":
          return doc.tool.title ?? doc.tool.annotations?.title ?? ""
        case "args":
          return argumentNames(doc.tool)
        case "server":
          return doc.server
        default:
          return doc.tool.description ?? ""
      }
    },
    tokenize,
    processTerm,
    searchOptions: {
      boost: { name: 3, title: 2, args: 1.5, server: 1.5, description: 1 },
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => term.length >= 5 ? 0.2 : false,
      combineWith: "OR"
    }
  })
  mini.addAll(docs.map((_, i) => i))

  return {
    size: docs.length,
    search: (query, options = {}) => {
      const limit = Math.min(50, Math.max(1, Math.floor(options.limit ?? DEFAULT_LIMIT)))
      const exact = query.trim()
      const hits: Array<Hit> = []
      for (const result of mini.search(query)) {
        const id: unknown = result.id
        const doc = typeof id === "number" ? docs[id] : undefined
        if (doc !== undefined) hits.push({ ...doc, score: result.score })
      }
      for (const doc of docs) {
        if ((doc.name === exact || doc.tool.name === exact) && !hits.some((h) => h.name === doc.name)) {
          hits.push({ ...doc, score: 0 })
        }
      }
      const isExact = (hit: Hit) => hit.name === exact || hit.tool.name === exact
      return hits
        .filter((hit) => options.server === undefined || hit.server === options.server)
        .sort((a, b) => Number(isExact(b)) - Number(isExact(a)) || b.score - a.score || compare(a.name, b.name))
        .slice(0, limit)
    }
  }
}

/**
 * What `search_tools` answers: each hit as a tool definition under its exposed name (its `inputSchema` whole,
 * so the model can call it), in the text for every host and as `structuredContent`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (hits: ReadonlyArray<Hit>): {
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent: { readonly tools: ReadonlyArray<Record<string, unknown>> }
} => {
  const tools = hits.map((hit) => ({
    name: hit.name,
    server: hit.server,
    ...(hit.tool.title !== undefined ? { title: hit.tool.title } : {}),
    ...(hit.tool.description !== undefined ? { description: hit.tool.description } : {}),
    inputSchema: hit.tool.inputSchema
  }))
  const text = tools.length === 0
    ? "No tool matches; try other words, or fewer."
    : JSON.stringify(tools)
  return { content: [{ type: "text", text }], structuredContent: { tools } }
}
