/**
 * The config file's wire shape (before env expansion), decoded with `effect/Schema`, and the sorting of its
 * entries into stdio entries, remote (`url`) entries, entries of an unknown `type`, and ignored keys.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as ConfigError from "../ConfigError.ts"
import * as ConfigWarning from "../ConfigWarning.ts"
import * as JsonPath from "./JsonPath.ts"
import * as KnownKeys from "./KnownKeys.ts"
import { checkKeys, RawRemoteAuth } from "./ResolveAuth.ts"

const NonEmptyString = Schema.String.check(Schema.isNonEmpty({ message: "expected a non-empty string" }))

/**
 * One stdio server entry as written in the file (keys of other hosts are reported as warnings and dropped).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RawServerEntry = Schema.Struct({
  command: NonEmptyString,
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  envFile: Schema.optionalKey(NonEmptyString),
  cwd: Schema.optionalKey(NonEmptyString),
  disabled: Schema.optionalKey(Schema.Boolean),
  type: Schema.optionalKey(Schema.Literal("stdio")),
  timeout: Schema.optionalKey(Schema.Finite),
  curated: Schema.optionalKey(Schema.Array(Schema.String)),
  requestTimeoutMs: Schema.optionalKey(Schema.Finite),
  inheritEnv: Schema.optionalKey(Schema.Boolean)
})

/**
 * The decoded wire type of one stdio server entry.
 *
 * @since 0.1.0
 * @category models
 */
export type RawServerEntry = typeof RawServerEntry.Type

/**
 * The remote transports a `type` may name (`"streamable-http"` is VS Code's and Claude Code's other spelling of
 * `"http"`).
 *
 * @since 0.1.0
 * @category models
 */
export const REMOTE_TYPES = ["http", "streamable-http", "sse"] as const

/**
 * One remote (`url`) server entry as written in the file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RawRemoteEntry = Schema.Struct({
  type: Schema.optionalKey(Schema.Literals(REMOTE_TYPES)),
  url: NonEmptyString,
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  disabled: Schema.optionalKey(Schema.Boolean),
  timeout: Schema.optionalKey(Schema.Finite),
  curated: Schema.optionalKey(Schema.Array(Schema.String)),
  requestTimeoutMs: Schema.optionalKey(Schema.Finite),
  auth: Schema.optionalKey(RawRemoteAuth)
})

/**
 * The decoded wire type of one remote server entry.
 *
 * @since 0.1.0
 * @category models
 */
export type RawRemoteEntry = typeof RawRemoteEntry.Type

/**
 * The top-level keys that hold servers: `mcpServers` (Claude Desktop, Cursor, Claude Code) or `servers`
 * (VS Code's `mcp.json`).
 *
 * @since 0.1.0
 * @category models
 */
export type ServersKey = "mcpServers" | "servers"

/**
 * One decoded entry, by kind.
 *
 * @since 0.1.0
 * @category models
 */
export type RawEntry =
  | { readonly kind: "stdio"; readonly name: string; readonly raw: RawServerEntry }
  | { readonly kind: "remote"; readonly name: string; readonly raw: RawRemoteEntry }

/**
 * What {@link decodeServers} found: the key used, the entries in key order, and the warnings.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecodedServers {
  readonly key: ServersKey
  readonly entries: ReadonlyArray<RawEntry>
  readonly warnings: ReadonlyArray<ConfigWarning.ConfigWarning>
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1)

/**
 * Which kind an entry is: `"stdio"` (a `command`, or `type: "stdio"`), `"remote"` (a remote `type`, or a `url`
 * without a `command`), or the unknown `type` it names. An entry that is not an object is `"stdio"` (its
 * schema then says what is wrong).
 *
 * @since 0.1.0
 * @category decoding
 */
export const kindOf = (entry: unknown): "stdio" | "remote" | { readonly unknownType: string } => {
  if (!isRecord(entry)) return "stdio"
  const type = entry["type"]
  if (typeof type === "string") {
    if (type === "stdio") return "stdio"
    return REMOTE_TYPES.some((t) => t === type) ? "remote" : { unknownType: type }
  }
  return Object.hasOwn(entry, "url") && !Object.hasOwn(entry, "command") ? "remote" : "stdio"
}

/**
 * Finds the servers object of a parsed document and decodes it, in the order of the checks a person would want:
 * the document's shape, then each entry's fields in key order. Entries of an unknown `type` are skipped with a
 * warning; keys an entry's kind does not read are warned about once per key.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeServers = (
  document: unknown,
  path: string
): Effect.Effect<DecodedServers, ConfigError.ConfigSchemaInvalid> =>
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
    if (!isRecord(servers)) return yield* invalid(key, "expected object")
    const decodeIssue = (name: string) => (error: Schema.SchemaError) => {
      const first = formatter(error.issue).issues[0]
      return invalid(
        JsonPath.format([key, name, ...(first?.path ?? []).map((s) => typeof s === "object" ? s.key : s)]),
        first === undefined ? "invalid value" : lowerFirst(first.message)
      )
    }
    const entries: Array<RawEntry> = []
    const warnings: Array<ConfigWarning.ConfigWarning> = []
    const extraKeys = new Map<string, { readonly servers: Array<string>; readonly known: ReadonlyArray<string> }>()
    for (const [name, entry] of Object.entries(servers)) {
      const kind = kindOf(entry)
      if (typeof kind === "object") {
        warnings.push(new ConfigWarning.UnknownTransport({ server: name, transport: kind.unknownType }))
        continue
      }
      if (kind === "stdio") {
        const raw = yield* Schema.decodeUnknownEffect(RawServerEntry)(entry).pipe(Effect.mapError(decodeIssue(name)))
        entries.push({ kind, name, raw })
      } else {
        const raw = yield* Schema.decodeUnknownEffect(RawRemoteEntry)(entry).pipe(Effect.mapError(decodeIssue(name)))
        if (isRecord(entry)) yield* checkKeys(entry["auth"], [key, name, "auth"], path)
        entries.push({ kind, name, raw })
      }
      const known = kind === "stdio" ? KnownKeys.STDIO_KEYS : KnownKeys.REMOTE_KEYS
      for (const extra of Object.keys(isRecord(entry) ? entry : {})) {
        if (known.includes(extra)) continue
        const seen = extraKeys.get(extra)
        if (seen === undefined) extraKeys.set(extra, { servers: [name], known })
        else seen.servers.push(name)
      }
    }
    for (const [extra, { known, servers }] of extraKeys) {
      warnings.push(
        KnownKeys.OTHER_HOSTS_KEYS.has(extra)
          ? new ConfigWarning.IgnoredKey({ key: extra, servers })
          : new ConfigWarning.UnknownKey({ key: extra, servers, suggestion: KnownKeys.suggest(extra, known) })
      )
    }
    return { key, entries, warnings }
  })
