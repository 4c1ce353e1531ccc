/**
 * Named profiles: which servers and tools one host sees (`/mcp/<profile>` or `--profile`), as a typed options
 * value with a Schema for the configuration file.
 *
 * A profile is a set of servers (absent: all), per-server filters (`ToolFilter`), a `readOnly` for all its
 * servers, the tools it pins (shown beside `search_tools` / `call_tool` in search mode), and its surface `mode`
 * with the `searchThreshold` (see `SearchMode`). The fleet-wide `filters` apply under every profile, the
 * profile's own on top. The default profile (no name) is the top level of the configuration.
 *
 * **Contract**:
 * - {@link decode} accepts exactly the {@link ProfilesConfig} Schema; unknown keys are errors (a typo never
 *   passes silently), and every problem is reported with its path in one `InvalidProfiles`.
 * - {@link select} gives the named profile merged over the top level (servers, mode and threshold from the
 *   profile when it sets them; filters stacked), or `UnknownProfile` naming the profiles there are.
 * - {@link apply} sorts every tool into `kept` or `dropped` (with the reason), never both, never neither; `pinned`
 *   is the kept tools a pin names. A pin on a dropped tool pins nothing: filters win.
 *
 * @since 0.1.0
 */
import type { Tool } from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { InvalidProfiles, UnknownProfile } from "./GatewayError.ts"
import * as ToolFilter from "./ToolFilter.ts"

const Globs = Schema.Array(Schema.String)

/**
 * `readOnly`: `true` (only `readOnlyHint: true`), `"lenient"` (all but `readOnlyHint: false`), `false`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReadOnly = Schema.Union([Schema.Boolean, Schema.Literal("lenient")])

/**
 * The filter of one server's tools (see `ToolFilter`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerFilter = Schema.Struct({
  allow: Schema.optionalKey(Globs),
  deny: Schema.optionalKey(Globs),
  readOnly: Schema.optionalKey(ReadOnly)
})

/**
 * A pinned tool: its server, and a glob on its upstream name.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Pin = Schema.Struct({ server: Schema.String, tool: Schema.String })

/**
 * @since 0.1.0
 * @category schemas
 */
export type Pin = typeof Pin.Type

/**
 * The surface a profile shows: `tools` (every kept tool), `search` (`search_tools`, `call_tool` and the pinned
 * tools), or `auto` (search when more tools are kept than `searchThreshold`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Mode = Schema.Literals(["auto", "tools", "search"])

/**
 * @since 0.1.0
 * @category schemas
 */
export type Mode = typeof Mode.Type

const Threshold = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * A profile name: what follows `/mcp/` in the gateway's URL.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProfileName = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]{1,64}$/))

const ProfileFields = {
  description: Schema.optionalKey(Schema.String),
  /** The servers it shows; absent: every server of the fleet. */
  servers: Schema.optionalKey(Schema.Array(Schema.String)),
  /** Per-server filters, on top of the fleet-wide ones. */
  filters: Schema.optionalKey(Schema.Record(Schema.String, ServerFilter)),
  /** `readOnly` for every server it shows. */
  readOnly: Schema.optionalKey(ReadOnly),
  pinned: Schema.optionalKey(Schema.Array(Pin)),
  mode: Schema.optionalKey(Mode),
  searchThreshold: Schema.optionalKey(Threshold)
}

/**
 * One named profile.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Profile = Schema.Struct(ProfileFields)

/**
 * @since 0.1.0
 * @category schemas
 */
export type Profile = typeof Profile.Type

/**
 * The whole configuration: the default profile's fields at the top level, and the named `profiles`.
 *
 * @example
 * ```json
 * {
 *   "filters": { "filesystem": { "deny": ["write_*", "move_*"] } },
 *   "profiles": {
 *     "readonly": { "readOnly": true },
 *     "notes": { "servers": ["memory"], "pinned": [{ "server": "memory", "tool": "read_graph" }] }
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProfilesConfig = Schema.Struct({
  ...ProfileFields,
  profiles: Schema.optionalKey(Schema.Record(ProfileName, Profile))
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type ProfilesConfig = typeof ProfilesConfig.Type

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Decodes the profiles configuration (a parsed JSON value), or fails with every problem and its path.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = Effect.fn("Profiles.decode")(function*(input: unknown) {
  return yield* Schema.decodeUnknownEffect(ProfilesConfig)(input, { errors: "all", onExcessProperty: "error" }).pipe(
    Effect.mapError((error) =>
      new InvalidProfiles({
        issues: formatter(error.issue).issues.map((issue) => {
          const path = (issue.path ?? []).map((key) => typeof key === "number" ? `[${key}]` : `.${String(key)}`).join(
            ""
          )
          return path === "" ? issue.message : `at ${path.replace(/^\./, "")}: ${issue.message}`
        })
      })
    )
  )
})

/**
 * A profile ready to apply: the top level and the named profile merged.
 *
 * @since 0.1.0
 * @category models
 */
export interface Resolved {
  /** `undefined` for the default profile. */
  readonly name: string | undefined
  /** Whether a server's tools, resources and prompts are shown under this profile. */
  readonly includes: (server: string) => boolean
  readonly filterFor: (server: string) => ToolFilter.Compiled
  readonly pinned: ReadonlyArray<Pin>
  readonly mode: Mode
  readonly searchThreshold: number | undefined
}

const layerFilters = (
  config: Profile,
  server: string
): ReadonlyArray<ToolFilter.ServerFilter> => {
  const own = config.filters?.[server]
  return [
    ...(own !== undefined ? [own] : []),
    ...(config.readOnly !== undefined ? [{ readOnly: config.readOnly }] : [])
  ]
}

/**
 * The profile `name` (or the default one, for `undefined`), or `UnknownProfile`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const select = Effect.fn("Profiles.select")(function*(config: ProfilesConfig, name: string | undefined) {
  const named = name === undefined ? undefined : config.profiles?.[name]
  if (name !== undefined && named === undefined) {
    return yield* new UnknownProfile({ profile: name, known: Object.keys(config.profiles ?? {}).sort() })
  }
  const servers = named?.servers ?? config.servers
  const serverSet = servers === undefined ? undefined : new Set(servers)
  const filters = new Map<string, ToolFilter.Compiled>()
  const resolved: Resolved = {
    name,
    includes: (server) => serverSet === undefined || serverSet.has(server),
    filterFor: (server) => {
      let filter = filters.get(server)
      if (filter === undefined) {
        const layers = [...layerFilters(config, server), ...(named !== undefined ? layerFilters(named, server) : [])]
        filter = ToolFilter.all(layers.map(ToolFilter.compile))
        filters.set(server, filter)
      }
      return filter
    },
    pinned: [...(config.pinned ?? []), ...(named?.pinned ?? [])],
    mode: named?.mode ?? config.mode ?? "auto",
    searchThreshold: named?.searchThreshold ?? config.searchThreshold
  }
  return resolved
})

/**
 * What a profile makes of the fleet's tools.
 *
 * @since 0.1.0
 * @category models
 */
export interface Selection {
  readonly kept: ReadonlyArray<Tool.ServerTool>
  readonly dropped: ReadonlyArray<{ readonly tool: Tool.ServerTool; readonly reason: string }>
  /** The kept tools a pin names, in the order of `kept`. */
  readonly pinned: ReadonlyArray<Tool.ServerTool>
}

/**
 * Sorts the fleet's tools (`McpManager.tools()`) under a profile (see the module's contract).
 *
 * @since 0.1.0
 * @category combinators
 */
export const apply = (profile: Resolved, tools: ReadonlyArray<Tool.ServerTool>): Selection => {
  const kept: Array<Tool.ServerTool> = []
  const dropped: Array<{ readonly tool: Tool.ServerTool; readonly reason: string }> = []
  for (const tool of tools) {
    if (!profile.includes(tool.server)) {
      dropped.push({
        tool,
        reason: `server "${tool.server}" is not in profile ${
          profile.name === undefined ? "(default)" : `"${profile.name}"`
        }`
      })
      continue
    }
    const decision = profile.filterFor(tool.server).decide(tool.tool)
    if (decision._tag === "Dropped") dropped.push({ tool, reason: decision.reason })
    else kept.push(tool)
  }
  const pinned = kept.filter((t) =>
    profile.pinned.some((pin) => pin.server === t.server && ToolFilter.matches(pin.tool, t.tool.name))
  )
  return { kept, dropped, pinned }
}
