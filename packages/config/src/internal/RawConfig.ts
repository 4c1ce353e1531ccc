/**
 * The config file's wire shape (before env expansion), decoded with `effect/Schema`.
 *
 * @since 0.1.0
 */
import { Effect, Schema, SchemaIssue } from "effect"
import * as ConfigError from "../ConfigError.ts"
import * as JsonPath from "./JsonPath.ts"

const NonEmptyString = Schema.String.check(Schema.isNonEmpty({ message: "expected a non-empty string" }))

/**
 * One server entry as written in the file. Fields other hosts add (`type: "stdio"`, `envFile`, …) are tolerated
 * and dropped.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RawServerEntry = Schema.Struct({
  command: NonEmptyString,
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  cwd: Schema.optionalKey(NonEmptyString),
  disabled: Schema.optionalKey(Schema.Boolean),
  type: Schema.optionalKey(Schema.Literal("stdio")),
  curated: Schema.optionalKey(Schema.Array(Schema.String)),
  requestTimeoutMs: Schema.optionalKey(Schema.Finite),
  inheritEnv: Schema.optionalKey(Schema.Boolean)
})

/**
 * The decoded wire type of one server entry.
 *
 * @since 0.1.0
 * @category models
 */
export type RawServerEntry = typeof RawServerEntry.Type

const RawServers = Schema.Record(Schema.String, RawServerEntry)

/**
 * The top-level keys that hold servers: `mcpServers` (Claude Desktop, Cursor, Claude Code) or `servers`
 * (VS Code's `mcp.json`).
 *
 * @since 0.1.0
 * @category models
 */
export type ServersKey = "mcpServers" | "servers"

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1)

/**
 * Finds the servers object of a parsed document and decodes it, in file order of the checks a person would
 * want: the document's shape, then transports (a remote server gets a "stdio only" error, not "missing
 * command"), then each entry's fields. Returns the key used and the entries in key order.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeServers = (
  document: unknown,
  path: string
): Effect.Effect<
  { readonly key: ServersKey; readonly entries: ReadonlyArray<readonly [string, RawServerEntry]> },
  ConfigError.ConfigSchemaInvalid | ConfigError.UnsupportedTransport
> =>
  Effect.gen(function*() {
    const invalid = (jsonPath: string, issue: string) => new ConfigError.ConfigSchemaInvalid({ path, jsonPath, issue })
    if (!isRecord(document)) {
      return yield* invalid("", "expected a JSON object with an \"mcpServers\" object")
    }
    const hasMcpServers = Object.hasOwn(document, "mcpServers")
    const hasServers = Object.hasOwn(document, "servers")
    if (hasMcpServers && hasServers) {
      return yield* invalid("", "it has both \"mcpServers\" and \"servers\"; keep one of them")
    }
    if (!hasMcpServers && !hasServers) {
      return yield* invalid("", "expected an \"mcpServers\" object (or VS Code's \"servers\") listing the servers")
    }
    const key: ServersKey = hasMcpServers ? "mcpServers" : "servers"
    const servers = document[key]
    if (isRecord(servers)) {
      for (const [server, entry] of Object.entries(servers)) {
        const transport = unsupportedTransport(entry)
        if (transport !== undefined) {
          return yield* new ConfigError.UnsupportedTransport({ path, server, ...transport })
        }
      }
    }
    const decoded = yield* Schema.decodeUnknownEffect(RawServers)(servers).pipe(
      Effect.mapError((error) => {
        const first = formatter(error.issue).issues[0]
        return invalid(
          JsonPath.format([key, ...(first?.path ?? []).map((s) => typeof s === "object" ? s.key : s)]),
          first === undefined ? "invalid value" : lowerFirst(first.message)
        )
      })
    )
    return { key, entries: Object.entries(decoded) }
  })

/**
 * Describes an entry that is not a stdio server: its `type` when that is a string other than `"stdio"`, or
 * `"url"` (with `viaUrl`) for an entry with a `url` and no `command`. `undefined` for everything else, including
 * entries that are not objects (the schema reports those).
 *
 * @since 0.1.0
 * @category decoding
 */
export const unsupportedTransport = (
  entry: unknown
): { readonly transport: string; readonly viaUrl: boolean } | undefined => {
  if (!isRecord(entry)) return undefined
  const type = entry["type"]
  if (typeof type === "string" && type !== "stdio") return { transport: type, viaUrl: false }
  if (type === undefined && Object.hasOwn(entry, "url") && !Object.hasOwn(entry, "command")) {
    return { transport: "url", viaUrl: true }
  }
  return undefined
}
